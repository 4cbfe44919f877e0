// device_math_kernels.cu — runs gq::fast_sqrt on the GPU for t_device_math.
#include <cuda_runtime.h>

#include "../kernels/device_math.cuh"

namespace {
__global__ void fast_sqrt_kernel(const double *v, double *fast, double *ieee, long long n)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    fast[i] = gq::fast_sqrt(v[i]);
    ieee[i] = sqrt(v[i]);
  }
}
} // namespace

// Returns 0 on success.
extern "C" int run_fast_sqrt(const double *h_v, double *h_fast, double *h_ieee, long long n)
{
  double *d = nullptr;
  const size_t bytes = (size_t)n * sizeof(double);
  if (cudaMalloc(&d, 3 * bytes) != cudaSuccess)
    return -1;
  cudaMemcpy(d, h_v, bytes, cudaMemcpyHostToDevice);
  fast_sqrt_kernel<<<264, 256>>>(d, d + n, d + 2 * n, n);
  cudaMemcpy(h_fast, d + n, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_ieee, d + 2 * n, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
