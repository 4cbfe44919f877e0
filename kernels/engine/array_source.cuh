// array_source.cuh — where the values come from: one or two arrays of double or
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

// Items are vectors (WIDTH elements of each array); element indices (for
// min/max and the first NaN) are 64-bit and absolute within the arrays.  The
// misaligned head goes to block 0, the scalar tail to the last block.
template <class T, int ARRAYS, bool VECTOR>
struct ArraySource {
  using V = typename VecOf<T, VECTOR>::type;
  static constexpr int WIDTH = VecOf<T, VECTOR>::WIDTH;
  struct Item {
    V a, b;
  };
  using Cursor = uint64_t; // a vector's index
  const T *a, *b;       // b unused when ARRAYS == 1
  uint64_t n;
  int head_len;         // scalar elements before the first aligned vector

  __host__ __device__ uint64_t vectors() const { return (n - (uint64_t)head_len) / WIDTH; }
  __host__ __device__ uint64_t tail_begin() const { return (uint64_t)head_len + vectors() * WIDTH; }
  __device__ __forceinline__ uint64_t items() const { return vectors(); }
  __device__ __forceinline__ uint64_t whole_items() const { return vectors(); }
  __device__ __forceinline__ uint64_t count() const { return n; }
  __device__ __forceinline__ Cursor cursor(uint64_t i) const { return i; }
  __device__ __forceinline__ Cursor stride(uint64_t s) const { return s; }
  __device__ __forceinline__ int lanes(Cursor, int) const { return WIDTH; }

  __device__ __forceinline__ V load_a(uint64_t v) const { return __ldg(reinterpret_cast<const V *>(a + head_len) + v); }
  __device__ __forceinline__ V load_b(uint64_t v) const
  {
    return ARRAYS == 2 ? __ldg(reinterpret_cast<const V *>(b + head_len) + v) : V();
  }
  __device__ __forceinline__ double elem_a(uint64_t i) const { return (double)__ldg(a + i); }
  __device__ __forceinline__ double elem_b(uint64_t i) const { return ARRAYS == 2 ? (double)__ldg(b + i) : 0.0; }
  __device__ __forceinline__ Item load(Cursor c, int k) const { return Item{load_a(c + k), load_b(c + k)}; }

  template <bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void feed(const Item &it, Cursor c, int k, const Map &map, Thread &th, int slot, int) const
  {
    const uint64_t first = (uint64_t)head_len + (c + k) * WIDTH;
#pragma unroll
    for (int j = 0; j < WIDTH; j++)
      th.template add<CLASSIFY>(map(lane(it.a, j), lane(it.b, j)), first + j, slot + j);
  }
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void head(const Map &map, Thread &th) const
  {
    if (blockIdx.x == 0 && threadIdx.x < (unsigned)head_len) {
      const uint64_t i = threadIdx.x;
      th.template add<CLASSIFY>(map(elem_a(i), elem_b(i)), i, 0);
      th.template close<1>();
    }
  }
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void tail(const Map &map, Thread &th) const
  {
    if (blockIdx.x == gridDim.x - 1) {
      const uint64_t i = tail_begin() + threadIdx.x;
      if (i < n) {
        th.template add<CLASSIFY>(map(elem_a(i), elem_b(i)), i, 0);
        th.template close<1>();
      }
    }
  }
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
