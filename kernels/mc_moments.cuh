// mc_moments.cuh — the Monte Carlo accumulator on the device: shifted sums
// (src/lib/mc_moments.h) through the warp and block trees, and the grid-level
// last-block merge.
#ifndef GQ_MC_MOMENTS_CUH
#define GQ_MC_MOMENTS_CUH

#include "block_reduce.cuh"
#include "../src/lib/mc_moments.h"

// Shuffles of the state.  They live in the global namespace, next to
// gq_mc_moments, so that warp_reduce.cuh's templates find them by
// argument-dependent lookup without that header knowing this type.
__device__ __forceinline__ gq_mc_moments shfl_down(gq_mc_moments v, int d)
{
  return gq_mc_moments{gq::shfl_down(v.s1, d), gq::shfl_down(v.s2, d)};
}
__device__ __forceinline__ gq_mc_moments shfl_xor(gq_mc_moments v, int m)
{
  return gq_mc_moments{gq::shfl_xor(v.s1, m), gq::shfl_xor(v.s2, m)};
}

namespace gq {

// With a common shift, Chan's merge of (n, mean, M2) is the sum of the
// shifted sums (mc_moments.h): compensated additions, no division.
struct MomentsMerge {
  __device__ __forceinline__ gq_mc_moments operator()(gq_mc_moments a, gq_mc_moments b) const
  {
    gq_mc_moments_merge(&a, b);
    return a;
  }
};

__device__ __forceinline__ gq_mc_moments load_cg(const gq_mc_moments *p)
{
  // L2, not L1: the partials were written by other multiprocessors
  return gq_mc_moments{{__ldcg(&p->s1.s), __ldcg(&p->s1.c)}, {__ldcg(&p->s2.s), __ldcg(&p->s2.c)}};
}

// The grid level: a last-block merge rather than atomics.  Each block stores
// its partial in partials[blockIdx.x]; the block that arrives last (a ticket
// counter) merges them in block order with a fixed tree.  The compensated
// atomics of global_accumulate.cuh would also be correct, but the order in
// which blocks arrive would leak into the last bits of the result; here it
// cannot, so the same seed, n and device give the same bits every run.  The
// fence makes each partial visible device-wide before its ticket is taken
// (the threadFenceReduction pattern of the CUDA samples).  The last block
// resets the ticket, so the next launch finds it at 0.
//
// Every thread of the block calls it with the block's result of
// block_reduce in thread 0; *out is written by thread 0 of the last block.
template <int BLOCK>
__device__ __forceinline__ void last_block_merge(gq_mc_moments block_total, gq_mc_moments *partials,
                                                 unsigned int *ticket, gq_mc_moments *out)
{
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    __threadfence();
    is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads(); // also separates the two uses of block_reduce's shared array
  if (!is_last)
    return;
  __threadfence();
  gq_mc_moments acc = gq_mc_moments_zero();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK)
    gq_mc_moments_merge(&acc, load_cg(&partials[b]));
  acc = block_reduce<BLOCK>(acc, MomentsMerge(), gq_mc_moments_zero());
  if (threadIdx.x == 0) {
    *out = acc;
    *ticket = 0;
  }
}

} // namespace gq
#endif
