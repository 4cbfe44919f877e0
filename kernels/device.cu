// device.cu — opening and closing a CUDA device for a context.
#include <stdio.h>
#include <string.h>

#include <new>
#include <vector>

#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "launch_cache.cuh"
#include "engine/policy.cuh"

extern "C" int gq_cuda_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); // no driver or no device: not an error, just none
    return 0;
  }
  return n;
}

// The slow part of opening a device, for a background thread
// (src/lib/prestart.c): the runtime's start and the device's primary context
// (cudaSetDevice makes it), about 0.1 s each on an H200.  Nothing is
// reported, and the thread's own last error is left clear: gq_cuda_open,
// which follows on the caller's thread, checks everything again.
extern "C" void gq_cuda_warm(int device)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && device >= 0 && device < n && cudaSetDevice(device) == cudaSuccess)
    cudaFree(0);
  cudaGetLastError();
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
  GQ_CUDA_TRY(cudaStreamCreateWithFlags(&st->own_stream, cudaStreamNonBlocking));
  st->stream = st->own_stream;
  GQ_CUDA_TRY(cudaEventCreate(&st->start));
  GQ_CUDA_TRY(cudaEventCreate(&st->stop));
  GQ_CUDA_TRY(cudaMalloc(&st->d_sums, GQ_KEYS_MAX * sizeof(gq_csum)));
  GQ_CUDA_TRY(cudaMallocHost(&st->h_sums, GQ_KEYS_MAX * sizeof(gq_csum)));
  GQ_CUDA_TRY(cudaMalloc(&st->d_partials, gq::MAX_BLOCKS * sizeof(gq_reduce_acc)));
  {
    const size_t words = (size_t)gq::MAX_BLOCKS * GQ_LITE_PART_BYTES / 8;
    std::vector<unsigned long long> poison(words, GQ_POISON);
    GQ_CUDA_TRY(cudaMalloc(&st->d_lite_partials, words * 8));
    GQ_CUDA_TRY(cudaMemcpy(st->d_lite_partials, poison.data(), words * 8, cudaMemcpyHostToDevice));
  }
  GQ_CUDA_TRY(cudaMalloc(&st->d_counter, sizeof(unsigned)));
  GQ_CUDA_TRY(cudaMemset(st->d_counter, 0, sizeof(unsigned)));
  GQ_CUDA_TRY(cudaMalloc(&st->d_result, GQ_RESULT_SLOTS * sizeof(gq_reduce_acc)));
  GQ_CUDA_TRY(cudaMallocHost(&st->h_result, GQ_RESULT_SLOTS * sizeof(gq_reduce_acc)));
  GQ_CUDA_TRY(cudaHostAlloc(&st->h_mapped, sizeof(gq_reduce_acc), cudaHostAllocMapped));
  GQ_CUDA_TRY(cudaHostGetDevicePointer(&st->d_mapped, st->h_mapped, 0));
  GQ_CUDA_TRY(cudaHostAlloc(&st->h_done, sizeof *st->h_done, cudaHostAllocMapped));
  GQ_CUDA_TRY(cudaHostGetDevicePointer(&st->d_done, st->h_done, 0));
  *st->h_done = 0;
  GQ_CUDA_TRY(cudaMalloc(&st->d_seq, sizeof *st->d_seq));
  GQ_CUDA_TRY(cudaMemset(st->d_seq, 0, sizeof *st->d_seq));
  st->ticket = 0;
  return GQ_SUCCESS;
}

extern "C" void gq_cuda_close(gq_cuda_state *st)
{
  if (!st)
    return;
  cudaSetDevice(st->device);
  gq_jit_release(st);
  gq_launch_cache_release(st);
  gq_scan_release(st);
  gq_store_release(st);
  if (st->d_sums) cudaFree(st->d_sums);
  if (st->h_sums) cudaFreeHost(st->h_sums);
  if (st->d_partials) cudaFree(st->d_partials);
  if (st->d_tables) cudaFree(st->d_tables);
  if (st->d_lite_partials) cudaFree(st->d_lite_partials);
  if (st->d_counter) cudaFree(st->d_counter);
  if (st->d_result) cudaFree(st->d_result);
  if (st->h_result) cudaFreeHost(st->h_result);
  if (st->h_exact) cudaFreeHost(st->h_exact);
  if (st->d_exact) cudaFree(st->d_exact);
  if (st->h_mapped) cudaFreeHost(st->h_mapped);
  if (st->h_done) cudaFreeHost(st->h_done);
  if (st->d_seq) cudaFree(st->d_seq);
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 2; i++) {
      if (st->h_stage[k][i]) cudaFreeHost(st->h_stage[k][i]);
      if (st->d_stage[k][i]) cudaFree(st->d_stage[k][i]);
    }
    cudaEvent_t *events[] = {&st->copied[k], &st->done[k], &st->copy_start[k], &st->copy_stop[k],
                             &st->kernel_start[k], &st->kernel_stop[k]};
    for (cudaEvent_t *e : events)
      if (*e) cudaEventDestroy(*e);
  }
  if (st->copy_stream) cudaStreamDestroy(st->copy_stream);
  if (st->start) cudaEventDestroy(st->start);
  if (st->stop) cudaEventDestroy(st->stop);
  if (st->own_stream) cudaStreamDestroy(st->own_stream);
  delete st;
}

extern "C" void gq_cuda_set_stream(gq_cuda_state *st, void *stream)
{
  st->stream = stream ? static_cast<cudaStream_t>(stream) : st->own_stream;
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

// ---- memory for the data reductions ---------------------------------------
extern "C" int gq_cuda_alloc(gq_cuda_state *st, size_t bytes, void **ptr)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaMalloc(ptr, bytes ? bytes : 1)); // cudaMalloc aligns to 256 bytes
  return GQ_SUCCESS;
}

extern "C" void gq_cuda_free(gq_cuda_state *st, void *ptr)
{
  cudaSetDevice(st->device);
  cudaFree(ptr);
}

extern "C" int gq_cuda_copy_to(gq_cuda_state *st, void *dst, const void *src, size_t bytes)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_copy_from(gq_cuda_state *st, void *dst, const void *src, size_t bytes)
{
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  return GQ_SUCCESS;
}
