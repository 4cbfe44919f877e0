// peers.cu — Thrust (and later CUB, cuBLAS) doing the same work as gpuquad.
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include "peers.h"

namespace {
struct circle_at {
  double h;
  __device__ double operator()(long long i) const
  {
    const double x = (double)i * h;
    return 4.0 * sqrt(1.0 - x * x);
  }
};
} // namespace

extern "C" int peer_thrust_circle(long long n, int reps, double *times_ms, double *result)
{
  const double h = 1.0 / (double)n;
  cudaEvent_t start, stop;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess)
    return -1;
  double s = 0.0;
  for (int r = -2; r < reps; r++) { // two warm-ups
    cudaEventRecord(start);
    s = thrust::transform_reduce(thrust::device, thrust::counting_iterator<long long>(1),
                                 thrust::counting_iterator<long long>(n), circle_at{h}, 0.0,
                                 thrust::plus<double>());
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (r >= 0)
      times_ms[r] = ms;
  }
  *result = h * (s + 0.5 * (4.0 + 0.0));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
