// adaptive.cu — adaptive cubature's per-backend step on a CUDA context:
// the expression's module (jit.cu's source, gq::jit_module_source) with
// regions.cuh appended, one kernel per dimension count (CUDA's own
// functions, Map<0>: a region's estimate is final once accepted, with no
// fast pass to redo), compiled by NVRTC and cached like every expression
// kernel; device buffers for a pass's regions kept for the whole integral
// and grown on demand.  gq_cuda_adaptive_evaluate copies a batch of host
// regions in, runs one launch and copies the estimates, errors and axes
// back; the region store on the device (store.cu) launches on its own
// arrays through gq_cuda_adaptive_launch.
#include <stdio.h>

#include <new>
#include <string>

#include "../cuda_check.cuh"
#include "../jit_module.cuh"
#include "regions.cuh"

#include "../../src/lib/adaptive_internal.h"

struct gq_cuda_adaptive {
  gq_cuda_state *st;
  const void *kernel;
  int dims;
  size_t room; // regions the buffers hold
  double *d_centre, *d_half, *d_estimate, *d_error;
  unsigned char *d_axis;
};

namespace {

std::string kernel_name(int dims)
{
  char buf[128];
  snprintf(buf, sizeof buf, "&gq::adaptive::regions_kernel<%d, gq_jit::Map<0> >", dims);
  return buf;
}

int module_source(const gq_integrand *g, std::string *src)
{
  const int status = gq::jit_module_source(g, GQ_PRECISION_DOUBLE, src);
  if (status == GQ_SUCCESS)
    *src += "#include \"regions.cuh\"\n";
  return status;
}

void release(gq_cuda_adaptive *s)
{
  cudaFree(s->d_centre);
  cudaFree(s->d_half);
  cudaFree(s->d_estimate);
  cudaFree(s->d_error);
  cudaFree(s->d_axis);
  s->d_centre = s->d_half = s->d_estimate = s->d_error = nullptr;
  s->d_axis = nullptr;
  s->room = 0;
}

// Room for n regions: twice what was asked last, so a growing store
// reallocates O(log n) times.
int reserve(gq_cuda_adaptive *s, size_t n)
{
  if (n <= s->room)
    return GQ_SUCCESS;
  size_t room = s->room ? 2 * s->room : 4096;
  while (room < n)
    room *= 2;
  release(s);
  const size_t vec = room * (size_t)s->dims * sizeof(double);
  GQ_CUDA_TRY(cudaMalloc(&s->d_centre, vec));
  GQ_CUDA_TRY(cudaMalloc(&s->d_half, vec));
  GQ_CUDA_TRY(cudaMalloc(&s->d_estimate, room * sizeof(double)));
  GQ_CUDA_TRY(cudaMalloc(&s->d_error, room * sizeof(double)));
  GQ_CUDA_TRY(cudaMalloc(&s->d_axis, room));
  s->room = room;
  return GQ_SUCCESS;
}

} // namespace

extern "C" int gq_cuda_adaptive_open(gq_cuda_state *st, const gq_integrand *g, int dims, gq_cuda_adaptive **out,
                                     gq_grid_info *info)
{
  *out = nullptr;
  if (!g->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to compile");
  if (dims < 1 || dims > GQ_ADAPT_MAX_DIM)
    return gq_fail(GQ_EINVAL, "adaptive cubature in %d dimensions (1 to %d)", dims, GQ_ADAPT_MAX_DIM);
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  std::string src;
  int status = module_source(g, &src);
  if (status != GQ_SUCCESS)
    return status;
  const std::string want = kernel_name(dims);
  gq_jit_module *m = nullptr;
  char kind[32];
  snprintf(kind, sizeof kind, "|adaptive|%d", dims);
  status = gq::jit_load_integrand(st, g, kind, src, &want, 1, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  gq_cuda_adaptive *s = new (std::nothrow) gq_cuda_adaptive();
  if (!s)
    return gq_fail(GQ_ENOMEM, "cannot allocate an adaptive session");
  s->st = st;
  s->kernel = (const void *)gq::jit_kernel(m, 0);
  s->dims = dims;
  *out = s;
  return GQ_SUCCESS;
}

extern "C" struct gq_cuda_state *gq_cuda_adaptive_state(gq_cuda_adaptive *s) { return s->st; }

extern "C" int gq_cuda_adaptive_launch(gq_cuda_adaptive *s, const gq_adaptive_batch *b)
{
  gq_cuda_state *st = s->st;
  gq::adaptive::Batch batch{b->centre, b->half, b->estimate, b->error, b->axis, b->n};
  void *args[] = {&batch};
  // a block per WARPS warps' regions, at most what the device holds at once
  // (2048 threads a multiprocessor): the blocks then loop over the rest,
  // building their point tables once
  const int per_block = gq::adaptive::WARPS * (32 / gq::adaptive::lanes_of(s->dims)); // regions a block holds
  const unsigned long long want = (b->n + per_block - 1) / per_block,
                           most = (unsigned long long)st->sms * (2048 / (32 * gq::adaptive::WARPS)),
                           blocks = want < most ? want : most;
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  if (blocks > 0)
    GQ_CUDA_TRY(cudaLaunchKernel(s->kernel, dim3((unsigned)blocks), dim3(32 * gq::adaptive::WARPS), args, 0,
                                 st->stream));
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_adaptive_evaluate(gq_cuda_adaptive *s, const gq_adaptive_batch *b, double *ms)
{
  gq_cuda_state *st = s->st;
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  int status = reserve(s, b->n);
  if (status != GQ_SUCCESS)
    return status;
  const size_t vec = b->n * (size_t)s->dims * sizeof(double);
  GQ_CUDA_TRY(cudaMemcpyAsync(s->d_centre, b->centre, vec, cudaMemcpyHostToDevice, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(s->d_half, b->half, vec, cudaMemcpyHostToDevice, st->stream));
  const gq_adaptive_batch on_device = {b->g, b->dims, b->n, s->d_centre, s->d_half, s->d_estimate, s->d_error,
                                       s->d_axis};
  status = gq_cuda_adaptive_launch(s, &on_device);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaMemcpyAsync(b->estimate, s->d_estimate, b->n * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(b->error, s->d_error, b->n * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(b->axis, s->d_axis, b->n, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms = elapsed;
  return GQ_SUCCESS;
}

extern "C" void gq_cuda_adaptive_close(gq_cuda_adaptive *s)
{
  if (!s)
    return;
  cudaSetDevice(s->st->device);
  release(s);
  delete s;
}

// For tests without a GPU: g's adaptive kernel for dims compiled for sm_<cc>.
extern "C" int gq_jit_adaptive_compile_only(const gq_integrand *g, int dims, int cc, size_t *cubin_size)
{
  std::string src, cubin, names[1];
  const std::string want = kernel_name(dims);
  int status = module_source(g, &src);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, &want, 1, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
