// generate.cu — vectors generated in device memory for --gen (gq_generate):
// Philox4x32-10 in the layout of philox.h (element i is word i % 4 of the
// call with counter i / 4, coordinate 0, key seed), the numbers
// src/lib/cpu/generate.c computes on the host, so a seed gives the same
// uniforms bit for bit on both backends; a grid-stride kernel for linspace.
#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "../src/lib/philox.h"

namespace {

// Elements [first, first + count) of the vector of n (a rank's share).
template <class T>
__global__ void linspace_kernel(T *x, unsigned long long n, unsigned long long first, unsigned long long count)
{
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    x[i] = (T)(n > 1 ? (double)(first + i) / (double)(n - 1) : 0.0); // as the CPU computes it
}

__device__ __forceinline__ void quad_values(gq_philox4 r, bool normal, double v[4])
{
  gq_philox_values(r, normal, v);
}
__device__ __forceinline__ void quad_values(gq_philox4 r, bool normal, float v[4])
{
  gq_philox_values_float(r, normal, v);
}

// One Philox call per thread and quad; a warp's four stores per quad cover
// 128 consecutive elements, which L2 merges into whole lines.
// x[0 .. count) from quad q0 on (elements 4 q0 ..).
template <class T>
__global__ void philox_kernel(T *x, unsigned long long count, unsigned long long q0, unsigned long long seed,
                              bool normal)
{
  const unsigned long long quads = (count + 3) / 4;
  for (unsigned long long q = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; q < quads;
       q += (unsigned long long)gridDim.x * blockDim.x) {
    T v[4];
    quad_values(gq_philox_quad(q0 + q, 0u, seed), normal, v);
#pragma unroll
    for (int l = 0; l < 4; l++)
      if (4 * q + l < count)
        x[4 * q + l] = v[l];
  }
}

} // namespace

extern "C" int gq_cuda_generate(gq_cuda_state *st, gq_gen_kind kind, size_t n, size_t first, size_t count,
                                uint64_t seed, double *xd, float *xf)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const int grid = st->sms * 8;
  const unsigned long long un = n, ufirst = first, ucount = count;
  if (kind == GQ_GEN_LINSPACE) {
    if (xd)
      linspace_kernel<<<grid, 256, 0, st->stream>>>(xd, un, ufirst, ucount);
    else
      linspace_kernel<<<grid, 256, 0, st->stream>>>(xf, un, ufirst, ucount);
  } else {
    const bool normal = kind == GQ_GEN_NORMAL;
    if (xd)
      philox_kernel<<<grid, 256, 0, st->stream>>>(xd, ucount, ufirst / 4, (unsigned long long)seed, normal);
    else
      philox_kernel<<<grid, 256, 0, st->stream>>>(xf, ucount, ufirst / 4, (unsigned long long)seed, normal);
  }
  GQ_CUDA_LAUNCH_CHECK();
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  return GQ_SUCCESS;
}
