// block_reduce.cuh — block-level reduction: shuffles inside each warp, the
// warp partials through shared memory, then one more warp shuffle in warp 0.
#ifndef GQ_BLOCK_REDUCE_CUH
#define GQ_BLOCK_REDUCE_CUH

#include "warp_reduce.cuh"

namespace gq {

// Result in threads 0..KEYS-1 of the block (thread k: the reduction over the
// threads whose index is congruent to k modulo KEYS).  Every thread of the
// block must call it; it uses one __syncthreads (none for a one-warp block)
// and may be called once per kernel (the shared array is not guarded against
// reuse).  The second level folds only the WARPS * KEYS warp partials: with
// 8 warps that is 3 shuffle levels instead of 5, each a dependent merge on
// the path from the last warp's partial to the block's total.  The merge
// order (bench/host_merge.cuh's host_last_block_merge replays it) is: lane l+d
// into lane l for d = 16, ..., KEYS within each warp, then the same over the
// warp partials from d = WARPS * KEYS / 2.
template <int BLOCK, int KEYS = 1, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity)
{
  constexpr int WARPS = BLOCK / 32;
  static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of the warp size");
  static_assert((WARPS & (WARPS - 1)) == 0, "BLOCK / 32 must be a power of two");
  static_assert(WARPS * KEYS <= 32, "the warp partials must fit one warp");
  v = warp_reduce_down<KEYS>(v, op);
  if constexpr (WARPS > 1) {
    __shared__ T partial[WARPS * KEYS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane < KEYS)
      partial[warp * KEYS + lane] = v; // key of partial[j] is j % KEYS
    __syncthreads();
    if (warp == 0) {
      v = lane < WARPS * KEYS ? partial[lane] : identity;
      v = warp_reduce_down<KEYS, (WARPS * KEYS) / 2>(v, op);
    }
  }
  return v;
}

} // namespace gq
#endif
