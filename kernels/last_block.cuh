// last_block.cuh — the grid level for accumulators that have no native
// atomic (moments, min/max with index, counts — and the compensated sums of
// the data reductions, so one path serves them all):
//
//   every block writes its partial to scratch[blockIdx.x], fences (release:
//   the partial is visible device-wide before the ticket that announces
//   it), and takes a ticket with atomicInc; the block holding the last
//   ticket fences (acquire), merges all partials in fixed block order and
//   writes the result.
//
// Why not atomics: a Chan merge or an (value, index) minimum cannot be one
// atomic operation, and the compensated atomic add (global_accumulate.cuh)
// needs its accumulator zeroed before every launch — a memset launch that
// costs as much as a whole 2^10-element reduction.  Here nothing needs
// zeroing: partials are overwritten, and atomicInc(counter, gridDim.x - 1)
// wraps the counter back to 0 on the last ticket, ready for the next launch.
// The fixed merge order also makes the result bitwise reproducible for a
// given grid.  The cost is one partial per block read by one block: ~1000
// partials of <= 136 bytes from L2, a few microseconds at most.
#ifndef GQ_LAST_BLOCK_CUH
#define GQ_LAST_BLOCK_CUH

#include "block_reduce.cuh"

namespace gq {

// A partial written by another block, read through L2 (never a stale L1 line).
template <class T>
__device__ __forceinline__ T load_cg(const T *p)
{
  static_assert(sizeof(T) % 8 == 0, "partials are made of 8-byte words");
  T v;
  const unsigned long long *src = reinterpret_cast<const unsigned long long *>(p);
  unsigned long long *dst = reinterpret_cast<unsigned long long *>(&v);
#pragma unroll
  for (int k = 0; k < (int)(sizeof(T) / 8); k++)
    dst[k] = __ldcg(src + k);
  return v;
}

// block_total is valid in thread 0; every thread of the block calls this.
// When finished is not NULL the last block also writes Op::finish(result,
// count) there: the finished value (a double, an rms result; count is the
// number of elements) in the caller's device memory or in mapped host
// memory.  When done is not NULL (mapped host memory), the ticket after
// *seq is written there after everything else, with a system-wide fence
// between: the host sees the result as soon as the flag, without waiting for
// the stream to drain.  The ticket is counted on the device (seq), so a
// launch's arguments are the same from call to call and its graph can be
// replayed (launch_cache.cu).
struct Completion {
  unsigned long long *done;
  unsigned long long *seq;
  __device__ __forceinline__ void signal() const
  {
    if (done) {
      const unsigned long long ticket = *seq + 1;
      *seq = ticket;
      __threadfence_system();
      *reinterpret_cast<volatile unsigned long long *>(done) = ticket;
    }
  }
};

// Release (before the ticket) and acquire (after the last one) at GPU scope:
// what the message passing of partials needs, and lighter than
// __threadfence()'s sequentially consistent fence (MEMBAR.SC.GPU), which
// sits on the path from the last block's end to the result.
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

template <int BLOCK, class Acc, class Op>
__device__ __forceinline__ void last_block_merge(Acc block_total, Acc *scratch, unsigned *counter,
                                                 Acc *result, Op op, Acc identity, void *finished = nullptr,
                                                 Completion completion = Completion{nullptr, nullptr},
                                                 unsigned long long count = 0)
{
  if (gridDim.x == 1) { // one block: its total is the result, no ticket needed
    if (threadIdx.x == 0) {
      if (finished) // the finished value is all the caller reads
        Op::finish(block_total, finished, count);
      else
        *result = block_total;
      completion.signal();
    }
    return;
  }
  __shared__ bool am_last;
  if (threadIdx.x == 0) {
    scratch[blockIdx.x] = block_total;
    fence_acq_rel_gpu();
    am_last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
    if (am_last)
      fence_acq_rel_gpu();
  }
  __syncthreads();
  if (!am_last)
    return;
  // Thread t folds partials t, t + BLOCK, ... (the first taken as it is);
  // then the block tree.  host_last_block_merge replays this order.
  Acc v = threadIdx.x < gridDim.x ? load_cg(scratch + threadIdx.x) : identity;
  for (unsigned i = threadIdx.x + BLOCK; i < gridDim.x; i += BLOCK)
    v = op(v, load_cg(scratch + i));
  v = block_reduce<BLOCK>(v, op, identity);
  if (threadIdx.x == 0) {
    if (finished)
      Op::finish(v, finished, count);
    else
      *result = v;
    completion.signal();
  }
}

// The same merge on the host, for grids whose blocks left their partials in
// mapped host memory (array_reduce_kernel's BLOCK_PARTIALS): the last
// block's order replayed operation for operation — thread t folds partials
// t, t + BLOCK, ..., each warp folds lane l + d into lane l for d = 16, 8,
// ..., 1, then warp 0 does the same over the warp totals from d = WARPS / 2
// (block_reduce) — so the result has the device merge's bits (the host's
// IEEE additions are the device's; the merges have no products to contract).
// A one-block grid's total is the result as it stands, as on the device.
// Warps whose lanes all hold the identity fold to the identity exactly, so
// they are skipped: P partials cost P - 1 merges plus the identities that
// fill the last warp.
template <int BLOCK, class Acc, class Op>
Acc host_last_block_merge(const Acc *partials, unsigned grid, Op op, Acc identity)
{
  constexpr int WARPS = BLOCK / 32;
  static_assert(BLOCK % 32 == 0 && (WARPS & (WARPS - 1)) == 0, "block_reduce's shapes");
  if (grid == 1)
    return partials[0];
  Acc warp_total[WARPS];
  for (int w = 0; w < WARPS; w++) {
    warp_total[w] = identity;
    if ((unsigned)w * 32 >= grid)
      continue;
    Acc lane[32];
    for (int l = 0; l < 32; l++) {
      const unsigned t = (unsigned)(w * 32 + l);
      Acc v = t < grid ? partials[t] : identity;
      for (unsigned i = t + BLOCK; i < grid; i += BLOCK)
        v = op(v, partials[i]);
      lane[l] = v;
    }
    for (int d = 16; d >= 1; d >>= 1)
      for (int l = 0; l < d; l++)
        lane[l] = op(lane[l], lane[l + d]);
    warp_total[w] = lane[0];
  }
  for (int d = WARPS / 2; d >= 1; d >>= 1)
    for (int l = 0; l < d; l++)
      warp_total[l] = op(warp_total[l], warp_total[l + d]);
  return warp_total[0];
}

} // namespace gq
#endif
