// sources.cuh — where the values come from: one or two arrays of double or
// float in device memory, read with 16-byte vector loads (double2, float4).
//
// A pointer need not be 16-byte aligned: the first `head` elements (fewer
// than one vector) are read one by one, then whole vectors from the aligned
// address, then a scalar tail.  Two arrays are read as vectors only if they
// have the same misalignment (the same head); otherwise the scalar source
// (WIDTH 1) reads both.
#ifndef GQ_SOURCES_CUH
#define GQ_SOURCES_CUH

#include <cstdint>

namespace gq {

template <class T, bool VECTOR> struct VecOf {
  using type = T;
  static constexpr int WIDTH = 1;
};
template <> struct VecOf<double, true> {
  using type = double2;
  static constexpr int WIDTH = 2;
};
template <> struct VecOf<float, true> {
  using type = float4;
  static constexpr int WIDTH = 4;
};

// Element j of a loaded vector, widened to double (j is a constant after
// unrolling, so this is a register pick).
__device__ __forceinline__ double lane(double v, int) { return v; }
__device__ __forceinline__ double lane(float v, int) { return (double)v; }
__device__ __forceinline__ double lane(double2 v, int j) { return j == 0 ? v.x : v.y; }
__device__ __forceinline__ double lane(float4 v, int j)
{
  return (double)(j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w);
}

template <class T, int ARRAYS, bool VECTOR>
struct ArraySource {
  using V = typename VecOf<T, VECTOR>::type;
  static constexpr int WIDTH = VecOf<T, VECTOR>::WIDTH;
  const T *a, *b;       // b unused when ARRAYS == 1
  uint64_t n;
  int head;             // scalar elements before the first aligned vector

  __host__ __device__ uint64_t vectors() const { return (n - (uint64_t)head) / WIDTH; }
  __host__ __device__ uint64_t tail_begin() const { return (uint64_t)head + vectors() * WIDTH; }

  __device__ __forceinline__ V load_a(uint64_t v) const { return __ldg(reinterpret_cast<const V *>(a + head) + v); }
  __device__ __forceinline__ V load_b(uint64_t v) const
  {
    return ARRAYS == 2 ? __ldg(reinterpret_cast<const V *>(b + head) + v) : V();
  }
  __device__ __forceinline__ double elem_a(uint64_t i) const { return (double)__ldg(a + i); }
  __device__ __forceinline__ double elem_b(uint64_t i) const { return ARRAYS == 2 ? (double)__ldg(b + i) : 0.0; }
};

// Scalar elements before the first 16-byte boundary (pointers are aligned to
// their element size).
template <class T>
inline int misaligned_head(const T *p, uint64_t n)
{
  const uintptr_t mis = reinterpret_cast<uintptr_t>(p) % 16;
  const uint64_t head = mis ? (16 - mis) / sizeof(T) : 0;
  return (int)(head < n ? head : n);
}

} // namespace gq
#endif
