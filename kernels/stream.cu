// stream.cu — streamed data reductions on a CUDA context: chunks of one or
// two readers through two pinned host buffers and two device buffers.
//
//   host:         read k+1 ......... read k+2 ...
//   copy_stream:  copy k+1 (pinned -> device, async) ...
//   stream:       reduce k, result k -> pinned ... reduce k+1 ...
//
// Buffer b = k % 2 is reused by chunk k+2 only after the host has waited for
// done[b] (chunk k reduced and its result back), so neither the pinned nor the
// device buffer is overwritten in use.  A chunk whose result shows a NaN, an
// Inf or an overflow is reduced again, classifying (and scaling), while its
// data are still on the device.
// Events time the copies and the kernels, so the caller learns which side
// (disk, PCIe, GPU) bounded the stream.
#include <cmath>
#include <cstring>

#include "array_reduce.cuh"
#include "cuda_check.cuh"
#include "cuda_state.cuh"

namespace {

int prepare(gq_cuda_state *st)
{
  if (st->streaming_ready)
    return GQ_SUCCESS;
  const size_t bytes = GQ_CUDA_STREAM_CHUNK * sizeof(double);
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 2; i++) {
      GQ_CUDA_TRY(cudaMallocHost(&st->h_stage[k][i], bytes));
      GQ_CUDA_TRY(cudaMalloc(&st->d_stage[k][i], bytes));
    }
    cudaEvent_t *events[] = {&st->copied[k], &st->done[k], &st->copy_start[k], &st->copy_stop[k],
                             &st->kernel_start[k], &st->kernel_stop[k]};
    for (cudaEvent_t *e : events)
      GQ_CUDA_TRY(cudaEventCreate(e));
  }
  GQ_CUDA_TRY(cudaStreamCreateWithFlags(&st->copy_stream, cudaStreamNonBlocking));
  st->streaming_ready = 1;
  return GQ_SUCCESS;
}

struct InFlight {
  gq_array_reduce problem; // n = 0: the buffer holds nothing to collect
};

// Wait for the chunk in buffer b, merge its result (reducing it again,
// classifying, if it met a NaN or Inf), and add its times.
int collect(gq_cuda_state *st, gq_reduce_kind kind, int b, InFlight *f, gq_reduce_acc *acc, gq_stream_info *info)
{
  if (f->problem.n == 0)
    return GQ_SUCCESS;
  GQ_CUDA_TRY(cudaEventSynchronize(st->done[b]));
  float copy_ms = 0, kernel_ms = 0;
  GQ_CUDA_TRY(cudaEventElapsedTime(&copy_ms, st->copy_start[b], st->copy_stop[b]));
  GQ_CUDA_TRY(cudaEventElapsedTime(&kernel_ms, st->kernel_start[b], st->kernel_stop[b]));
  info->copy_ms += copy_ms;
  info->compute_ms += kernel_ms;
  gq_reduce_acc chunk;
  memcpy(&chunk, static_cast<gq_reduce_acc *>(st->h_result) + b, gq_cuda_acc_size(kind));
  if (gq_reduce_acc_needs_classify(kind, &chunk)) { // a NaN, an Inf, an overflow, tiny squares
    f->problem.classify = 1;
    double ms = 0.0;
    const int status = gq_cuda_array_reduce(st, &f->problem, &chunk, &ms);
    if (status != GQ_SUCCESS)
      return status;
    info->compute_ms += ms;
  }
  gq_reduce_acc_merge_chunk(kind, acc, &chunk);
  f->problem.n = 0;
  return GQ_SUCCESS;
}

} // namespace

extern "C" int gq_cuda_stream(gq_cuda_state *st, gq_reduce_kind kind, gq_stream_src *src, gq_reduce_acc *acc,
                              gq_stream_info *info)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  int status = prepare(st);
  if (status != GQ_SUCCESS)
    return status;
  const size_t esize = src->want_float ? sizeof(float) : sizeof(double);
  const int inputs = src->y ? 2 : 1;
  InFlight flight[2] = {};
  int last = 0;
  for (int k = 0;; k++) {
    const int b = k % 2;
    last = k;
    status = collect(st, kind, b, &flight[b], acc, info); // chunk k-2 frees buffer b
    if (status != GQ_SUCCESS)
      break;
    size_t got = 0;
    status = gq_stream_src_next(src, st->h_stage[b][0], st->h_stage[b][1], GQ_CUDA_STREAM_CHUNK, &got);
    if (status != GQ_SUCCESS || got == 0)
      break;
    // copy_stream: both inputs, then `copied`; stream waits for it.
    GQ_CUDA_TRY(cudaEventRecord(st->copy_start[b], st->copy_stream));
    for (int i = 0; i < inputs; i++)
      GQ_CUDA_TRY(cudaMemcpyAsync(st->d_stage[b][i], st->h_stage[b][i], got * esize, cudaMemcpyHostToDevice,
                                  st->copy_stream));
    GQ_CUDA_TRY(cudaEventRecord(st->copy_stop[b], st->copy_stream));
    GQ_CUDA_TRY(cudaEventRecord(st->copied[b], st->copy_stream));
    GQ_CUDA_TRY(cudaStreamWaitEvent(st->stream, st->copied[b], 0));
    flight[b].problem = gq_array_reduce{kind, src->want_float, 0, got, st->d_stage[b][0],
                                        inputs == 2 ? st->d_stage[b][1] : nullptr};
    GQ_CUDA_TRY(cudaEventRecord(st->kernel_start[b], st->stream));
    status = gq_cuda_array_enqueue(st, &flight[b].problem, st->stream, b);
    if (status != GQ_SUCCESS)
      break;
    GQ_CUDA_TRY(cudaEventRecord(st->kernel_stop[b], st->stream));
    GQ_CUDA_TRY(cudaMemcpyAsync(static_cast<gq_reduce_acc *>(st->h_result) + b,
                                static_cast<gq_reduce_acc *>(st->d_result) + b, gq_cuda_acc_size(kind),
                                cudaMemcpyDeviceToHost, st->stream));
    GQ_CUDA_TRY(cudaEventRecord(st->done[b], st->stream));
  }
  // Chunk k-1, in the other buffer, is the one still in flight.
  if (status == GQ_SUCCESS)
    status = collect(st, kind, (last + 1) % 2, &flight[(last + 1) % 2], acc, info);
  else { // leave nothing running on the buffers
    cudaStreamSynchronize(st->copy_stream);
    cudaStreamSynchronize(st->stream);
  }
  return status;
}
