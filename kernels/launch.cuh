// launch.cuh — host side of the engine: grid sizing and the launches shared
// by the kernels compiled ahead of time (grid_sum.cu) and those compiled at
// run time by NVRTC (jit.cu).  Kernels are passed as `const void *`, which
// both a __global__ function and a cudaKernel_t from cudaLibraryGetKernel are.
#ifndef GQ_LAUNCH_CUH
#define GQ_LAUNCH_CUH

#include "cuda_check.cuh"
#include "cuda_state.cuh"

namespace gq {

// Blocks of `block` threads that stay resident on one multiprocessor.
inline int resident_per_sm(const void *kernel, int block)
{
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  return per_sm;
}

// Blocks to launch: as many as stay resident on the device, no more than the
// tiles there are.
inline int resident_grid(const void *kernel, int block, int sms, long long tiles)
{
  const int per_sm = resident_per_sm(kernel, block);
  long long grid = (long long)per_sm * sms;
  if (grid > tiles)
    grid = tiles;
  return grid < 1 ? 1 : (int)grid;
}

// A transform_csum_kernel<block, items, 2, Map> over indices first..first+count-1:
// sums[p] receives the compensated sum over the indices of parity p.  The
// reduction (memset + kernel) is timed with CUDA events.
inline int launch_grid_csum(gq_cuda_state *st, const void *kernel, int block, int items, double first,
                            long long count, void *map, gq_csum sums[2], double *ms)
{
  const long long tile = (long long)block * items;
  const int grid = resident_grid(kernel, block, st->sms, (count + tile - 1) / tile);
  gq_csum *d_out = st->d_acc;
  void *args[] = {&first, &count, map, &d_out};
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(st->d_acc, 0, 2 * sizeof(gq_csum), st->stream));
  GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, 0, st->stream));
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(st->h_acc, st->d_acc, 2 * sizeof(gq_csum), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  if (ms)
    *ms = elapsed;
  // Thread key k summed the indices first + k (mod 2).
  const unsigned long long parity = (unsigned long long)first & 1u;
  for (unsigned k = 0; k < 2; k++)
    sums[(parity + k) & 1] = st->h_acc[k];
  return GQ_SUCCESS;
}

// A nonfinite_scan_kernel<block, Map>: how many of the count values are not
// finite, and the offset (from first) of the first one.
inline int launch_nonfinite(gq_cuda_state *st, const void *kernel, int block, double first, long long count,
                            void *map, unsigned long long *bad, unsigned long long *first_bad)
{
  const int grid = resident_grid(kernel, block, st->sms, (count + block - 1) / block);
  unsigned long long *d_out = reinterpret_cast<unsigned long long *>(st->d_acc + 4);
  unsigned long long *h_out = reinterpret_cast<unsigned long long *>(st->h_acc + 4);
  h_out[0] = 0;
  h_out[1] = ~0ull;
  void *args[] = {&first, &count, map, &d_out};
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaMemcpyAsync(d_out, h_out, 2 * sizeof *d_out, cudaMemcpyHostToDevice, st->stream));
  GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, 0, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(h_out, d_out, 2 * sizeof *d_out, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  *bad = h_out[0];
  *first_bad = h_out[1];
  return GQ_SUCCESS;
}

// The sums of a reduction whose maps gave NaN or Inf somewhere.
inline bool sums_finite(const gq_csum sums[2])
{
  const double total = gq_csum_value(sums[0]) + gq_csum_value(sums[1]);
  return total - total == 0.0;
}

} // namespace gq
#endif
