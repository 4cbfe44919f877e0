// mc.cu — gpuquad mc on the GPU: Monte Carlo as an engine problem — a
// counter-based random stream (engine/philox_source.cuh: Philox, uniform in
// a box or standard normal) x the expression's map x shifted moments of the
// values, four at a time (QuadMoments) x the fenced last block (LastBlock:
// fixed merge order, so the same seed, n and device give the same bits).
//
// With the Sobol sampler (issue 17) the generator is engine/sobol_source.cuh's
// SobolUniform, one batch per scrambling, in the same RandomSource.
//
// The expression's module is jit.cu's (one module source per expression and
// precision); its Monte Carlo kernels are two: fast and exact functions.  As
// for the grid, a sum that comes out NaN or Inf is done again with the
// exact functions before it is reported.
#include <stdio.h>

#include <string>
#include <type_traits>

#include "exact_launch.cuh"
#include "jit_module.cuh"
#include "engine/kernel.cuh"
#include "engine/launch.cuh"
#include "engine/philox_source.cuh"
#include "engine/sobol_source.cuh"
#include "engine/tile_accumulators.cuh"

namespace {

enum { FAST = 0, EXACT = 1 };

const char *real_name(int precision) { return precision == GQ_PRECISION_FLOAT ? "float" : "double"; }

// The shape of a problem of `dims` dimensions: fewer quads in flight per
// thread when the points alone take many registers.
template <class Rows> struct McShape {
  template <class F> static auto with(int dims, F f)
  {
    return dims <= 4 ? f(typename Rows::Mc()) : f(typename Rows::McWide());
  }
};

const char *generator_name(int dist, int sampler)
{
  return sampler == GQ_SAMPLER_SOBOL ? "SobolUniform" : dist == GQ_MC_NORMAL ? "PhiloxNormal" : "PhiloxUniform";
}

// The module's kernels: fast and exact functions, or (deterministic: a
// module of its own) the exact moments (QuadExact x ExactWords).
void kernel_names(int cc_major, int dims, int dist, int sampler, int precision, bool deterministic,
                  std::string want[2])
{
  gq::with_rows(cc_major, [&](auto rows) {
    return McShape<decltype(rows)>::with(dims, [&](auto shape) {
      using S = decltype(shape);
      const char *real = real_name(precision);
      char gen[96], source[160], thread[64];
      snprintf(gen, sizeof gen, "gq::%s<%d, %s>", generator_name(dist, sampler), dims, real);
      snprintf(source, sizeof source, "gq::RandomSource<%s, %d, %s>", gen, dims, real);
      if (deterministic) {
        snprintf(thread, sizeof thread, "gq::QuadExact<%d>", 4 * S::ITEMS);
        want[0] = gq::jit_kernel_name(S::BLOCK, S::ITEMS, 1, 0, thread, source, "gq::ExactWords");
        return 0;
      }
      snprintf(thread, sizeof thread, "gq::QuadMoments<%d>", 4 * S::ITEMS);
      for (int fast = 0; fast <= 1; fast++)
        want[fast ? FAST : EXACT] = gq::jit_kernel_name(S::BLOCK, S::ITEMS, 1, fast, thread, source, "gq::LastBlock");
      return 0;
    });
  });
}

// jit.cu's module, and the Sobol generator where the sampler needs it.
int module_source(const gq_integrand *f, int precision, int sampler, std::string *src)
{
  const int status = gq::jit_module_source(f, precision, src);
  if (status == GQ_SUCCESS && sampler == GQ_SAMPLER_SOBOL)
    *src += "#include \"sobol_source.cuh\"\n";
  return status;
}

int load(gq_cuda_state *st, const gq_mc_batch *p, gq_jit_module **m, gq_grid_info *info)
{
  char kind[64];
  snprintf(kind, sizeof kind, "|mc|%d|%d|%s%s%s", p->dims, p->dist, real_name(p->precision),
           p->sampler == GQ_SAMPLER_SOBOL ? "|sobol" : "", p->deterministic ? "|exact" : "");
  std::string src, want[2];
  const int status = module_source(p->f, p->precision, p->sampler, &src);
  if (status != GQ_SUCCESS)
    return status;
  kernel_names(st->cc_major, p->dims, p->dist, p->sampler, p->precision, p->deterministic, want);
  if (p->deterministic)
    return gq::jit_load_integrand(st, p->f, kind, GQ_JIT_EXACT_PREFIX + src, want, 1, m, info);
  return gq::jit_load_integrand(st, p->f, kind, src, want, 2, m, info);
}

// The problem of p for D dimensions, as the kernel takes it.
template <int D, class Real, class Gen, class Level>
gq::Problem<gq::RandomSource<Gen, D, Real>, Level> problem(gq_cuda_state *st, const gq_mc_batch *p)
{
  gq::Problem<gq::RandomSource<Gen, D, Real>, Level> prob{};
  if constexpr (std::is_same<Gen, gq::SobolUniform<D, Real>>::value) {
    for (int d = 0; d < D; d++) {
      prob.src.gen.scramble[d] = p->scramble[d];
      prob.src.gen.a[d] = p->a[d];
      prob.src.gen.w[d] = p->w[d];
    }
  } else {
    prob.src.gen.seed = p->seed;
  }
  if constexpr (std::is_same<Gen, gq::PhiloxUniform<D, Real>>::value)
    for (int d = 0; d < D; d++) {
      prob.src.gen.a[d] = p->a[d];
      prob.src.gen.w[d] = p->w[d];
    }
  const unsigned long long end = p->first + p->count;
  prob.src.first = p->first / 4;
  prob.src.quads = (end + 3) / 4 - prob.src.first;
  prob.src.sample_end = end;
  prob.src.shift = p->shift;
  if constexpr (std::is_same<Level, gq::LastBlock>::value) { // ExactWords: exact_run fills it
    prob.out.scratch = st->d_partials;
    prob.out.counter = st->d_counter;
    prob.out.result = gq_result_slot(st, GQ_SLOT_CALL);
  }
  return prob;
}

// The deterministic launch: s1 and s2 exact into exact[0] and exact[1]
// (the non-finite values' sum in exact[0]; share.c rounds them).
template <class Problem>
int exact_moments(gq_cuda_state *st, const void *kernel, unsigned grid, int block, const Problem &prob,
                  gq_exact_sum *exact, double *ms)
{
  constexpr size_t WORDS = 2 * (size_t)GQ_SUPERACC_WORDS;
  unsigned long long *h = static_cast<unsigned long long *>(malloc(WORDS * sizeof *h + sizeof(double)));
  if (!h)
    return gq_fail(GQ_ENOMEM, "cannot allocate the exact moments");
  const int status = gq::exact_run<2, 1>(st, kernel, grid, block, prob, h, ms);
  if (status == GQ_SUCCESS) {
    const double nonfinite = *reinterpret_cast<const double *>(h + WORDS);
    gq::exact_words_take(h, nonfinite, &exact[0]);
    gq::exact_words_take(h + GQ_SUPERACC_WORDS, 0.0, &exact[1]);
  }
  free(h);
  return status;
}

// One launch of kernel over p's samples (D dimensions), timed; the moments
// copied back.
template <int D>
int run_dims(gq_cuda_state *st, const gq_mc_batch *p, const void *kernel, int block, int items, gq_mc_moments *out,
             double *ms)
{
  auto go = [&](const auto &prob) -> int {
    const unsigned long long tile = (unsigned long long)block * items;
    const unsigned long long tiles = (prob.src.quads + tile - 1) / tile;
    unsigned grid = gq::resident_grid(st, kernel, block, tiles);
    if (p->blocks > 0)
      grid = p->blocks < (unsigned)gq::MAX_BLOCKS ? p->blocks : (unsigned)gq::MAX_BLOCKS;
    if constexpr (std::is_same<std::decay_t<decltype(prob.out)>, gq::ExactTarget>::value)
      return exact_moments(st, kernel, gq::exact_grid(st, kernel, block, tiles, 2 * p->count, p->blocks ? grid : 0),
                           block, prob, p->exact, ms);
    else
      return gq::launch_timed(st, kernel, grid, block, prob, out, ms);
  };
  const bool normal = p->dist == GQ_MC_NORMAL;
  auto with_level = [&](auto level) -> int {
    using L = decltype(level);
    if (p->sampler == GQ_SAMPLER_SOBOL)
      return p->precision == GQ_PRECISION_FLOAT ? go(problem<D, float, gq::SobolUniform<D, float>, L>(st, p))
                                                : go(problem<D, double, gq::SobolUniform<D, double>, L>(st, p));
    if (p->precision == GQ_PRECISION_FLOAT)
      return normal ? go(problem<D, float, gq::PhiloxNormal<D, float>, L>(st, p))
                    : go(problem<D, float, gq::PhiloxUniform<D, float>, L>(st, p));
    return normal ? go(problem<D, double, gq::PhiloxNormal<D, double>, L>(st, p))
                  : go(problem<D, double, gq::PhiloxUniform<D, double>, L>(st, p));
  };
  return p->deterministic ? with_level(gq::ExactWords()) : with_level(gq::LastBlock());
}

template <int D = 1>
int run(gq_cuda_state *st, const gq_mc_batch *p, const void *kernel, gq_mc_moments *out, double *ms)
{
  if constexpr (D > GQ_MC_MAX_DIMS) {
    return gq_fail(GQ_EINVAL, "mc: %d dimensions (1 to %d)", p->dims, GQ_MC_MAX_DIMS);
  } else {
    if (p->dims != D)
      return run<D + 1>(st, p, kernel, out, ms);
    return gq::with_rows(st->cc_major, [&](auto rows) {
      return McShape<decltype(rows)>::with(D, [&](auto shape) {
        using S = decltype(shape);
        return run_dims<D>(st, p, kernel, S::BLOCK, S::ITEMS, out, ms);
      });
    });
  }
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
  gq_jit_module *m = nullptr;
  int status = load(st, p, &m, info);
  if (status != GQ_SUCCESS)
    return status;
  // (a deterministic module's one kernel, at 0, has the exact functions)
  status = run(st, p, (const void *)gq::jit_kernel(m, FAST), out, &info->ms);
  if (status != GQ_SUCCESS || p->deterministic || finite(*out))
    return status;
  const double first_ms = info->ms;
  status = run(st, p, (const void *)gq::jit_kernel(m, EXACT), out, &info->ms);
  info->ms += first_ms;
  return status;
}

namespace {

// For tests without a GPU: generate and compile the Monte Carlo kernels of f
// (the deterministic module's, or the fast one's).
int compile_only(const gq_integrand *f, int dims, int dist, int precision, int cc, bool deterministic,
                 size_t *cubin_size)
{
  std::string src, want[2], cubin, names[2];
  const int sampler = dist == GQ_MC_SOBOL_COMPILE ? GQ_SAMPLER_SOBOL : GQ_SAMPLER_PHILOX;
  if (sampler == GQ_SAMPLER_SOBOL)
    dist = GQ_MC_UNIFORM;
  int status = module_source(f, precision, sampler, &src);
  kernel_names(cc / 10, dims, dist, sampler, precision, deterministic, want);
  if (deterministic)
    src = GQ_JIT_EXACT_PREFIX + src;
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, deterministic ? 1 : 2, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}

} // namespace

extern "C" int gq_jit_mc_compile_only(const gq_integrand *f, int dims, int dist, int precision, int cc,
                                      size_t *cubin_size)
{
  return compile_only(f, dims, dist, precision, cc, false, cubin_size);
}

// tests/t_exact_jit
extern "C" int gq_jit_mc_compile_exact_only(const gq_integrand *f, int dims, int dist, int precision, int cc,
                                            size_t *cubin_size)
{
  return compile_only(f, dims, dist, precision, cc, true, cubin_size);
}
