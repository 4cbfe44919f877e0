// exact_launch.cuh — the host side of the deterministic engine problems
// (engine/exact_tile.cuh): the grid's words and non-finite sums allocated
// on the stream and zeroed, the launch between the context's events, and
// everything copied back; grid_sum.cu, product.cu and mc.cu round what they
// read.
#ifndef GQ_EXACT_LAUNCH_CUH
#define GQ_EXACT_LAUNCH_CUH

#include <cstdlib>

#include "grid.cuh"
#include "engine/exact_tile.cuh"
#include "engine/launch.cuh"

namespace gq {

// prob.out is filled here.  h receives CHANNELS x GQ_SUPERACC_WORDS words,
// then KEYS non-finite sums (doubles); *ms the kernel's time.  shared_bytes:
// the kernel's dynamic shared memory (a product grid's tables).
template <int CHANNELS, int KEYS, class Problem>
int exact_run(gq_cuda_state *st, const void *kernel, unsigned grid, int block, Problem prob,
              unsigned long long *h, double *ms, size_t shared_bytes = 0)
{
  constexpr size_t WORDS = (size_t)CHANNELS * GQ_SUPERACC_WORDS;
  constexpr size_t BYTES = WORDS * sizeof(unsigned long long) + KEYS * sizeof(double);
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  unsigned long long *d = nullptr;
  GQ_CUDA_TRY(cudaMallocAsync(&d, BYTES, st->stream));
  prob.out.words = d;
  prob.out.nonfinite = reinterpret_cast<double *>(d + WORDS);
  float elapsed = 0.0f;
  int status = cuda_status(cudaEventRecord(st->start, st->stream), "cudaEventRecord");
  if (status == GQ_SUCCESS)
    status = cuda_status(cudaMemsetAsync(d, 0, BYTES, st->stream), "cudaMemsetAsync(exact sums)");
  if (status == GQ_SUCCESS)
    status = launch<false>(st, kernel, grid, block, prob, st->stream, shared_bytes);
  if (status == GQ_SUCCESS)
    status = cuda_status(cudaEventRecord(st->stop, st->stream), "cudaEventRecord");
  if (status == GQ_SUCCESS)
    status = cuda_status(cudaMemcpyAsync(h, d, BYTES, cudaMemcpyDeviceToHost, st->stream), "cudaMemcpyAsync");
  cudaFreeAsync(d, st->stream);
  if (status == GQ_SUCCESS)
    status = cuda_status(cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
  if (status == GQ_SUCCESS)
    status = cuda_status(cudaEventElapsedTime(&elapsed, st->start, st->stop), "cudaEventElapsedTime");
  if (status == GQ_SUCCESS && ms)
    *ms = elapsed;
  return status;
}

} // namespace gq
#endif
