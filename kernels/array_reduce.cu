// array_reduce.cu — sum, dot, rms of a difference and statistics of device
// arrays through the reduction engine (array_reduce_kernel.cuh's
// array_reduce_kernel): one launch per call (through launch_cache.cu, so a
// repeated call replays a graph), the result where the caller needs it:
//
//   one-shot sum, dot and rms (gq_cuda_array_finish): the lite accumulator,
//     merged by the last block without fences (PoisonedLastBlock,
//     last_block.cuh) and finished into mapped host memory, which the host
//     spins on;
//   asynchronous forms (gq_cuda_array_async): the same kernel finished into
//     the caller's device memory, nothing waited for — the same grid and
//     merge order, so the same bits;
//   the full accumulator (gq_cuda_array_reduce: accumulate calls, stats, the
//     classifying rerun after a NaN or Inf): into mapped host memory, then a
//     ticket the host spins on — or, timed, into a device slot and copied;
//   streamed chunks (gq_cuda_array_enqueue, from stream.cu): the full
//     accumulator into device slot 0 or 1.
#include <cstdint>
#include <atomic>
#include <cstring>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "launch.cuh"
#include "launch_cache.cuh"
#include "policy.cuh"
#include "array_reduce.cuh"
#include "array_reduce_kernel.cuh"
#include "../src/lib/reduce_acc.h"

namespace {

// Where a launch leaves its result.
struct Target {
  void *result;               // the accumulator (device slot or mapped host memory)
  void *finished;             // the finished value (lite accumulators), or nullptr
  gq::Completion completion;  // the ticket raised after the result, or {nullptr, nullptr}
};

template <class Policy, bool CLASSIFY, class Grid, class Source, class Map, class Thread>
int enqueue(gq_cuda_state *st, Source src, cudaStream_t stream, const Target &target)
{
  using Acc = typename gq::CombineOf<Thread>::acc;
  // The launch bound is the fast pass's: the classifying rerun (rare, and
  // built on reduce_acc.h's scaled adds) would spill under it.
  constexpr int MIN_BLOCKS = CLASSIFY ? 1 : Policy::MIN_BLOCKS;
  auto kernel = gq::array_reduce_kernel<Policy::BLOCK, Policy::ITEMS, MIN_BLOCKS, CLASSIFY, Source, Map, Thread, Grid>;
  // The grid is sized from the kernel SizedAs names (accumulators.cuh): the
  // one-shot rms as its asynchronous form, so both have the same grid.
  auto sizing = gq::array_reduce_kernel<Policy::BLOCK, Policy::ITEMS, MIN_BLOCKS, CLASSIFY, Source, Map,
                                        typename gq::SizedAs<Thread>::type, Grid>;
  const long long tile = (long long)Policy::BLOCK * Policy::ITEMS;
  const long long tiles = ((long long)src.vectors() + tile - 1) / tile;
  // Blocks per multiprocessor, asked once per kernel: the query is a host
  // call that would otherwise delay every small reduction's launch.
  static int per_sm = gq::resident_per_sm((const void *)sizing, Policy::BLOCK);
  long long grid = (long long)per_sm * st->sms;
  if (grid > tiles)
    grid = tiles;
  if (grid < 1)
    grid = 1;
  if (grid > gq::ARRAY_MAX_BLOCKS)
    grid = gq::ARRAY_MAX_BLOCKS;
  Map map;
  static_assert(!Grid::POISONED || sizeof(Acc) <= GQ_LITE_PART_BYTES, "d_lite_partials holds the partial");
  Acc *scratch = static_cast<Acc *>(Grid::POISONED ? st->d_lite_partials : st->d_partials);
  Acc *result = static_cast<Acc *>(target.result);
  unsigned *counter = st->d_counter;
  void *finished = target.finished;
  gq::Completion completion = target.completion;
  void *args[] = {&src, &map, &scratch, &counter, &result, &finished, &completion};
  gq_launch_key key{}; // zero-filled: keys are compared byte by byte
  key.func = (const void *)kernel;
  key.grid = (unsigned)grid;
  key.block = Policy::BLOCK;
  key.ptr[0] = src.a;
  key.ptr[1] = src.b;
  key.ptr[2] = result;
  key.ptr[3] = finished;
  key.ptr[4] = completion.done;
  key.ptr[5] = completion.seq;
  key.word[0] = src.n;
  key.word[1] = (uint64_t)src.head;
  return gq_launch(st, key, args, stream);
}

template <class Policy, class Map, class Thread, class T, int ARRAYS, class Grid = gq::LastBlock>
int dispatch(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, const Target &target)
{
  const T *a = static_cast<const T *>(p->x), *b = static_cast<const T *>(p->y);
  if (reinterpret_cast<uintptr_t>(a) % sizeof(T) || (ARRAYS == 2 && reinterpret_cast<uintptr_t>(b) % sizeof(T)))
    return gq_fail(GQ_EINVAL, "data reduction: the arrays must be aligned to their element size");
  const int head = gq::misaligned_head(a, p->n);
  if (ARRAYS == 2 && gq::misaligned_head(b, p->n) != head) { // no common vector alignment
    gq::ArraySource<T, ARRAYS, false> src{a, ARRAYS == 2 ? b : nullptr, p->n, 0};
    return p->classify ? enqueue<Policy, true, Grid, decltype(src), Map, Thread>(st, src, stream, target)
                       : enqueue<Policy, false, Grid, decltype(src), Map, Thread>(st, src, stream, target);
  }
  gq::ArraySource<T, ARRAYS, true> src{a, ARRAYS == 2 ? b : nullptr, p->n, head};
  return p->classify ? enqueue<Policy, true, Grid, decltype(src), Map, Thread>(st, src, stream, target)
                     : enqueue<Policy, false, Grid, decltype(src), Map, Thread>(st, src, stream, target);
}

// The accumulator: FULL (every count, classifying when asked), LITE
// (finished on the device: sum, dot, rms) or TOTALS (the lite rms, finished
// to its three totals, which the host finishes).
enum Form { FULL, LITE, TOTALS };

template <class T>
int by_kind(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, const Target &target, Form form)
{
  if (form != FULL && (p->classify || p->kind == GQ_REDUCE_STATS))
    return gq_fail(GQ_EINVAL, "data reduction: no finished form of this reduction");
  if (form == TOTALS && p->kind == GQ_REDUCE_RMS)
    return dispatch<gq::RmsLitePolicy, gq::Difference, gq::RmsTotalsThread, T, 2, gq::PoisonedLastBlock>(st, p, stream,
                                                                                                       target);
  if (form == TOTALS)
    return gq_fail(GQ_EINVAL, "data reduction: no such one-shot form");
  const bool lite = form == LITE;
  using Lite = gq::PoisonedLastBlock; // the lite accumulators are made of doubles
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    return lite ? dispatch<gq::SumLitePolicy, gq::Identity, gq::SumLiteThread, T, 1, Lite>(st, p, stream, target)
                : dispatch<gq::SumPolicy, gq::Identity, gq::SumThread, T, 1>(st, p, stream, target);
  case GQ_REDUCE_DOT:
    return lite ? dispatch<gq::DotLitePolicy, gq::ExactProduct, gq::SumLiteThread, T, 2, Lite>(st, p, stream, target)
                : dispatch<gq::DotPolicy, gq::ExactProductOperands, gq::SumThread, T, 2>(st, p, stream, target);
  case GQ_REDUCE_RMS:
    return lite ? dispatch<gq::RmsLitePolicy, gq::Difference, gq::RmsLiteThread, T, 2, Lite>(st, p, stream, target)
                : dispatch<gq::RmsPolicy, gq::DifferenceWithOperands, gq::RmsThread, T, 2>(st, p, stream, target);
  case GQ_REDUCE_STATS:
    return dispatch<gq::StatsPolicy, gq::Identity, gq::StatsThread, T, 1>(st, p, stream, target);
  }
  return gq_fail(GQ_EINVAL, "unknown data reduction %d", (int)p->kind);
}

int run(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, const Target &target, Form form)
{
  if (p->n == 0)
    return gq_fail(GQ_EINVAL, "data reduction: empty chunk");
  return p->is_float ? by_kind<float>(st, p, stream, target, form) : by_kind<double>(st, p, stream, target, form);
}

void *slot(gq_cuda_state *st, int k) { return static_cast<gq_reduce_acc *>(st->d_result) + k; }

// Spin until done() holds, asking the stream now and then so that a kernel
// that failed cannot hang the host.
template <class Done> int spin(gq_cuda_state *st, Done done)
{
  for (unsigned k = 1; !done(); k++) {
    if (k % 65536 == 0) {
      const cudaError_t e = cudaStreamQuery(st->stream);
      if (e == cudaSuccess) {
        if (!done())
          return gq_fail(GQ_ECUDA, "data reduction: the kernel finished without its result");
        break;
      }
      if (e != cudaErrorNotReady)
        return gq::cuda_status(e, "data reduction kernel");
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return GQ_SUCCESS;
}

} // namespace

int gq_cuda_array_enqueue(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, int k)
{
  return run(st, p, stream, Target{slot(st, k), nullptr, gq::Completion{nullptr, nullptr}}, FULL);
}

size_t gq_cuda_acc_size(gq_reduce_kind kind)
{
  return kind == GQ_REDUCE_STATS ? sizeof(gq_stats_acc) : kind == GQ_REDUCE_RMS ? sizeof(gq_rms_acc) : sizeof(gq_sum_acc);
}

// The asynchronous forms: one launch on the context's stream, the finished
// value left at d_finished, nothing copied back, nothing waited for.
extern "C" int gq_cuda_array_async(gq_cuda_state *st, const gq_array_reduce *p, void *d_finished)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  return run(st, p, st->stream, Target{slot(st, 2), d_finished, gq::Completion{nullptr, nullptr}}, LITE);
}

// One-shot sum, dot and rms: the lite kernel's last block writes the
// finished value into mapped host memory, poisoned beforehand (GQ_POISON:
// every word is arithmetic's, so a word that no longer holds it has been
// written), and the host spins on it — no ticket, no copy, no stream sync.
// For rms it writes the three totals (sums of squared differences and of
// squared references, max |a - b|) and the host finishes them with the
// device's own gq_rms_values, a few hundred cycles sooner than the device
// would; the counts of an rms result are the host's: n pairs, none of them
// classified.  A sum or a dot is one double (out: a double).
extern "C" int gq_cuda_array_finish(gq_cuda_state *st, const gq_array_reduce *p, void *out)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const bool rms = p->kind == GQ_REDUCE_RMS;
  const int words = rms ? 3 : 1;
  volatile uint64_t *w = static_cast<volatile uint64_t *>(st->h_mapped);
  for (int k = 0; k < words; k++)
    w[k] = GQ_POISON;
  int status = run(st, p, st->stream, Target{slot(st, 2), st->d_mapped, gq::Completion{nullptr, nullptr}},
                   rms ? TOTALS : LITE);
  if (status == GQ_SUCCESS)
    status = spin(st, [&] {
      for (int k = 0; k < words; k++)
        if (w[k] == GQ_POISON)
          return false;
      return true;
    });
  if (status != GQ_SUCCESS)
    return status;
  const double *t = static_cast<const double *>(st->h_mapped);
  if (!rms) {
    *static_cast<double *>(out) = t[0];
    return GQ_SUCCESS;
  }
  gq_rms_result *o = static_cast<gq_rms_result *>(out);
  o->n = p->n;
  o->nan_count = o->inf_count = 0;
  gq_rms_values(t[0], t[1], p->n, &o->rms, &o->relative); // sum (a-b)^2, sum a^2
  o->max_abs = t[2];
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_array_reduce(gq_cuda_state *st, const gq_array_reduce *p, gq_reduce_acc *out, double *ms)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const size_t size = gq_cuda_acc_size(p->kind);
  if (!ms) {
    // The full accumulator into mapped host memory, then the ticket: the
    // host spins on the ticket instead of waiting for the stream to drain.
    const unsigned long long ticket = st->ticket + 1;
    const int status = run(st, p, st->stream, Target{st->d_mapped, nullptr, gq::Completion{st->d_done, st->d_seq}}, FULL);
    if (status != GQ_SUCCESS)
      return status;
    st->ticket = ticket; // the kernel counts it on the device
    const volatile unsigned long long *done = st->h_done;
    const int spun = spin(st, [&] { return *done == ticket; });
    if (spun != GQ_SUCCESS)
      return spun;
    memcpy(out, st->h_mapped, size);
    return GQ_SUCCESS;
  }
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  const int status = run(st, p, st->stream, Target{slot(st, 2), nullptr, gq::Completion{nullptr, nullptr}}, FULL);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(static_cast<gq_reduce_acc *>(st->h_result) + 2, slot(st, 2), size, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms = elapsed;
  memcpy(out, static_cast<gq_reduce_acc *>(st->h_result) + 2, size);
  return GQ_SUCCESS;
}
