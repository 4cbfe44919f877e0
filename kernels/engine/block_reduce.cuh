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
// the path from the last warp's partial to the block's total.  Up to 64
// partials (16 warps of a rule's 4 index classes, grid.cuh) fit: warp 0
// first merges partial[lane + 32] into partial[lane], the same key because
// 32 % KEYS == 0.  The merge order (bench/host_merge.cuh's
// host_last_block_merge replays it for KEYS 1) is: lane l+d into lane l for
// d = 16, ..., KEYS within each warp, then partial l+32 into partial l where
// there are more than 32, then the same shuffles over the (at most 32)
// partials from d = min(WARPS * KEYS, 32) / 2.
template <int BLOCK, int KEYS = 1, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity)
{
  constexpr int WARPS = BLOCK / 32;
  constexpr int PARTIALS = WARPS * KEYS;
  constexpr int FOLDED = PARTIALS > 32 ? 32 : PARTIALS;
  static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of the warp size");
  static_assert((WARPS & (WARPS - 1)) == 0, "BLOCK / 32 must be a power of two");
  static_assert(PARTIALS <= 64, "the warp partials must fold into one warp in one step");
  v = warp_reduce_down<KEYS>(v, op);
  if constexpr (WARPS > 1) {
    __shared__ T partial[PARTIALS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane < KEYS)
      partial[warp * KEYS + lane] = v; // key of partial[j] is j % KEYS
    __syncthreads();
    if (warp == 0) {
      v = lane < PARTIALS ? partial[lane] : identity;
      if constexpr (PARTIALS > 32)
        v = op(v, partial[lane + 32]);
      v = warp_reduce_down<KEYS, FOLDED / 2>(v, op);
    }
  }
  return v;
}

} // namespace gq
#endif
