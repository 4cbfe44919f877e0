// mc.cu — gpuquad mc on the GPU: the Monte Carlo module of an expression
// (NVRTC, through jit_module.cuh's compiler and cache) and the fused launch.
// (cuRAND's host API, for comparison, is bench/bench_mc_curand.cu.)
//
// The generated source is the emitted g(const Real *x) of D variables (twice:
// with device_math's fast sqrt and with CUDA's), a Map calling it, and two
// instantiations of mc_moments_kernel with the Philox source: fast and
// exact.  As for the trapezoid, a sum that comes out NaN or Inf is done again
// with the exact functions before it is reported.
#include <stdio.h>
#include <string.h>

#include <new>
#include <string>

#include "jit_module.cuh"
#include "launch.cuh"
#include "policy.cuh"

#include "../src/lib/expr/expr.h"


struct gq_mc_state {
  gq_mc_moments *d_partials; // one per block
  unsigned int *d_ticket;
  gq_mc_moments *d_out, *h_out; // the batch's result
  int capacity;                 // blocks d_partials can take
};

namespace {

using P = gq::McPolicy;
enum { FUSED_FAST = 0, FUSED_EXACT = 1, KERNELS = 2 };

const char *real_name(int precision) { return precision == GQ_PRECISION_FLOAT ? "float" : "double"; }

std::string kernel_name(int dims, int dist, int precision, int fast)
{
  const char *real = real_name(precision);
  char source[96], buf[320];
  snprintf(source, sizeof source, "gq::%s<%d, %s>", dist == GQ_MC_NORMAL ? "PhiloxNormal" : "PhiloxUniform", dims,
           real);
  snprintf(buf, sizeof buf, "&gq::mc_moments_kernel<%d, %d, %d, %s, %s, gq_jit::Map<%d> >", P::BLOCK, P::quads(dims),
           dims, real, source, fast);
  return buf;
}

void kernel_names(int dims, int dist, int precision, std::string want[KERNELS])
{
  want[FUSED_FAST] = kernel_name(dims, dist, precision, 1);
  want[FUSED_EXACT] = kernel_name(dims, dist, precision, 0);
}

int make_source(const gq_integrand *f, int precision, std::string *src)
{
  const int use_float = precision == GQ_PRECISION_FLOAT;
  char *g = nullptr;
  const int status = gq_expr_emit_cuda(f->g, "g", use_float, &g);
  if (status != GQ_SUCCESS)
    return gq_fail(status, "cannot generate CUDA source for the expression");
  const std::string real = real_name(precision);
  *src = std::string("// gpuquad Monte Carlo kernel (generated)\n"
                     "#include \"mc_reduce.cuh\"\n") +
         gq::jit_g_namespaces(g) +
         "template <int FAST> struct Map {\n"
         "  __device__ __forceinline__ " + real + " operator()(const " + real + " *x) const {\n"
         "    return FAST ? fast::g(x) : exact::g(x);\n"
         "  }\n"
         "};\n"
         "}\n";
  free(g);
  return GQ_SUCCESS;
}

int load(gq_cuda_state *st, const gq_mc_batch *p, gq_jit_module **m, gq_grid_info *info)
{
  char kind[64];
  snprintf(kind, sizeof kind, "|mc|%d|%d|%s", p->dims, p->dist, real_name(p->precision));
  std::string src, want[KERNELS];
  const int status = make_source(p->f, p->precision, &src);
  if (status != GQ_SUCCESS)
    return status;
  kernel_names(p->dims, p->dist, p->precision, want);
  return gq::jit_load(st, std::string(p->f->canonical) + kind, src, want, KERNELS, m, info);
}

int state(gq_cuda_state *st, gq_mc_state **out)
{
  if (!st->mc) {
    gq_mc_state *mc = new (std::nothrow) gq_mc_state();
    if (!mc)
      return gq_fail(GQ_ENOMEM, "cannot allocate the Monte Carlo state");
    st->mc = mc;
    mc->capacity = 32 * st->sms; // the most blocks a multiprocessor holds, times SMs
    GQ_CUDA_TRY(cudaSetDevice(st->device));
    GQ_CUDA_TRY(cudaMalloc(&mc->d_partials, mc->capacity * sizeof(gq_mc_moments)));
    GQ_CUDA_TRY(cudaMalloc(&mc->d_ticket, sizeof(unsigned int)));
    GQ_CUDA_TRY(cudaMemset(mc->d_ticket, 0, sizeof(unsigned int)));
    GQ_CUDA_TRY(cudaMalloc(&mc->d_out, sizeof(gq_mc_moments)));
    GQ_CUDA_TRY(cudaMallocHost(&mc->h_out, sizeof(gq_mc_moments)));
  }
  *out = st->mc;
  return GQ_SUCCESS;
}

// The Philox source's parameters as the kernel lays them out: seed, a[D],
// w[D] (all 8-byte members, so no padding).
struct source_bytes {
  alignas(16) unsigned char bytes[8 + 16 * GQ_MC_MAX_DIMS];
};

source_bytes philox_params(const gq_mc_batch *p)
{
  source_bytes s{};
  unsigned long long seed = p->seed;
  memcpy(s.bytes, &seed, 8);
  memcpy(s.bytes + 8, p->a, 8 * p->dims);
  memcpy(s.bytes + 8 + 8 * p->dims, p->w, 8 * p->dims);
  return s;
}

// One launch into d_out (not waited for).
int launch(gq_cuda_state *st, gq_mc_state *mc, const void *kernel, int dims, unsigned blocks, source_bytes *src,
           double shift, unsigned long long first, unsigned long long quads, unsigned long long sample_end)
{
  const long long tile = (long long)P::BLOCK * P::quads(dims);
  int grid = gq::resident_grid(kernel, P::BLOCK, st->sms, (long long)((quads + tile - 1) / tile));
  if (blocks > 0)
    grid = (int)blocks;
  if (grid > mc->capacity)
    grid = mc->capacity;
  char map = 0; // the generated Map is empty
  void *args[] = {src->bytes, &map, &shift, &first, &quads, &sample_end, &mc->d_partials, &mc->d_ticket, &mc->d_out};
  GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(P::BLOCK), args, 0, st->stream));
  return GQ_SUCCESS;
}

int fused(gq_cuda_state *st, gq_mc_state *mc, gq_jit_module *m, const gq_mc_batch *p, int which,
          gq_mc_moments *out, double *ms)
{
  source_bytes src = philox_params(p);
  const unsigned long long first = p->first / 4, end = p->first + p->count;
  const unsigned long long quads = (end + 3) / 4 - first;
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  int status = launch(st, mc, (const void *)gq::jit_kernel(m, which), p->dims, p->blocks, &src, p->shift, first,
                      quads, end);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(mc->h_out, mc->d_out, sizeof(gq_mc_moments), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms = elapsed;
  *out = mc->h_out[0];
  return GQ_SUCCESS;
}

bool finite(const gq_mc_moments &m)
{
  const double t = gq_csum_value(m.s1) + gq_csum_value(m.s2);
  return t - t == 0.0;
}

} // namespace

extern "C" int gq_cuda_mc_batch(gq_cuda_state *st, const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info)
{
  if (!p->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to compile");
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  gq_mc_state *mc = nullptr;
  int status = state(st, &mc);
  if (status != GQ_SUCCESS)
    return status;
  gq_jit_module *m = nullptr;
  status = load(st, p, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  auto run = [&](int fast, double *ms) { return fused(st, mc, m, p, fast ? FUSED_FAST : FUSED_EXACT, out, ms); };
  status = run(1, &info->ms);
  if (status != GQ_SUCCESS || finite(*out))
    return status;
  const double first_ms = info->ms;
  status = run(0, &info->ms);
  info->ms += first_ms;
  return status;
}

void gq_mc_release(gq_cuda_state *st)
{
  gq_mc_state *mc = st->mc;
  if (!mc)
    return;
  if (mc->d_partials) cudaFree(mc->d_partials);
  if (mc->d_ticket) cudaFree(mc->d_ticket);
  if (mc->d_out) cudaFree(mc->d_out);
  if (mc->h_out) cudaFreeHost(mc->h_out);
  delete mc;
  st->mc = nullptr;
}

// For tests without a GPU: generate and compile the Monte Carlo module of f.
extern "C" int gq_jit_mc_compile_only(const gq_integrand *f, int dims, int dist, int precision, int cc,
                                      size_t *cubin_size)
{
  std::string src, want[KERNELS], cubin, names[KERNELS];
  int status = make_source(f, precision, &src);
  kernel_names(dims, dist, precision, want);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, KERNELS, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
