// generate.cu — vectors generated in device memory for --gen (gq_generate):
// cuRAND's host API (Philox4_32_10, one generator per call, on the context's
// stream) for uniform and normal, a grid-stride kernel for linspace.
#include <curand.h>

#include "cuda_check.cuh"
#include "cuda_state.cuh"

namespace {

template <class T>
__global__ void linspace_kernel(T *x, unsigned long long n)
{
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    x[i] = (T)(n > 1 ? (double)i / (double)(n - 1) : 0.0); // as the CPU computes it
}

int curand_status(curandStatus_t s, const char *what)
{
  if (s == CURAND_STATUS_SUCCESS)
    return GQ_SUCCESS;
  return gq_fail(s == CURAND_STATUS_ALLOCATION_FAILED ? GQ_ENOMEM : GQ_ECUDA, "%s: cuRAND status %d", what, (int)s);
}

} // namespace

#define GQ_CURAND_TRY(call)                                  \
  do {                                                       \
    status = curand_status((call), #call);                   \
    if (status != GQ_SUCCESS)                                \
      goto done;                                             \
  } while (0)

extern "C" int gq_cuda_generate(gq_cuda_state *st, gq_gen_kind kind, size_t n, uint64_t seed, double *xd, float *xf)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  if (kind == GQ_GEN_LINSPACE) {
    const int grid = st->sms * 8;
    if (xd)
      linspace_kernel<<<grid, 256, 0, st->stream>>>(xd, (unsigned long long)n);
    else
      linspace_kernel<<<grid, 256, 0, st->stream>>>(xf, (unsigned long long)n);
    GQ_CUDA_LAUNCH_CHECK();
    GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
    return GQ_SUCCESS;
  }
  curandGenerator_t gen = nullptr;
  int status = GQ_SUCCESS;
  GQ_CURAND_TRY(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  GQ_CURAND_TRY(curandSetStream(gen, st->stream));
  GQ_CURAND_TRY(curandSetPseudoRandomGeneratorSeed(gen, seed));
  if (kind == GQ_GEN_UNIFORM) {
    GQ_CURAND_TRY(xd ? curandGenerateUniformDouble(gen, xd, n) : curandGenerateUniform(gen, xf, n));
  } else if (n % 2 == 0) { // cuRAND's normal generators fill pairs
    GQ_CURAND_TRY(xd ? curandGenerateNormalDouble(gen, xd, n, 0.0, 1.0) : curandGenerateNormal(gen, xf, n, 0.0f, 1.0f));
  } else {
    if (n > 1)
      GQ_CURAND_TRY(xd ? curandGenerateNormalDouble(gen, xd, n - 1, 0.0, 1.0)
                       : curandGenerateNormal(gen, xf, n - 1, 0.0f, 1.0f));
    // The last element of an odd length: one more pair into scratch.
    void *tmp = static_cast<gq_reduce_acc *>(st->d_result) + 2;
    GQ_CURAND_TRY(xd ? curandGenerateNormalDouble(gen, (double *)tmp, 2, 0.0, 1.0)
                     : curandGenerateNormal(gen, (float *)tmp, 2, 0.0f, 1.0f));
    const size_t size = xd ? sizeof(double) : sizeof(float);
    if (cudaMemcpyAsync(xd ? (void *)(xd + n - 1) : (void *)(xf + n - 1), tmp, size, cudaMemcpyDeviceToDevice,
                        st->stream) != cudaSuccess)
      status = gq::cuda_status(cudaGetLastError(), "cudaMemcpyAsync");
  }
done:
  if (gen)
    curandDestroyGenerator(gen);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  return GQ_SUCCESS;
}
