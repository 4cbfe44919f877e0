// grid_sum.cu — grid sums through the engine: the launches shared with the
// expression kernels (jit.cu), and the built-in integrands, compiled ahead
// of time (one kernel per built-in, precision and set of functions).
#include "grid.cuh"
#include "integrands.cuh"
#include "exact_launch.cuh"
#include "engine/grid_source.cuh"
#include "engine/kernel.cuh"
#include "engine/launch.cuh"
#include "engine/tile_accumulators.cuh"

extern "C" int gq_jit_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info);
extern "C" int gq_jit_grid_nonfinite(gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first);

namespace {

// The source's fields, whatever the point's Real (its layout does not
// depend on it).
template <class Real> gq::GridSource<Real> source(const gq_grid_sum *p)
{
  gq::GridSource<Real> src{};
  src.first = (double)p->first;
  src.n = p->last - p->first + 1;
  src.a = p->a;
  src.h = p->h;
  return src;
}

} // namespace

// The sum (memset + kernel, timed with CUDA events) into the context's
// Atomic sums; thread key k summed the indices first + k (mod GRID_KEYS).
int gq::grid_sum_launch(gq_cuda_state *st, const void *kernel, int block, int items, const gq_grid_sum *p,
                        gq_csum sums[GRID_KEYS], double *ms)
{
  static_assert(GRID_KEYS <= GQ_KEYS_MAX, "the context holds the keys");
  Problem<GridSource<double>, Atomic> prob{};
  static_assert(sizeof(GridSource<double>) == sizeof(GridSource<float>), "one layout for every Real");
  prob.src = source<double>(p);
  prob.out.sums = st->d_sums;
  const unsigned grid = resident_grid(st, kernel, block, (prob.src.n + (unsigned long long)block * items - 1) /
                                                              ((unsigned long long)block * items));
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(st->d_sums, 0, GRID_KEYS * sizeof(gq_csum), st->stream));
  const int status = launch<false>(st, kernel, grid, block, prob, st->stream);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(st->h_sums, st->d_sums, GRID_KEYS * sizeof(gq_csum), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  if (ms)
    *ms = elapsed;
  const unsigned long long first = p->first % GRID_KEYS;
  for (unsigned k = 0; k < GRID_KEYS; k++)
    sums[(first + k) % GRID_KEYS] = st->h_sums[k];
  return GQ_SUCCESS;
}

void gq::exact_words_take(const unsigned long long *words, double nonfinite, gq_exact_sum *out)
{
  for (int k = 0; k < GQ_SUPERACC_WORDS; k++)
    out->acc.word[k] = (int64_t)words[k];
  gq_superacc_normalize(&out->acc);
  out->nonfinite = nonfinite;
}

unsigned gq::exact_grid(gq_cuda_state *st, const void *kernel, int block, unsigned long long tiles,
                        unsigned long long terms, unsigned asked)
{
  const unsigned long long least = (terms >> 29) + 1;
  unsigned long long grid = asked                 ? asked
                            : exact_forced_blocks ? exact_forced_blocks
                                                  : resident_grid(st, kernel, block, tiles);
  return (unsigned)(grid < least ? least : grid);
}

// Each key's words and non-finite sum into p->exact, by index class.
int gq::grid_exact_launch(gq_cuda_state *st, const void *kernel, int block, int items, const gq_grid_sum *p,
                          double *ms)
{
  constexpr size_t WORDS = (size_t)GRID_KEYS * GQ_SUPERACC_WORDS;
  Problem<GridSource<double>, ExactWords> prob{};
  prob.src = source<double>(p);
  const unsigned long long tile = (unsigned long long)block * items;
  const unsigned grid = exact_grid(st, kernel, block, (prob.src.n + tile - 1) / tile, prob.src.n);
  unsigned long long *h = static_cast<unsigned long long *>(malloc(WORDS * sizeof *h + GRID_KEYS * sizeof(double)));
  if (!h)
    return gq_fail(GQ_ENOMEM, "cannot allocate the exact grid sums");
  const int status = exact_run<GRID_KEYS, GRID_KEYS>(st, kernel, grid, block, prob, h, ms);
  if (status == GQ_SUCCESS) {
    const double *nonfinite = reinterpret_cast<const double *>(h + WORDS);
    const unsigned long long first = p->first % GRID_KEYS;
    for (unsigned k = 0; k < GRID_KEYS; k++)
      exact_words_take(h + k * GQ_SUPERACC_WORDS, nonfinite[k], &p->exact[(first + k) % GRID_KEYS]);
  }
  free(h);
  return status;
}

// The scan into the call's result slot, copied back.
int gq::grid_nonfinite_launch(gq_cuda_state *st, const void *kernel, int block, int items, const gq_grid_sum *p,
                              uint64_t *count, uint64_t *first)
{
  Problem<GridSource<double>, LastBlock> prob{};
  prob.src = source<double>(p);
  prob.out.scratch = st->d_partials;
  prob.out.counter = st->d_counter;
  prob.out.result = gq_result_slot(st, GQ_SLOT_CALL);
  const unsigned grid = resident_grid(st, kernel, block, (prob.src.n + (unsigned long long)block * items - 1) /
                                                              ((unsigned long long)block * items));
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  const int status = launch<false>(st, kernel, grid, block, prob, st->stream);
  if (status != GQ_SUCCESS)
    return status;
  NonfiniteCount *h = static_cast<NonfiniteCount *>(st->h_result) + 0;
  GQ_CUDA_TRY(cudaMemcpyAsync(h, prob.out.result, sizeof *h, cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  *count = h->count;
  *first = h->count ? h->first : p->last + 1; // the scan's indices are absolute
  return GQ_SUCCESS;
}

namespace {

template <class Rows, class Real, class F, bool SCAN> const void *builtin_kernel()
{
  using G = typename Rows::Grid;
  using Thread = typename std::conditional<SCAN, gq::NonfiniteThread, gq::TileCsum<gq::GRID_KEYS, G::ITEMS>>::type;
  using Level = typename std::conditional<SCAN, gq::LastBlock, gq::Atomic>::type;
  return (const void *)gq::reduce_kernel<G::BLOCK, G::ITEMS, 1, false, gq::PointMap<F>, Thread, gq::GridSource<Real>,
                                         Level>;
}

// The fast functors first; a sum that comes out NaN or infinite is done
// again with CUDA's own functions (fast_sqrt is not finite for 0, +inf and
// subnormals), so what remains is the integrand's.
template <class Fast, class Exact>
int grid_sum_for(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
  if (p->deterministic) // exact functions, exact sums, no contraction (grid_exact.cu)
    return gq::builtin_exact_sum(st, p, info);
  return gq::with_rows(st->cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    using G = typename Rows::Grid;
    if (p->precision == GQ_PRECISION_FLOAT)
      return gq::grid_sum_launch(st, builtin_kernel<Rows, float, Fast, false>(), G::BLOCK, G::ITEMS, p, sums, &info->ms);
    int status = gq::grid_sum_launch(st, builtin_kernel<Rows, double, Fast, false>(), G::BLOCK, G::ITEMS, p, sums,
                                     &info->ms);
    if (status != GQ_SUCCESS || gq::sums_finite(sums))
      return status;
    const double first_ms = info->ms;
    status = gq::grid_sum_launch(st, builtin_kernel<Rows, double, Exact, false>(), G::BLOCK, G::ITEMS, p, sums,
                                 &info->ms);
    info->ms += first_ms;
    return status;
  });
}

template <class Exact>
int nonfinite_for(gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  return gq::with_rows(st->cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    using G = typename Rows::Grid;
    const void *kernel = p->precision == GQ_PRECISION_FLOAT ? builtin_kernel<Rows, float, Exact, true>()
                                                            : builtin_kernel<Rows, double, Exact, true>();
    return gq::grid_nonfinite_launch(st, kernel, G::BLOCK, G::ITEMS, p, count, first);
  });
}

} // namespace

extern "C" int gq_cuda_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  switch (p->f->id) {
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc) \
  case GQ_F_##ID:                                                 \
    return grid_sum_for<gq::fast::Integrand_##ID, gq::exact::Integrand_##ID>(st, p, sums, info);
#include "../src/lib/integrands.def"
#undef GQ_BUILTIN
  default:
    return gq_jit_grid_sum(st, p, sums, info);
  }
}

extern "C" int gq_cuda_grid_nonfinite(gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  switch (p->f->id) {
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc) \
  case GQ_F_##ID:                                                 \
    return nonfinite_for<gq::exact::Integrand_##ID>(st, p, count, first);
#include "../src/lib/integrands.def"
#undef GQ_BUILTIN
  default:
    return gq_jit_grid_nonfinite(st, p, count, first);
  }
}
