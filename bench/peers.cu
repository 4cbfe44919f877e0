// peers.cu — Thrust (and later CUB, cuBLAS) doing the same work as gpuquad.
#include <algorithm>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
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

// ---- data reductions ----------------------------------------------------------
namespace {
cublasHandle_t blas;
void *cub_temp;
size_t cub_temp_bytes;
double *d_out;

struct SquaredDifference {
  __device__ double operator()(thrust::tuple<double, double> t) const
  {
    const double d = thrust::get<0>(t) - thrust::get<1>(t);
    return d * d;
  }
};
struct AbsDifference {
  __device__ double operator()(thrust::tuple<double, double> t) const
  {
    return fabs(thrust::get<0>(t) - thrust::get<1>(t));
  }
};
using Pairs = thrust::zip_iterator<thrust::tuple<const double *, const double *>>;
} // namespace

extern "C" int peer_reduce_setup(long long n)
{
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
    return -1;
  size_t a = 0, b = 0, c = 0;
  Pairs p(thrust::make_tuple((const double *)nullptr, (const double *)nullptr));
  cub::DeviceReduce::Sum(nullptr, a, (const double *)nullptr, (double *)nullptr, (int)n);
  cub::DeviceReduce::Sum(nullptr, b, thrust::make_transform_iterator(p, SquaredDifference()), (double *)nullptr, (int)n);
  cub::DeviceReduce::Max(nullptr, c, thrust::make_transform_iterator(p, AbsDifference()), (double *)nullptr, (int)n);
  cub_temp_bytes = std::max(a, std::max(b, c));
  if (cudaMalloc(&cub_temp, cub_temp_bytes) != cudaSuccess || cudaMalloc(&d_out, 2 * sizeof(double)) != cudaSuccess)
    return -1;
  return 0;
}

extern "C" void peer_reduce_teardown(void)
{
  cublasDestroy(blas);
  cudaFree(cub_temp);
  cudaFree(d_out);
}

extern "C" int peer_cublas_ddot(const double *d_x, const double *d_y, long long n, double *result)
{
  return cublasDdot(blas, (int)n, d_x, 1, d_y, 1, result) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

extern "C" int peer_cub_sum(const double *d_x, long long n, double *result)
{
  size_t bytes = cub_temp_bytes;
  if (cub::DeviceReduce::Sum(cub_temp, bytes, d_x, d_out, (int)n) != cudaSuccess)
    return -1;
  return cudaMemcpy(result, d_out, sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
}

extern "C" int peer_three_pass_rms(const double *d_a, const double *d_b, long long n, double out[3])
{
  Pairs p(thrust::make_tuple(d_a, d_b));
  size_t bytes = cub_temp_bytes;
  if (cub::DeviceReduce::Sum(cub_temp, bytes, thrust::make_transform_iterator(p, SquaredDifference()), d_out,
                             (int)n) != cudaSuccess)
    return -1;
  bytes = cub_temp_bytes;
  if (cub::DeviceReduce::Max(cub_temp, bytes, thrust::make_transform_iterator(p, AbsDifference()), d_out + 1,
                             (int)n) != cudaSuccess)
    return -1;
  double norm_a = 0, h[2];
  if (cublasDnrm2(blas, (int)n, d_a, 1, &norm_a) != CUBLAS_STATUS_SUCCESS)
    return -1;
  if (cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
    return -1;
  out[0] = sqrt(h[0] / (double)n);
  out[1] = h[1];
  out[2] = sqrt(h[0]) / norm_a;
  return 0;
}

extern "C" double peer_h2d_gbps(size_t bytes)
{
  void *h = nullptr, *d = nullptr;
  if (cudaMallocHost(&h, bytes) != cudaSuccess || cudaMalloc(&d, bytes) != cudaSuccess)
    return -1;
  memset(h, 1, bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> gbps;
  for (int r = -1; r < 5; r++) {
    cudaEventRecord(start);
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (r >= 0)
      gbps.push_back((double)bytes / (ms * 1e6));
  }
  std::sort(gbps.begin(), gbps.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFreeHost(h);
  cudaFree(d);
  return gbps[2];
}
