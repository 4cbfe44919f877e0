// array_reduce.cu — sum, dot, rms of a difference and statistics of device
// arrays through the reduction engine (array_reduce_kernel.cuh's
// array_reduce_kernel): one launch, one small copy of the result, one sync.
#include <cstdint>
#include <atomic>
#include <cstring>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "launch.cuh"
#include "policy.cuh"
#include "array_reduce.cuh"
#include "array_reduce_kernel.cuh"

namespace {

// slot < 0: the result goes to the mapped host buffer (st->d_mapped).
template <class Policy, bool CLASSIFY, class Source, class Map, class Thread>
int enqueue(gq_cuda_state *st, Source src, cudaStream_t stream, int slot, void *finished)
{
  using Acc = typename gq::CombineOf<Thread>::acc;
  auto kernel = gq::array_reduce_kernel<Policy::BLOCK, Policy::ITEMS, Policy::MIN_BLOCKS, CLASSIFY, Source, Map, Thread>;
  const long long tile = (long long)Policy::BLOCK * Policy::ITEMS;
  const long long tiles = ((long long)src.vectors() + tile - 1) / tile;
  // Blocks per multiprocessor, asked once per kernel: the query is a host
  // call that would otherwise delay every small reduction's launch.
  static int per_sm = gq::resident_per_sm((const void *)kernel, Policy::BLOCK);
  long long grid = (long long)per_sm * st->sms;
  if (grid > tiles)
    grid = tiles;
  if (grid < 1)
    grid = 1;
  if (grid > gq::ARRAY_MAX_BLOCKS)
    grid = gq::ARRAY_MAX_BLOCKS;
  gq_reduce_acc *d_result =
      slot < 0 ? static_cast<gq_reduce_acc *>(st->d_mapped) : static_cast<gq_reduce_acc *>(st->d_result) + slot;
  // The latency path (slot < 0) also raises a completion flag in mapped memory.
  gq::Completion completion{nullptr, 0};
  if (slot < 0)
    completion = gq::Completion{st->d_done, ++st->ticket};
  kernel<<<(unsigned)grid, Policy::BLOCK, 0, stream>>>(src, Map(), static_cast<Acc *>(st->d_partials), st->d_counter,
                                             reinterpret_cast<Acc *>(d_result), finished, completion);
  GQ_CUDA_LAUNCH_CHECK();
  return GQ_SUCCESS;
}

template <class Policy, class Map, class Thread, class T, int ARRAYS>
int dispatch(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, int slot, void *finished)
{
  const T *a = static_cast<const T *>(p->x), *b = static_cast<const T *>(p->y);
  if (reinterpret_cast<uintptr_t>(a) % sizeof(T) || (ARRAYS == 2 && reinterpret_cast<uintptr_t>(b) % sizeof(T)))
    return gq_fail(GQ_EINVAL, "data reduction: the arrays must be aligned to their element size");
  const int head = gq::misaligned_head(a, p->n);
  if (ARRAYS == 2 && gq::misaligned_head(b, p->n) != head) { // no common vector alignment
    gq::ArraySource<T, ARRAYS, false> src{a, b, p->n, 0};
    return p->classify ? enqueue<Policy, true, decltype(src), Map, Thread>(st, src, stream, slot, finished)
                       : enqueue<Policy, false, decltype(src), Map, Thread>(st, src, stream, slot, finished);
  }
  gq::ArraySource<T, ARRAYS, true> src{a, b, p->n, head};
  return p->classify ? enqueue<Policy, true, decltype(src), Map, Thread>(st, src, stream, slot, finished)
                     : enqueue<Policy, false, decltype(src), Map, Thread>(st, src, stream, slot, finished);
}

template <class T>
int by_kind(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, int slot, void *finished)
{
  // The asynchronous forms need only the finished sum: the lite accumulator.
  const bool lite = finished && !p->classify;
  switch (p->kind) {
  case GQ_REDUCE_SUM:
    return lite ? dispatch<gq::SumPolicy, gq::Identity, gq::SumLiteThread, T, 1>(st, p, stream, slot, finished)
                : dispatch<gq::SumPolicy, gq::Identity, gq::SumThread, T, 1>(st, p, stream, slot, finished);
  case GQ_REDUCE_DOT:
    return lite ? dispatch<gq::DotPolicy, gq::ExactProduct, gq::SumLiteThread, T, 2>(st, p, stream, slot, finished)
                : dispatch<gq::DotPolicy, gq::ExactProduct, gq::SumThread, T, 2>(st, p, stream, slot, finished);
  case GQ_REDUCE_RMS:
    return dispatch<gq::RmsPolicy, gq::Difference, gq::RmsThread, T, 2>(st, p, stream, slot, finished);
  case GQ_REDUCE_STATS:
    return dispatch<gq::StatsPolicy, gq::Identity, gq::StatsThread, T, 1>(st, p, stream, slot, finished);
  }
  return gq_fail(GQ_EINVAL, "unknown data reduction %d", (int)p->kind);
}

} // namespace

int gq_cuda_array_enqueue(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, int slot,
                          void *finished)
{
  if (p->n == 0)
    return gq_fail(GQ_EINVAL, "data reduction: empty chunk");
  return p->is_float ? by_kind<float>(st, p, stream, slot, finished)
                     : by_kind<double>(st, p, stream, slot, finished);
}

// The asynchronous forms: one launch on the context's stream, the finished
// value left at d_finished, nothing copied back, nothing waited for.
extern "C" int gq_cuda_array_async(gq_cuda_state *st, const gq_array_reduce *p, void *d_finished)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  return gq_cuda_array_enqueue(st, p, st->stream, 2, d_finished);
}

size_t gq_cuda_acc_size(gq_reduce_kind kind)
{
  return kind == GQ_REDUCE_STATS ? sizeof(gq_stats_acc) : kind == GQ_REDUCE_RMS ? sizeof(gq_rms_acc) : sizeof(gq_sum_acc);
}

extern "C" int gq_cuda_array_reduce(gq_cuda_state *st, const gq_array_reduce *p, gq_reduce_acc *out, double *ms)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  if (!ms) {
    // Latency path: no events, no copy launch; the last block writes the
    // result into mapped host memory and then raises the ticket there.  The
    // host spins on the ticket (asking the stream now and then, so that a
    // failed launch cannot hang it) instead of waiting for the stream to
    // drain: that wake-up is most of a small reduction's latency.
    const int status = gq_cuda_array_enqueue(st, p, st->stream, -1, nullptr);
    if (status != GQ_SUCCESS)
      return status;
    const volatile unsigned long long *done = st->h_done;
    for (unsigned spin = 1; *done != st->ticket; spin++) {
      if (spin % 4096 == 0) {
        const cudaError_t e = cudaStreamQuery(st->stream);
        if (e == cudaSuccess) {
          if (*done != st->ticket)
            return gq_fail(GQ_ECUDA, "data reduction: the kernel finished without its result");
          break;
        }
        if (e != cudaErrorNotReady)
          return gq::cuda_status(e, "data reduction kernel");
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    memcpy(out, st->h_mapped, gq_cuda_acc_size(p->kind));
    return GQ_SUCCESS;
  }
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  const int status = gq_cuda_array_enqueue(st, p, st->stream, 2, nullptr);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  const size_t size = gq_cuda_acc_size(p->kind);
  GQ_CUDA_TRY(cudaMemcpyAsync(static_cast<gq_reduce_acc *>(st->h_result) + 2, static_cast<gq_reduce_acc *>(st->d_result) + 2, size, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  if (ms)
    *ms = elapsed;
  memcpy(out, static_cast<gq_reduce_acc *>(st->h_result) + 2, size);
  return GQ_SUCCESS;
}
