// mc_curand_kernels.cu — gpuquad's Philox (src/lib/philox.h) against cuRAND's
// device API, for tests/t_mc_gpu.c: for quad q and coordinate d,
// curand_init(seed, d, 4 q) then curand4 must give gq_philox_quad(q, d, seed).
#include <curand_kernel.h>

#include "../src/lib/philox.h"

__global__ void compare_kernel(unsigned long long seed, unsigned long long q0, unsigned long long quads, int dims,
                               unsigned long long *mismatches)
{
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= quads * dims)
    return;
  const unsigned long long q = q0 + i / dims;
  const unsigned d = (unsigned)(i % dims);
  curandStatePhilox4_32_10_t st;
  curand_init(seed, d, 4 * q, &st);
  const uint4 c = curand4(&st);
  const gq_philox4 g = gq_philox_quad(q, d, seed);
  if (c.x != g.v[0] || c.y != g.v[1] || c.z != g.v[2] || c.w != g.v[3])
    atomicAdd(mismatches, 1ull);
}

// Number of (quad, coordinate) pairs that differ, or -1 on a CUDA error.
extern "C" long long gq_test_philox_vs_curand(unsigned long long seed, unsigned long long q0,
                                              unsigned long long quads, int dims)
{
  unsigned long long *d = nullptr, h = 0;
  if (cudaMalloc(&d, sizeof *d) != cudaSuccess)
    return -1;
  cudaMemset(d, 0, sizeof *d);
  const unsigned long long total = quads * dims;
  compare_kernel<<<(unsigned)((total + 255) / 256), 256>>>(seed, q0, quads, dims, d);
  const cudaError_t e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return e == cudaSuccess ? (long long)h : -1;
}
