// mc.cu — gpuquad mc on the GPU: the Monte Carlo module of an expression
// (NVRTC, through jit_module.cuh's compiler and cache), the fused launch, and
// the cuRAND host-API path kept for comparison.
//
// The generated source is the emitted g(const Real *x) of D variables (twice:
// with device_math's fast sqrt and with CUDA's), a Map calling it, and four
// instantiations of mc_moments_kernel: {Philox source, buffer source} x
// {fast, exact}.  As for the trapezoid, a sum that comes out NaN or Inf is
// done again with the exact functions before it is reported.
#include <curand.h>
#include <stdio.h>
#include <string.h>

#include <new>
#include <string>

#include "jit_module.cuh"
#include "launch.cuh"
#include "policy.cuh"

#include "../src/lib/expr/expr.h"

enum { OUT_SLOTS = 64 }; // chunk results gathered before one copy back
#define CHUNK_VALUES (size_t(1) << 24) // host-api buffer: 128 MiB of doubles

struct gq_mc_state {
  gq_mc_moments *d_partials; // one per block
  unsigned int *d_ticket;
  gq_mc_moments *d_out, *h_out; // OUT_SLOTS results
  int capacity;                 // blocks d_partials can take
  curandGenerator_t gen;        // host-api only, created on first use
  void *d_buf;
};

namespace {

using P = gq::McPolicy;
enum { FUSED_FAST = 0, FUSED_EXACT = 1, BUFFER_FAST = 2, BUFFER_EXACT = 3 };

const char *real_name(int precision) { return precision == GQ_PRECISION_FLOAT ? "float" : "double"; }

std::string kernel_name(int dims, int dist, int precision, int buffer, int fast)
{
  const char *real = real_name(precision);
  char source[96], buf[320];
  if (buffer)
    snprintf(source, sizeof source, "gq::BufferSource<%d, %s>", dims, real);
  else
    snprintf(source, sizeof source, "gq::%s<%d, %s>", dist == GQ_MC_NORMAL ? "PhiloxNormal" : "PhiloxUniform", dims,
             real);
  snprintf(buf, sizeof buf, "&gq::mc_moments_kernel<%d, %d, %d, %s, %s, gq_jit::Map<%d> >", P::BLOCK, P::quads(dims),
           dims, real, source, fast);
  return buf;
}

void kernel_names(int dims, int dist, int precision, std::string want[4])
{
  want[FUSED_FAST] = kernel_name(dims, dist, precision, 0, 1);
  want[FUSED_EXACT] = kernel_name(dims, dist, precision, 0, 0);
  want[BUFFER_FAST] = kernel_name(dims, dist, precision, 1, 1);
  want[BUFFER_EXACT] = kernel_name(dims, dist, precision, 1, 0);
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
  std::string src, want[4];
  const int status = make_source(p->f, p->precision, &src);
  if (status != GQ_SUCCESS)
    return status;
  kernel_names(p->dims, p->dist, p->precision, want);
  return gq::jit_load(st, std::string(p->f->canonical) + kind, src, want, 4, m, info);
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
    GQ_CUDA_TRY(cudaMalloc(&mc->d_out, OUT_SLOTS * sizeof(gq_mc_moments)));
    GQ_CUDA_TRY(cudaMallocHost(&mc->h_out, OUT_SLOTS * sizeof(gq_mc_moments)));
  }
  *out = st->mc;
  return GQ_SUCCESS;
}

// A source's parameters as the kernel lays them out: [buf, stride,] seed or
// nothing, a[D], w[D] (all 8-byte members, so no padding).
struct source_bytes {
  alignas(16) unsigned char bytes[16 + 16 * GQ_MC_MAX_DIMS];
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

source_bytes buffer_params(const gq_mc_batch *p, const void *buf, unsigned long long stride)
{
  source_bytes s{};
  double a[GQ_MC_MAX_DIMS], w[GQ_MC_MAX_DIMS];
  for (int d = 0; d < p->dims; d++) { // cuRAND's normals are N(0, 1) already
    a[d] = p->dist == GQ_MC_NORMAL ? 0.0 : p->a[d];
    w[d] = p->dist == GQ_MC_NORMAL ? 1.0 : p->w[d];
  }
  memcpy(s.bytes, &buf, 8);
  memcpy(s.bytes + 8, &stride, 8);
  memcpy(s.bytes + 16, a, 8 * p->dims);
  memcpy(s.bytes + 16 + 8 * p->dims, w, 8 * p->dims);
  return s;
}

// One launch into slot `slot` of d_out (not waited for).
int launch(gq_cuda_state *st, gq_mc_state *mc, const void *kernel, int dims, unsigned blocks, source_bytes *src,
           double shift, unsigned long long first, unsigned long long quads, unsigned long long sample_end, int slot)
{
  const long long tile = (long long)P::BLOCK * P::quads(dims);
  int grid = gq::resident_grid(kernel, P::BLOCK, st->sms, (long long)((quads + tile - 1) / tile));
  if (blocks > 0)
    grid = (int)blocks;
  if (grid > mc->capacity)
    grid = mc->capacity;
  char map = 0; // the generated Map is empty
  gq_mc_moments *d_out = mc->d_out + slot;
  void *args[] = {src->bytes, &map, &shift, &first, &quads, &sample_end, &mc->d_partials, &mc->d_ticket, &d_out};
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
                      quads, end, 0);
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

int curand_status(curandStatus_t s, const char *what)
{
  if (s == CURAND_STATUS_SUCCESS)
    return GQ_SUCCESS;
  return gq_fail(s == CURAND_STATUS_ALLOCATION_FAILED ? GQ_ENOMEM : GQ_ECUDA, "%s: cuRAND status %d", what, (int)s);
}
#define GQ_CURAND_TRY(call)                                        \
  do {                                                             \
    const int gq_s_ = curand_status((call), #call);                \
    if (gq_s_ != GQ_SUCCESS)                                       \
      return gq_s_;                                                \
  } while (0)

int generate(gq_mc_state *mc, const gq_mc_batch *p, size_t count)
{
  const int dbl = p->precision != GQ_PRECISION_FLOAT;
  if (p->dist == GQ_MC_NORMAL) {
    if (dbl)
      GQ_CURAND_TRY(curandGenerateNormalDouble(mc->gen, (double *)mc->d_buf, count, 0.0, 1.0));
    else
      GQ_CURAND_TRY(curandGenerateNormal(mc->gen, (float *)mc->d_buf, count, 0.0f, 1.0f));
  } else {
    if (dbl)
      GQ_CURAND_TRY(curandGenerateUniformDouble(mc->gen, (double *)mc->d_buf, count));
    else
      GQ_CURAND_TRY(curandGenerateUniform(mc->gen, (float *)mc->d_buf, count));
  }
  return GQ_SUCCESS;
}

// cuRAND's host API fills the buffer with a chunk of samples (coordinate-
// major), the buffer kernel reduces it; chunk results are gathered OUT_SLOTS
// at a time and merged on the host in chunk order.  Timed as a whole.
int host_api(gq_cuda_state *st, gq_mc_state *mc, gq_jit_module *m, const gq_mc_batch *p, int which,
             gq_mc_moments *out, double *ms)
{
  if (!mc->gen) {
    GQ_CURAND_TRY(curandCreateGenerator(&mc->gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    GQ_CUDA_TRY(cudaMalloc(&mc->d_buf, CHUNK_VALUES * sizeof(double)));
  }
  GQ_CURAND_TRY(curandSetStream(mc->gen, st->stream));
  GQ_CURAND_TRY(curandSetPseudoRandomGeneratorSeed(mc->gen, p->seed));
  GQ_CURAND_TRY(curandSetGeneratorOffset(mc->gen, p->first * (unsigned long long)p->dims));
  const unsigned long long per_chunk = CHUNK_VALUES / p->dims / 4 * 4;
  *out = gq_mc_moments_zero();
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  int slot = 0;
  for (unsigned long long done = 0; done < p->count;) {
    const unsigned long long n = p->count - done < per_chunk ? p->count - done : per_chunk;
    const unsigned long long stride = (n + 3) / 4 * 4; // cuRAND's normals come in pairs
    int status = generate(mc, p, stride * p->dims);
    if (status != GQ_SUCCESS)
      return status;
    source_bytes src = buffer_params(p, mc->d_buf, stride);
    status = launch(st, mc, (const void *)gq::jit_kernel(m, which), p->dims, p->blocks, &src, p->shift, 0,
                    stride / 4, n, slot);
    if (status != GQ_SUCCESS)
      return status;
    done += n;
    if (++slot == OUT_SLOTS || done == p->count) {
      if (done == p->count)
        GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
      GQ_CUDA_TRY(cudaMemcpyAsync(mc->h_out, mc->d_out, slot * sizeof(gq_mc_moments), cudaMemcpyDeviceToHost,
                                  st->stream));
      GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
      for (int k = 0; k < slot; k++)
        gq_mc_moments_merge(out, mc->h_out[k]);
      slot = 0;
    }
  }
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms = elapsed;
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
  const int buffer = p->method == GQ_MC_HOST_API;
  auto run = [&](int fast, double *ms) {
    const int which = buffer ? (fast ? BUFFER_FAST : BUFFER_EXACT) : (fast ? FUSED_FAST : FUSED_EXACT);
    return buffer ? host_api(st, mc, m, p, which, out, ms) : fused(st, mc, m, p, which, out, ms);
  };
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
  if (mc->gen) curandDestroyGenerator(mc->gen);
  if (mc->d_buf) cudaFree(mc->d_buf);
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
  std::string src, want[4], cubin, names[4];
  int status = make_source(f, precision, &src);
  kernel_names(dims, dist, precision, want);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, 4, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
