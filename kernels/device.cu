// device.cu — opening and closing a CUDA device for a context.
#include <stdio.h>
#include <string.h>

#include <new>

#include "cuda_check.cuh"
#include "cuda_state.cuh"

extern "C" int gq_cuda_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); // no driver or no device: not an error, just none
    return 0;
  }
  return n;
}

static int open_state(gq_cuda_state *st, int device, char *name, size_t namelen, int *sms)
{
  GQ_CUDA_TRY(cudaSetDevice(device));
  cudaDeviceProp prop;
  GQ_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  st->device = device;
  st->sms = prop.multiProcessorCount;
  st->cc_major = prop.major;
  st->cc_minor = prop.minor;
  st->jit_cache = 1;
  if (name)
    snprintf(name, namelen, "%s", prop.name);
  if (sms)
    *sms = prop.multiProcessorCount;
  GQ_CUDA_TRY(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking));
  GQ_CUDA_TRY(cudaEventCreate(&st->start));
  GQ_CUDA_TRY(cudaEventCreate(&st->stop));
  GQ_CUDA_TRY(cudaMalloc(&st->d_acc, GQ_CUDA_ACC_SLOTS * sizeof(gq_csum)));
  GQ_CUDA_TRY(cudaMallocHost(&st->h_acc, GQ_CUDA_ACC_SLOTS * sizeof(gq_csum)));
  return GQ_SUCCESS;
}

extern "C" void gq_cuda_close(gq_cuda_state *st)
{
  if (!st)
    return;
  cudaSetDevice(st->device);
  gq_jit_release(st);
  gq_mc_release(st);
  if (st->d_acc) cudaFree(st->d_acc);
  if (st->h_acc) cudaFreeHost(st->h_acc);
  if (st->start) cudaEventDestroy(st->start);
  if (st->stop) cudaEventDestroy(st->stop);
  if (st->stream) cudaStreamDestroy(st->stream);
  delete st;
}

extern "C" void gq_cuda_set_jit_cache(gq_cuda_state *st, int enabled)
{
  if (st)
    st->jit_cache = enabled;
}

extern "C" int gq_cuda_open(int device, gq_cuda_state **out, char *name, size_t namelen, int *sms)
{
  *out = nullptr;
  const int count = gq_cuda_count();
  if (count == 0)
    return gq_fail(GQ_ENODEV, "no CUDA device is available");
  if (device < 0 || device >= count)
    return gq_fail(GQ_ENODEV, "there is no CUDA device %d (this machine has %d)", device, count);
  gq_cuda_state *st = new (std::nothrow) gq_cuda_state();
  if (!st)
    return gq_fail(GQ_ENOMEM, "cannot allocate the CUDA state");
  const int status = open_state(st, device, name, namelen, sms);
  if (status != GQ_SUCCESS) {
    gq_cuda_close(st);
    return status;
  }
  *out = st;
  return GQ_SUCCESS;
}
