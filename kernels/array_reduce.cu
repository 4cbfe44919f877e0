// array_reduce.cu — sum, dot, rms of a difference and statistics of device
// arrays as engine problems (engine/kernel.cuh: an array source, a map, a
// thread accumulator, a last-block level): one launch per call (through launch_cache.cu, so a
// repeated call replays a graph), the result where the caller needs it:
//
//   one-shot sum, dot and rms (gq_cuda_array_finish): the lite accumulator,
//     merged by the last block without fences (PoisonedLastBlock,
//     engine/grid_levels.cuh) and finished into mapped host memory, which
//     the host spins on;
//   asynchronous forms (gq_cuda_array_async): the same kernel finished into
//     the caller's device memory, nothing waited for — the same grid and
//     merge order, so the same bits;
//   the full accumulator (gq_cuda_array_reduce: accumulate calls, stats, the
//     classifying rerun after a NaN or Inf): into mapped host memory, then a
//     ticket the host spins on — or, timed, into a device slot and copied;
//   streamed chunks (gq_cuda_array_enqueue, from stream.cu): the full
//     accumulator into device slot 0 or 1.
#include <cstdint>
#include <cstring>

#include "array_reduce.cuh"
#include "engine/accumulators.cuh"
#include "engine/array_source.cuh"
#include "engine/kernel.cuh"
#include "engine/launch.cuh"
#include "host_spin.cuh"
#include "../src/lib/reduce_acc.h"

namespace {

// Where a launch leaves its result: the last-block level's target, less
// the scratch and counter, which are the context's.
struct Target {
  void *result;               // the accumulator (device slot or mapped host memory)
  void *finished;             // the finished value (lite accumulators), or nullptr
  gq::Completion completion;  // the ticket raised after the result, or {nullptr, nullptr}
};

template <class Shape, bool CLASSIFY, class Level, class Source, class Map, class Thread>
int enqueue(gq_cuda_state *st, const Source &src, cudaStream_t stream, const Target &target)
{
  using Acc = typename gq::CombineOf<Thread>::acc;
  // The launch bound is the fast pass's: the classifying rerun (rare, and
  // built on reduce_acc.h's scaled adds) would spill under it.
  constexpr int MIN_BLOCKS = CLASSIFY ? 1 : Shape::MIN_BLOCKS;
  using Problem = gq::Problem<Source, Level>;
  const void *kernel = (const void *)gq::reduce_kernel<Shape::BLOCK, Shape::ITEMS, MIN_BLOCKS, CLASSIFY, Map, Thread,
                                                       Source, Level>;
  const unsigned grid = gq::resident_grid(st, kernel, Shape::BLOCK, gq::tiles<Shape>(src.vectors()));
  static_assert(!Level::POISONED || sizeof(Acc) <= GQ_LITE_PART_BYTES, "d_lite_partials holds the partial");
  Problem p{};
  p.src = src;
  p.out.scratch = Level::POISONED ? st->d_lite_partials : st->d_partials;
  p.out.counter = st->d_counter;
  p.out.result = target.result;
  p.out.finished = target.finished;
  p.out.completion = target.completion;
  return gq::launch<true>(st, kernel, grid, Shape::BLOCK, p, stream);
}

template <class Shape, class Map, class Thread, class T, int ARRAYS, class Level = gq::LastBlock>
int dispatch(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, const Target &target)
{
  const T *a = static_cast<const T *>(p->x), *b = static_cast<const T *>(p->y);
  if (reinterpret_cast<uintptr_t>(a) % sizeof(T) || (ARRAYS == 2 && reinterpret_cast<uintptr_t>(b) % sizeof(T)))
    return gq_fail(GQ_EINVAL, "data reduction: the arrays must be aligned to their element size");
  const int head = gq::misaligned_head(a, p->n);
  if (ARRAYS == 2 && gq::misaligned_head(b, p->n) != head) { // no common vector alignment
    gq::ArraySource<T, ARRAYS, false> src{a, ARRAYS == 2 ? b : nullptr, p->n, 0};
    return p->classify ? enqueue<Shape, true, Level, decltype(src), Map, Thread>(st, src, stream, target)
                       : enqueue<Shape, false, Level, decltype(src), Map, Thread>(st, src, stream, target);
  }
  gq::ArraySource<T, ARRAYS, true> src{a, ARRAYS == 2 ? b : nullptr, p->n, head};
  return p->classify ? enqueue<Shape, true, Level, decltype(src), Map, Thread>(st, src, stream, target)
                     : enqueue<Shape, false, Level, decltype(src), Map, Thread>(st, src, stream, target);
}

// The accumulator: FULL (every count, classifying when asked) or LITE
// (finished on the device: sum, dot, rms).
enum Form { FULL, LITE };

template <class T, class Rows>
int by_kind(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, const Target &target, Form form)
{
  if (form == LITE && (p->classify || p->kind == GQ_REDUCE_STATS))
    return gq_fail(GQ_EINVAL, "data reduction: no finished form of this reduction");
  const bool lite = form == LITE;
  using Lite = gq::PoisonedLastBlock; // the lite accumulators are made of doubles
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    return lite ? dispatch<typename Rows::SumLite, gq::Identity, gq::SumLiteThread, T, 1, Lite>(st, p, stream, target)
                : dispatch<typename Rows::Sum, gq::Identity, gq::SumThread, T, 1>(st, p, stream, target);
  case GQ_REDUCE_DOT:
    return lite ? dispatch<typename Rows::DotLite, gq::ExactProduct, gq::SumLiteThread, T, 2, Lite>(st, p, stream, target)
                : dispatch<typename Rows::Dot, gq::ExactProductOperands, gq::SumThread, T, 2>(st, p, stream, target);
  case GQ_REDUCE_RMS:
    return lite ? dispatch<typename Rows::RmsLite, gq::Difference, gq::RmsLiteThread, T, 2, Lite>(st, p, stream, target)
                : dispatch<typename Rows::Rms, gq::DifferenceWithOperands, gq::RmsThread, T, 2>(st, p, stream, target);
  case GQ_REDUCE_STATS:
    return dispatch<typename Rows::Stats, gq::Identity, gq::StatsThread, T, 1>(st, p, stream, target);
  }
  return gq_fail(GQ_EINVAL, "unknown data reduction %d", (int)p->kind);
}

int run(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, const Target &target, Form form)
{
  if (p->n == 0)
    return gq_fail(GQ_EINVAL, "data reduction: empty chunk");
  return gq::with_rows(st->cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    return p->is_float ? by_kind<float, Rows>(st, p, stream, target, form)
                       : by_kind<double, Rows>(st, p, stream, target, form);
  });
}

} // namespace

int gq_cuda_array_enqueue(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, int k)
{
  return run(st, p, stream, Target{gq_result_slot(st, k), nullptr, gq::Completion{nullptr, nullptr}}, FULL);
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
  return run(st, p, st->stream, Target{gq_result_slot(st, GQ_SLOT_CALL), d_finished, gq::Completion{nullptr, nullptr}}, LITE);
}

// One-shot sum, dot and rms: the lite kernel's last block writes the
// finished value — a double, or the gq_rms_result — into mapped host memory,
// poisoned beforehand (GQ_POISON, poison.h: every word of a result is
// arithmetic's or a count, so a word that no longer holds it has been
// written), and the host spins on it: no ticket, no copy, no stream sync.
// The same kernel as the asynchronous form's, so the same bits.
extern "C" int gq_cuda_array_finish(gq_cuda_state *st, const gq_array_reduce *p, void *out)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const size_t size = p->kind == GQ_REDUCE_RMS ? sizeof(gq_rms_result) : sizeof(double);
  static_assert(sizeof(gq_rms_result) % 8 == 0 && sizeof(gq_rms_result) <= sizeof(gq_reduce_acc),
                "the finished rms is 8-byte words in the mapped slot");
  const int words = (int)(size / 8);
  volatile uint64_t *w = static_cast<volatile uint64_t *>(st->h_mapped);
  for (int k = 0; k < words; k++)
    w[k] = GQ_POISON;
  int status = run(st, p, st->stream, Target{gq_result_slot(st, GQ_SLOT_CALL), st->d_mapped,
                                             gq::Completion{nullptr, nullptr}}, LITE);
  if (status == GQ_SUCCESS)
    status = gq::spin(st, [&] {
      for (int k = 0; k < words; k++)
        if (w[k] == GQ_POISON)
          return false;
      return true;
    });
  if (status != GQ_SUCCESS)
    return status;
  memcpy(out, st->h_mapped, size);
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
    const int spun = gq::spin(st, [&] { return *done == ticket; });
    if (spun != GQ_SUCCESS)
      return spun;
    memcpy(out, st->h_mapped, size);
    return GQ_SUCCESS;
  }
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  const int status = run(st, p, st->stream, Target{gq_result_slot(st, GQ_SLOT_CALL), nullptr, gq::Completion{nullptr, nullptr}}, FULL);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  gq_reduce_acc *h_slot = static_cast<gq_reduce_acc *>(st->h_result) + GQ_SLOT_CALL;
  GQ_CUDA_TRY(cudaMemcpyAsync(h_slot, gq_result_slot(st, GQ_SLOT_CALL), size, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms = elapsed;
  memcpy(out, h_slot, size);
  return GQ_SUCCESS;
}
