// vegas.cu — gq_cuda_vegas_pass: one VEGAS+ pass on a CUDA context.  The
// expression's module (jit.cu's source) with vegas.cuh appended, its four
// kernels {fast, exact functions} x {warp-aggregated, shared-memory training
// bins}, compiled by NVRTC and cached like the other problems' (gq::jit_load).
// The pass's tables go up, the kernel runs, the sums come back; a sum that
// comes out NaN or Inf is done again with the exact functions, as mc.cu does.
#include <stdio.h>

#include <string>

#include "../cuda_check.cuh"
#include "../jit_module.cuh"
#include "vegas.cuh"

namespace {

using gq::vegas::BLOCK;
// Kernel k of the module: 2 bins + exact.
enum { KERNELS = 4 };
constexpr size_t SHARED_LIMIT = 48 * 1024; // without opting in to more

const char *real_name(int precision) { return precision == GQ_PRECISION_FLOAT ? "float" : "double"; }

void kernel_names(int dims, int precision, std::string want[KERNELS])
{
  for (int bins = 0; bins < 2; bins++)
    for (int exact = 0; exact < 2; exact++) {
      char buf[160];
      snprintf(buf, sizeof buf, "&gq::vegas::pass_kernel<%d, %s, gq_jit::Map<%d>, %d>", dims, real_name(precision),
               exact ? 0 : 1, bins);
      want[2 * bins + exact] = buf;
    }
}

int module_source(const gq_integrand *f, int precision, std::string *src)
{
  const int status = gq::jit_module_source(f, precision, src);
  if (status == GQ_SUCCESS)
    *src += "#include \"vegas.cuh\"\n";
  return status;
}

// The pass's device copies, freed in order on the stream.
struct Buffers {
  double *edges = nullptr, *sum = nullptr, *sum2 = nullptr, *train = nullptr, *train_weight = nullptr;
  unsigned long long *counts = nullptr, *first_quad = nullptr;
  cudaStream_t stream = nullptr;
  ~Buffers()
  {
    void *all[] = {edges, sum, sum2, train, train_weight, counts, first_quad};
    for (void *b : all)
      if (b)
        cudaFreeAsync(b, stream);
  }
};

template <class T> cudaError_t alloc(T **p, size_t count, cudaStream_t s)
{
  return cudaMallocAsync((void **)p, count * sizeof(T), s);
}

template <int D>
int launch(gq_cuda_state *st, const gq_vegas_pass *p, const Buffers &b, const void *kernel, bool shared, double *ms)
{
  gq::vegas::Pass<D> prob{};
  prob.edges = b.edges;
  prob.counts = b.counts;
  prob.first_quad = b.first_quad;
  prob.sum = b.sum;
  prob.sum2 = b.sum2;
  prob.train = b.train;
  prob.train_weight = b.train_weight;
  for (int d = 0; d < D; d++) {
    prob.a[d] = p->a[d];
    prob.w[d] = p->w[d];
  }
  prob.seed = p->seed;
  prob.quads = p->first_quad[p->hcubes];
  prob.hcubes = p->hcubes;
  prob.pass = p->pass;
  prob.bins = p->bins;
  prob.strata = p->strata;
  const size_t smem = shared ? 2 * (size_t)D * p->bins * sizeof(double) : 0;
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, smem) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  const unsigned long long tiles = (prob.quads + BLOCK - 1) / BLOCK, resident = (unsigned long long)per_sm * st->sms;
  const unsigned grid = (unsigned)(tiles < resident ? (tiles ? tiles : 1) : resident);
  const size_t cells = (size_t)D * p->bins;
  GQ_CUDA_TRY(cudaMemsetAsync(b.sum, 0, p->hcubes * sizeof(double), st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(b.sum2, 0, p->hcubes * sizeof(double), st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(b.train, 0, cells * sizeof(double), st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(b.train_weight, 0, cells * sizeof(double), st->stream));
  void *args[] = {&prob};
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(BLOCK), args, smem, st->stream));
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(p->sum, b.sum, p->hcubes * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(p->sum2, b.sum2, p->hcubes * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(p->train, b.train, cells * sizeof(double), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(p->train_weight, b.train_weight, cells * sizeof(double), cudaMemcpyDeviceToHost,
                              st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms += elapsed;
  return GQ_SUCCESS;
}

template <int D = 1>
int run(gq_cuda_state *st, const gq_vegas_pass *p, const Buffers &b, const void *kernel, bool shared, double *ms)
{
  if constexpr (D > GQ_MC_MAX_DIMS) {
    return gq_fail(GQ_EINVAL, "vegas: %d dimensions (1 to %d)", p->dims, GQ_MC_MAX_DIMS);
  } else {
    if (p->dims != D)
      return run<D + 1>(st, p, b, kernel, shared, ms);
    return launch<D>(st, p, b, kernel, shared, ms);
  }
}

bool finite_sums(const gq_vegas_pass *p)
{
  double t = 0.0;
  for (uint32_t h = 0; h < p->hcubes; h++)
    t += p->sum[h] + p->sum2[h];
  return t - t == 0.0;
}

} // namespace

extern "C" int gq_cuda_vegas_pass(gq_cuda_state *st, const gq_vegas_pass *p, gq_grid_info *info)
{
  if (!p->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to compile");
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  std::string src, want[KERNELS];
  int status = module_source(p->f, p->precision, &src);
  if (status != GQ_SUCCESS)
    return status;
  kernel_names(p->dims, p->precision, want);
  char kind[64];
  snprintf(kind, sizeof kind, "|vegas|%d|%s", p->dims, real_name(p->precision));
  gq_jit_module *m = nullptr;
  status = gq::jit_load_integrand(st, p->f, kind, src, want, KERNELS, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  const size_t cells = (size_t)p->dims * p->bins;
  const size_t shared_bytes = 2 * cells * sizeof(double); // train and train_weight
  const bool shared = p->bins_method == GQ_VEGAS_BINS_SHARED ||
                      (p->bins_method == GQ_VEGAS_BINS_AUTO && shared_bytes <= SHARED_LIMIT);
  if (shared && shared_bytes > SHARED_LIMIT)
    return gq_fail(GQ_EINVAL, "vegas: %zu training cells do not fit in shared memory", cells);
  Buffers b;
  b.stream = st->stream;
  GQ_CUDA_TRY(alloc(&b.edges, (size_t)p->dims * (p->bins + 1), st->stream));
  GQ_CUDA_TRY(alloc(&b.counts, p->hcubes, st->stream));
  GQ_CUDA_TRY(alloc(&b.first_quad, (size_t)p->hcubes + 1, st->stream));
  GQ_CUDA_TRY(alloc(&b.sum, p->hcubes, st->stream));
  GQ_CUDA_TRY(alloc(&b.sum2, p->hcubes, st->stream));
  GQ_CUDA_TRY(alloc(&b.train, cells, st->stream));
  GQ_CUDA_TRY(alloc(&b.train_weight, cells, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(b.edges, p->edges, (size_t)p->dims * (p->bins + 1) * sizeof(double),
                              cudaMemcpyHostToDevice, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(b.counts, p->counts, p->hcubes * sizeof(uint64_t), cudaMemcpyHostToDevice, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(b.first_quad, p->first_quad, ((size_t)p->hcubes + 1) * sizeof(uint64_t),
                              cudaMemcpyHostToDevice, st->stream));
  info->ms = 0.0;
  const int base = shared ? 2 : 0;
  status = run(st, p, b, (const void *)gq::jit_kernel(m, base), shared, &info->ms);
  if (status == GQ_SUCCESS && !finite_sums(p))
    status = run(st, p, b, (const void *)gq::jit_kernel(m, base + 1), shared, &info->ms);
  return status;
}

// For tests without a GPU: the VEGAS module of f compiled for sm_<cc>.
extern "C" int gq_jit_vegas_compile_only(const gq_integrand *f, int dims, int precision, int cc, size_t *cubin_size)
{
  std::string src, cubin, names[KERNELS], want[KERNELS];
  kernel_names(dims, precision, want);
  int status = module_source(f, precision, &src);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, KERNELS, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
