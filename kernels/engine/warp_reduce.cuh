// warp_reduce.cuh — warp-level reductions through register shuffles.
//
// Two shapes, side by side: shfl_down folds the upper half of the lanes onto
// the lower half (the result lands in the low lanes), shfl_xor is the
// butterfly (every lane ends with the result).  KEYS > 1 reduces lanes that
// are congruent modulo KEYS separately: lane k < KEYS ends with the reduction
// of lanes k, k+KEYS, k+2*KEYS, ... (used to split sums by index class, grid.cuh).
#ifndef GQ_WARP_REDUCE_CUH
#define GQ_WARP_REDUCE_CUH

#include "../../src/lib/compensated.h"

namespace gq {

constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ __forceinline__ double shfl_down(double v, int d) { return __shfl_down_sync(FULL_MASK, v, d); }
__device__ __forceinline__ float shfl_down(float v, int d) { return __shfl_down_sync(FULL_MASK, v, d); }
__device__ __forceinline__ int shfl_down(int v, int d) { return __shfl_down_sync(FULL_MASK, v, d); }
__device__ __forceinline__ long long shfl_down(long long v, int d) { return __shfl_down_sync(FULL_MASK, v, d); }

__device__ __forceinline__ double shfl_xor(double v, int m) { return __shfl_xor_sync(FULL_MASK, v, m); }
__device__ __forceinline__ float shfl_xor(float v, int m) { return __shfl_xor_sync(FULL_MASK, v, m); }
__device__ __forceinline__ int shfl_xor(int v, int m) { return __shfl_xor_sync(FULL_MASK, v, m); }
__device__ __forceinline__ long long shfl_xor(long long v, int m) { return __shfl_xor_sync(FULL_MASK, v, m); }
// Any other trivially copyable value (gq_csum, the data reductions'
// accumulators), shuffled one 32-bit word at a time.
template <class T, class Shuffle> __device__ __forceinline__ T shfl_words(T v, Shuffle shuffle)
{
  static_assert(sizeof(T) % 4 == 0, "shuffled structs are made of 32-bit words");
  T r;
  const int *src = reinterpret_cast<const int *>(&v);
  int *dst = reinterpret_cast<int *>(&r);
#pragma unroll
  for (int k = 0; k < (int)(sizeof(T) / 4); k++)
    dst[k] = shuffle(src[k]);
  return r;
}
template <class T> __device__ __forceinline__ T shfl_down(T v, int d)
{
  return shfl_words(v, [d](int w) { return __shfl_down_sync(FULL_MASK, w, d); });
}
template <class T> __device__ __forceinline__ T shfl_xor(T v, int m)
{
  return shfl_words(v, [m](int w) { return __shfl_xor_sync(FULL_MASK, w, m); });
}

// Combine operators.
struct Plus {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct CsumMerge { // also run on the host (bench/host_merge.cuh)
  __host__ __device__ __forceinline__ gq_csum operator()(gq_csum a, gq_csum b) const
  {
    gq_csum_merge(&a, b);
    return a;
  }
};

// Result in lanes 0..KEYS-1.  KEYS is a power of two <= 16; all 32 lanes take
// part.  FIRST < 16 folds only lanes 0..2*FIRST-1 (the levels above it would
// merge lanes that hold nothing).
template <int KEYS = 1, int FIRST = 16, class T, class Op>
__device__ __forceinline__ T warp_reduce_down(T v, Op op)
{
  static_assert(KEYS >= 1 && KEYS <= 16 && (KEYS & (KEYS - 1)) == 0, "KEYS must be a power of two <= 16");
  static_assert(FIRST <= 16 && (FIRST & (FIRST - 1)) == 0, "FIRST must be a power of two <= 16");
#pragma unroll
  for (int d = FIRST; d >= KEYS; d >>= 1)
    v = op(v, shfl_down(v, d));
  return v;
}

// Result in every lane (butterfly).
template <int KEYS = 1, class T, class Op>
__device__ __forceinline__ T warp_reduce_xor(T v, Op op)
{
  static_assert(KEYS >= 1 && KEYS <= 16 && (KEYS & (KEYS - 1)) == 0, "KEYS must be a power of two <= 16");
#pragma unroll
  for (int m = 16; m >= KEYS; m >>= 1)
    v = op(v, shfl_xor(v, m));
  return v;
}

} // namespace gq
#endif
