// grid_levels.cuh — the grid level of the engine: what a block does with
// its total (valid in thread 0 after block_reduce).  Three named variants,
// side by side, picked per problem by the host (kernels/*.cu) from the
// policy (policy.cuh):
//
//   Atomic             compensated atomic adds into out[key] (gq_csum only);
//                      needs out zeroed before the launch.  The grid sums.
//   LastBlock          each block stores its partial, fences (release) and
//                      takes a ticket; the last block fences (acquire),
//                      merges every partial in fixed block order and
//                      finishes.  Any accumulator; nothing to zero, the
//                      counter wraps back to 0 by itself; bitwise
//                      reproducible for a given grid (the fixed-order level a
//                      deterministic mode builds on).
//   PoisonedLastBlock  the same merge without fences, against a scratch that
//                      holds a poison between launches: partials made of
//                      doubles only (the lite accumulators).
//
// Why last blocks at all: a Chan merge or a (value, index) minimum cannot be
// one atomic operation, and the compensated atomic add needs its target
// zeroed before every launch — a memset launch that costs as much as a whole
// 2^10-element reduction.  The cost of a last block is one partial per block
// read by one block: ~1000 partials of <= 136 bytes from L2, a few
// microseconds at most.
//
// Every header of the engine compiles under nvcc and NVRTC (no standard
// headers here).
#ifndef GQ_GRID_LEVELS_CUH
#define GQ_GRID_LEVELS_CUH

#include "block_reduce.cuh"
#include "../../src/lib/poison.h"

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

// The merged total where the caller wants it: finished, or as it is.
template <class Acc, class Op>
__device__ __forceinline__ void finish_result(const Acc &v, Acc *result, void *finished, Completion completion,
                                              unsigned long long count)
{
  if (finished) // the finished value is all the caller reads
    Op::finish(v, finished, count);
  else
    *result = v;
  completion.signal();
}

// The two ways a block hands its partial over: Protocol::put stores it and
// takes the ticket (true in the last block), Protocol::take reads one back
// in the last block.
//
// Fenced: any accumulator.  The partial is stored, a release fence makes it
// visible device-wide before the ticket that announces it, and the last
// block fences (acquire) before reading the partials through L2.
struct Fenced {
  static constexpr bool POISONED = false;
  template <class T> __device__ __forceinline__ static bool put(T *slot, const T &v, unsigned *counter)
  {
    *slot = v;
    fence_acq_rel_gpu();
    const bool last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
    if (last)
      fence_acq_rel_gpu();
    return last;
  }
  template <class T> __device__ __forceinline__ static T take(T *p) { return load_cg(p); }
};

// Poisoned: partials made of doubles (the lite accumulators), in a scratch
// that holds GQ_POISON (poison.h) between launches.  A block stores its
// partial and takes its ticket at once, both relaxed at GPU scope — no
// release fence waiting for the store to reach L2 before the ticket goes
// out; the last block reads every word until it no longer holds the poison
// (each word is written once per launch, in one 8-byte store, so a word
// without the poison is this launch's), then puts the poison back for the
// next launch.  At 2^20 the dot's kernel is 0.5 us shorter than with the
// fences (bench/bench_grid.cu).  Whoever allocates the scratch poisons it
// once (device.cu).
__device__ __forceinline__ void st_relaxed_gpu(unsigned long long *p, unsigned long long v)
{
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ld_relaxed_gpu(const unsigned long long *p)
{
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

struct Poisoned {
  static constexpr bool POISONED = true;
  template <class T> __device__ __forceinline__ static bool put(T *slot, const T &v, unsigned *counter)
  {
    static_assert(sizeof(T) % 8 == 0, "poisoned partials are made of 8-byte words");
    const unsigned long long *w = reinterpret_cast<const unsigned long long *>(&v);
#pragma unroll
    for (int k = 0; k < (int)(sizeof(T) / 8); k++)
      st_relaxed_gpu(reinterpret_cast<unsigned long long *>(slot) + k, w[k]);
    return atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  template <class T> __device__ __forceinline__ static T take(T *p)
  {
    constexpr int K = sizeof(T) / 8;
    unsigned long long *w = reinterpret_cast<unsigned long long *>(p);
    T t;
    unsigned long long *v = reinterpret_cast<unsigned long long *>(&t);
#pragma unroll
    for (int k = 0; k < K; k++) // every load issued before any is waited for
      v[k] = ld_relaxed_gpu(w + k);
#pragma unroll
    for (int k = 0; k < K; k++)
      while (v[k] == GQ_POISON)
        v[k] = ld_relaxed_gpu(w + k);
#pragma unroll
    for (int k = 0; k < K; k++)
      st_relaxed_gpu(w + k, GQ_POISON);
    return t;
  }
};

// The last block's merge: thread t folds partials t, t + BLOCK, ... (the
// first taken as it is); then the block tree.  bench/host_merge.cuh
// replays this order.  A one-block grid's total is the result, no ticket.
// tree.result turns the merged partial into the Result that Tree::Finish
// finishes (the identity but for the statistics' fast pass, whose partials
// are lighter than its result: accumulators.cuh, StatsLite).
template <int BLOCK, class Protocol, class Tree>
__device__ __forceinline__ void last_block_merge(typename Tree::Partial block_total,
                                                 typename Tree::Partial *scratch, unsigned *counter,
                                                 typename Tree::Result *result, const Tree &tree, void *finished,
                                                 Completion completion, unsigned long long count)
{
  using Combine = typename Tree::Combine;
  using Finish = typename Tree::Finish;
  using Result = typename Tree::Result;
  if (gridDim.x == 1) {
    if (threadIdx.x == 0)
      finish_result<Result, Finish>(tree.result(block_total), result, finished, completion, count);
    return;
  }
  __shared__ bool am_last;
  if (threadIdx.x == 0)
    am_last = Protocol::put(scratch + blockIdx.x, block_total, counter);
  __syncthreads(); // also separates the two uses of block_reduce's shared array
  if (!am_last)
    return;
  const Combine op;
  typename Tree::Partial v = threadIdx.x < gridDim.x ? Protocol::take(scratch + threadIdx.x) : Combine::identity();
  for (unsigned i = threadIdx.x + BLOCK; i < gridDim.x; i += BLOCK)
    v = op(v, Protocol::take(scratch + i));
  v = block_reduce<BLOCK>(v, op, Combine::identity());
  if (threadIdx.x == 0)
    finish_result<Result, Finish>(tree.result(v), result, finished, completion, count);
}

// Where a last-block level leaves its result: the partials' scratch (one
// per block), the ticket counter (0 between launches), the result (the
// merged accumulator), or the finished value instead when `finished` is not
// NULL, and the completion ticket.  Untyped, so that host code builds it
// without naming the accumulator.
struct LastBlockTarget {
  void *scratch;
  unsigned *counter;
  void *result;
  void *finished;
  Completion completion;
};

// The grid levels: Level::finish<BLOCK, KEYS>(block total, target, tree,
// count), called by every thread of the block with the block's total in
// threads 0..KEYS-1.
template <class Protocol> struct LastBlockBy {
  using Target = LastBlockTarget;
  static constexpr bool POISONED = Protocol::POISONED;
  template <int BLOCK, int KEYS, class Tree>
  __device__ __forceinline__ static void finish(typename Tree::Partial total, const Target &t, const Tree &tree,
                                                unsigned long long count)
  {
    static_assert(KEYS == 1, "a last-block level merges one total per block");
    last_block_merge<BLOCK, Protocol>(total, static_cast<typename Tree::Partial *>(t.scratch), t.counter,
                                      static_cast<typename Tree::Result *>(t.result), tree, t.finished,
                                      t.completion, count);
  }
};
using LastBlock = LastBlockBy<Fenced>;
using PoisonedLastBlock = LastBlockBy<Poisoned>;

// Compensated atomic add.  atomicAdd on a double is an IEEE round-to-nearest
// addition that returns the old total, so TwoSum(old, v.s) recovers exactly
// the rounding error the hardware made; that error and v.c go to out->c.
// The total out->s + out->c then carries every block's compensation: blocks
// arriving in any order give the same value to within rounding of out->c.
__device__ __forceinline__ void atomic_add(gq_csum *out, gq_csum v)
{
  const double old = atomicAdd(&out->s, v.s);
  double err;
  gq_two_sum(old, v.s, &err);
  atomicAdd(&out->c, err + v.c);
}

struct AtomicTarget {
  gq_csum *sums; // KEYS sums, zeroed before the launch
};
struct Atomic {
  using Target = AtomicTarget;
  static constexpr bool POISONED = false;
  template <int BLOCK, int KEYS, class Tree>
  __device__ __forceinline__ static void finish(gq_csum total, const Target &t, const Tree &, unsigned long long)
  {
    if (threadIdx.x < KEYS)
      atomic_add(&t.sums[threadIdx.x], total);
  }
};

} // namespace gq
#endif
