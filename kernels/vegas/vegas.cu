// vegas.cu — VEGAS+ passes on a CUDA context (internal.h, gq_cuda_vegas).
// The expression's module (jit.cu's source) with vegas.cuh appended, its four
// kernels {fast, exact functions} x {warp-aggregated, shared-memory training
// bins}, compiled by NVRTC and cached like the other problems' (gq::jit_load),
// loaded once a run.  The hypercubes' counts, offsets, sums and spreads stay
// on the device from pass to pass (alloc.cu computes the totals and the next
// allocation there); a pass sends the grids' edges up and brings the training
// cells and a few totals back.  A sum that comes out NaN or Inf is done again
// with the exact functions, as mc.cu does.
#include <stdio.h>
#include <string.h>

#include <new>

#include <string>

#include "../cuda_check.cuh"
#include "../jit_module.cuh"
#include "alloc.cuh"
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

} // namespace

// A run's tables on the device (internal.h, gq_cuda_vegas): allocated and
// the module loaded once, the hypercubes' arrays resident between passes;
// the training cells and the totals come back through pinned memory, the
// edges go up through it.
struct gq_cuda_vegas {
  gq_cuda_state *st = nullptr;
  gq_jit_module *m = nullptr;
  bool shared = false;
  int dims = 0, bins = 0, strata = 0;
  unsigned hcubes = 0;
  unsigned long long per_pass = 0, max_quads = 0;
  double beta = 0.75;
  double *edges = nullptr, *sum = nullptr, *sum2 = nullptr, *cells = nullptr, *spread = nullptr;
  unsigned long long *counts = nullptr, *first_quad = nullptr, *quads = nullptr, *running = nullptr;
  gq::vegas::Totals *totals = nullptr;
  void *scratch = nullptr;
  double *h_edges = nullptr, *h_cells = nullptr; // pinned: edges; train then train_weight
  gq::vegas::Totals *h_totals = nullptr;         // pinned
};

namespace {

size_t cell_count(const gq_cuda_vegas *v) { return (size_t)v->dims * v->bins; }
size_t edge_count(const gq_cuda_vegas *v) { return (size_t)v->dims * (v->bins + 1); }

template <class T> cudaError_t alloc(T **p, size_t count) { return cudaMalloc((void **)p, count * sizeof(T)); }

template <int D> int launch(gq_cuda_vegas *v, const gq_vegas_pass *p, const void *kernel, double *ms)
{
  gq_cuda_state *st = v->st;
  gq::vegas::Pass<D> prob{};
  prob.edges = v->edges;
  prob.counts = v->counts;
  prob.first_quad = v->first_quad;
  prob.sum = v->sum;
  prob.sum2 = v->sum2;
  prob.train = v->cells;
  prob.train_weight = v->cells + cell_count(v);
  for (int d = 0; d < D; d++) {
    prob.a[d] = p->a[d];
    prob.w[d] = p->w[d];
  }
  prob.seed = p->seed;
  prob.hcubes = v->hcubes;
  prob.pass = p->pass;
  prob.bins = v->bins;
  prob.strata = v->strata;
  const size_t smem = v->shared ? 2 * cell_count(v) * sizeof(double) : 0;
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, smem) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  // the pass's quads are on the device (first_quad[hcubes]): the grid is cut
  // for the most a pass can have, and the kernel's loop reads the number
  const unsigned long long tiles = (v->max_quads + BLOCK - 1) / BLOCK,
                           resident = (unsigned long long)per_sm * st->sms;
  const unsigned grid = (unsigned)(tiles < resident ? (tiles ? tiles : 1) : resident);
  GQ_CUDA_TRY(cudaMemsetAsync(v->sum, 0, v->hcubes * sizeof(double), st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(v->sum2, 0, v->hcubes * sizeof(double), st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(v->cells, 0, 2 * cell_count(v) * sizeof(double), st->stream));
  void *args[] = {&prob};
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  GQ_CUDA_TRY(cudaLaunchKernel(kernel, dim3(grid), dim3(BLOCK), args, smem, st->stream));
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(gq::vegas::hcube_totals(v->sum, v->sum2, v->counts, v->hcubes, v->beta, v->spread, v->totals,
                                      v->scratch, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(v->h_totals, v->totals, sizeof *v->totals, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(v->h_cells, v->cells, 2 * cell_count(v) * sizeof(double), cudaMemcpyDeviceToHost,
                              st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  *ms += elapsed;
  return GQ_SUCCESS;
}

template <int D = 1> int run(gq_cuda_vegas *v, const gq_vegas_pass *p, const void *kernel, double *ms)
{
  if constexpr (D > GQ_MC_MAX_DIMS) {
    return gq_fail(GQ_EINVAL, "vegas: %d dimensions (1 to %d)", p->dims, GQ_MC_MAX_DIMS);
  } else {
    if (p->dims != D)
      return run<D + 1>(v, p, kernel, ms);
    return launch<D>(v, p, kernel, ms);
  }
}

} // namespace

extern "C" void gq_cuda_vegas_close(gq_cuda_vegas *v)
{
  if (!v)
    return;
  if (v->st)
    cudaSetDevice(v->st->device);
  void *device[] = {v->edges, v->sum, v->sum2, v->cells, v->spread, v->counts, v->first_quad, v->quads, v->running,
                    v->totals, v->scratch};
  for (void *b : device)
    if (b)
      cudaFree(b);
  void *host[] = {v->h_edges, v->h_cells, v->h_totals};
  for (void *b : host)
    if (b)
      cudaFreeHost(b);
  delete v;
}

extern "C" int gq_cuda_vegas_open(gq_cuda_state *st, const gq_vegas_pass *p, uint64_t per_pass, double beta,
                                  gq_cuda_vegas **out, gq_grid_info *info)
{
  *out = nullptr;
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
  gq_cuda_vegas *v = new (std::nothrow) gq_cuda_vegas;
  if (!v)
    return gq_fail(GQ_ENOMEM, "vegas: no memory for the device state");
  v->st = st;
  v->m = m;
  v->shared = shared;
  v->dims = p->dims;
  v->bins = p->bins;
  v->strata = p->strata;
  v->hcubes = p->hcubes;
  v->per_pass = per_pass;
  v->max_quads = per_pass / 4 + p->hcubes; // each hypercube's ceil adds less than one
  v->beta = beta;
  *out = v; // freed by the caller's close, whatever fails below
  const size_t hcubes = p->hcubes;
  GQ_CUDA_TRY(alloc(&v->edges, edge_count(v)));
  GQ_CUDA_TRY(alloc(&v->sum, hcubes));
  GQ_CUDA_TRY(alloc(&v->sum2, hcubes));
  GQ_CUDA_TRY(alloc(&v->cells, 2 * cells));
  GQ_CUDA_TRY(alloc(&v->spread, hcubes));
  GQ_CUDA_TRY(alloc(&v->counts, hcubes));
  GQ_CUDA_TRY(alloc(&v->first_quad, hcubes + 1));
  GQ_CUDA_TRY(alloc(&v->quads, hcubes + 1));
  GQ_CUDA_TRY(alloc(&v->running, hcubes));
  GQ_CUDA_TRY(alloc(&v->totals, 1));
  GQ_CUDA_TRY(cudaMalloc(&v->scratch, gq::vegas::alloc_scratch_bytes(p->hcubes)));
  GQ_CUDA_TRY(cudaMallocHost((void **)&v->h_edges, edge_count(v) * sizeof(double)));
  GQ_CUDA_TRY(cudaMallocHost((void **)&v->h_cells, 2 * cells * sizeof(double)));
  GQ_CUDA_TRY(cudaMallocHost((void **)&v->h_totals, sizeof *v->h_totals));
  // the first pass's tables (from pageable memory, once)
  GQ_CUDA_TRY(cudaMemcpyAsync(v->edges, p->edges, edge_count(v) * sizeof(double), cudaMemcpyHostToDevice,
                              st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(v->counts, p->counts, hcubes * sizeof(uint64_t), cudaMemcpyHostToDevice, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(v->first_quad, p->first_quad, (hcubes + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice,
                              st->stream));
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_vegas_sample(gq_cuda_vegas *v, const gq_vegas_pass *p, gq_vegas_totals *t,
                                    gq_grid_info *info)
{
  GQ_CUDA_TRY(cudaSetDevice(v->st->device));
  info->ms = 0.0;
  const int base = v->shared ? 2 : 0;
  int status = run(v, p, (const void *)gq::jit_kernel(v->m, base), &info->ms);
  // a sum that is not finite: the pass again with the exact functions
  if (status == GQ_SUCCESS && v->h_totals->nonfinite > 0)
    status = run(v, p, (const void *)gq::jit_kernel(v->m, base + 1), &info->ms);
  if (status != GQ_SUCCESS)
    return status;
  const size_t cells = cell_count(v);
  memcpy(p->train, v->h_cells, cells * sizeof(double));
  memcpy(p->train_weight, v->h_cells + cells, cells * sizeof(double));
  const gq::vegas::Totals &s = *v->h_totals;
  const double vol = 1.0 / (double)v->hcubes;
  t->estimate = gq_csum_value(s.mean) * vol;
  t->variance = gq_csum_value(s.var) * vol * vol;
  t->samples = s.samples;
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_vegas_next(gq_cuda_vegas *v, const gq_vegas_pass *p)
{
  gq_cuda_state *st = v->st;
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  // the previous copy out of h_edges finished at the last pass's synchronize
  memcpy(v->h_edges, p->edges, edge_count(v) * sizeof(double));
  GQ_CUDA_TRY(cudaMemcpyAsync(v->edges, v->h_edges, edge_count(v) * sizeof(double), cudaMemcpyHostToDevice,
                              st->stream));
  GQ_CUDA_TRY(gq::vegas::reallocate(v->spread, v->totals, v->per_pass, v->hcubes, v->running, v->counts, v->quads,
                                    v->first_quad, v->scratch, st->stream));
  return GQ_SUCCESS;
}

// One pass over the caller's tables, its sums and cells back (bench_vegas's
// comparison of the training-cell methods).
extern "C" int gq_cuda_vegas_pass(gq_cuda_state *st, const gq_vegas_pass *p, gq_grid_info *info)
{
  uint64_t samples = 0;
  for (uint32_t h = 0; h < p->hcubes; h++)
    samples += p->counts[h];
  gq_cuda_vegas *v = nullptr;
  int status = gq_cuda_vegas_open(st, p, samples, 0.75, &v, info);
  gq_vegas_totals t;
  if (status == GQ_SUCCESS)
    status = gq_cuda_vegas_sample(v, p, &t, info);
  if (status == GQ_SUCCESS) {
    if (cudaMemcpy(p->sum, v->sum, p->hcubes * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(p->sum2, v->sum2, p->hcubes * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
      status = gq_fail(GQ_ECUDA, "vegas: cannot copy the hypercubes' sums back (%s)",
                       cudaGetErrorString(cudaGetLastError()));
  }
  gq_cuda_vegas_close(v);
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
