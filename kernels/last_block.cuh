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
// partials of <= 136 bytes from L2, a few microseconds at most.  The lite
// accumulators skip the fences (poisoned_last_block_merge, below).
#ifndef GQ_LAST_BLOCK_CUH
#define GQ_LAST_BLOCK_CUH

#include <cstring>

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
// that holds the poison (POISON_WORD, a signalling NaN that no arithmetic
// makes) between launches.  A block stores its partial and takes its ticket
// at once, both relaxed at GPU scope — no release fence waiting for the
// store to reach L2 before the ticket goes out; the last block reads every
// word until it no longer holds the poison (each word is written once per
// launch, in one 8-byte store, so a word without the poison is this
// launch's), then puts the poison back for the next launch.  At 2^20 the
// dot's kernel is 0.5 us shorter than with the fences (bench/bench_grid.cu).
// Whoever allocates the scratch poisons it once.
constexpr unsigned long long POISON_WORD = GQ_POISON; // compensated.h

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
  template <class T> __device__ __forceinline__ static bool put(T *slot, const T &v, unsigned *counter)
  {
    static_assert(sizeof(T) % 8 == 0, "poisoned partials are made of 8-byte words");
    unsigned long long w[sizeof(T) / 8];
    memcpy(w, &v, sizeof w);
#pragma unroll
    for (int k = 0; k < (int)(sizeof(T) / 8); k++)
      st_relaxed_gpu(reinterpret_cast<unsigned long long *>(slot) + k, w[k]);
    return atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  template <class T> __device__ __forceinline__ static T take(T *p)
  {
    constexpr int K = sizeof(T) / 8;
    unsigned long long *w = reinterpret_cast<unsigned long long *>(p), v[K];
#pragma unroll
    for (int k = 0; k < K; k++) // every load issued before any is waited for
      v[k] = ld_relaxed_gpu(w + k);
#pragma unroll
    for (int k = 0; k < K; k++)
      while (v[k] == POISON_WORD)
        v[k] = ld_relaxed_gpu(w + k);
#pragma unroll
    for (int k = 0; k < K; k++)
      st_relaxed_gpu(w + k, POISON_WORD);
    T t;
    memcpy(&t, v, sizeof t);
    return t;
  }
};

// The total as the result: what every grid level does but the statistics'
// fast pass, whose partials are lighter than its result (StatsLite).
struct AsIs {
  template <class T> __device__ __forceinline__ const T &operator()(const T &v) const { return v; }
};

// The last block's merge: thread t folds partials t, t + BLOCK, ... (the
// first taken as it is); then the block tree.  bench/host_merge.cuh
// replays this order.  A one-block grid's total is the result, no ticket.
// to_result turns the merged partial into the Result that FinishOp finishes.
template <int BLOCK, class Protocol, class Acc, class Op, class Result = Acc, class FinishOp = Op,
          class ToResult = AsIs>
__device__ __forceinline__ void last_block_merge_by(Acc block_total, Acc *scratch, unsigned *counter,
                                                    Result *result, Op op, Acc identity, void *finished,
                                                    Completion completion, unsigned long long count,
                                                    ToResult to_result = ToResult())
{
  if (gridDim.x == 1) {
    if (threadIdx.x == 0)
      finish_result<Result, FinishOp>(to_result(block_total), result, finished, completion, count);
    return;
  }
  __shared__ bool am_last;
  if (threadIdx.x == 0)
    am_last = Protocol::put(scratch + blockIdx.x, block_total, counter);
  __syncthreads();
  if (!am_last)
    return;
  Acc v = threadIdx.x < gridDim.x ? Protocol::take(scratch + threadIdx.x) : identity;
  for (unsigned i = threadIdx.x + BLOCK; i < gridDim.x; i += BLOCK)
    v = op(v, Protocol::take(scratch + i));
  v = block_reduce<BLOCK>(v, op, identity);
  if (threadIdx.x == 0)
    finish_result<Result, FinishOp>(to_result(v), result, finished, completion, count);
}

template <int BLOCK, class Acc, class Op>
__device__ __forceinline__ void last_block_merge(Acc block_total, Acc *scratch, unsigned *counter,
                                                 Acc *result, Op op, Acc identity, void *finished = nullptr,
                                                 Completion completion = Completion{nullptr, nullptr},
                                                 unsigned long long count = 0)
{
  last_block_merge_by<BLOCK, Fenced>(block_total, scratch, counter, result, op, identity, finished, completion, count);
}

template <int BLOCK, class Acc, class Op>
__device__ __forceinline__ void poisoned_last_block_merge(Acc block_total, Acc *scratch, unsigned *counter,
                                                          Acc *result, Op op, Acc identity, void *finished,
                                                          Completion completion, unsigned long long count)
{
  last_block_merge_by<BLOCK, Poisoned>(block_total, scratch, counter, result, op, identity, finished, completion,
                                       count);
}

// Grid levels, array_reduce_kernel's last template argument: what a block
// does with its total (valid in thread 0; every thread calls finish).
struct LastBlock { // the last block merges and finishes (above)
  static constexpr bool POISONED = false;
  template <int BLOCK, class Op, class Acc>
  __device__ __forceinline__ static void finish(Acc total, Acc *scratch, unsigned *counter, Acc *result,
                                                void *finished, Completion completion, unsigned long long count)
  {
    last_block_merge<BLOCK>(total, scratch, counter, result, Op(), Op::identity(), finished, completion, count);
  }
};
struct PoisonedLastBlock { // the last block without fences (above): scratch poisoned
  static constexpr bool POISONED = true;
  template <int BLOCK, class Op, class Acc>
  __device__ __forceinline__ static void finish(Acc total, Acc *scratch, unsigned *counter, Acc *result,
                                                void *finished, Completion completion, unsigned long long count)
  {
    poisoned_last_block_merge<BLOCK>(total, scratch, counter, result, Op(), Op::identity(), finished, completion,
                                     count);
  }
};

} // namespace gq
#endif
