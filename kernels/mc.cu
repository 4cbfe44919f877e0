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

void kernel_names(int cc_major, int dims, int dist, int sampler, int precision, std::string want[2])
{
  gq::with_rows(cc_major, [&](auto rows) {
    return McShape<decltype(rows)>::with(dims, [&](auto shape) {
      using S = decltype(shape);
      const char *real = real_name(precision);
      char gen[96], source[160], thread[64];
      snprintf(gen, sizeof gen, "gq::%s<%d, %s>", generator_name(dist, sampler), dims, real);
      snprintf(source, sizeof source, "gq::RandomSource<%s, %d, %s>", gen, dims, real);
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
  snprintf(kind, sizeof kind, "|mc|%d|%d|%s%s", p->dims, p->dist, real_name(p->precision),
           p->sampler == GQ_SAMPLER_SOBOL ? "|sobol" : "");
  std::string src, want[2];
  const int status = module_source(p->f, p->precision, p->sampler, &src);
  if (status != GQ_SUCCESS)
    return status;
  kernel_names(st->cc_major, p->dims, p->dist, p->sampler, p->precision, want);
  return gq::jit_load_integrand(st, p->f, kind, src, want, 2, m, info);
}

// The problem of p for D dimensions, as the kernel takes it.
template <int D, class Real, class Gen>
gq::Problem<gq::RandomSource<Gen, D, Real>, gq::LastBlock> problem(gq_cuda_state *st, const gq_mc_batch *p)
{
  gq::Problem<gq::RandomSource<Gen, D, Real>, gq::LastBlock> prob{};
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
  prob.out.scratch = st->d_partials;
  prob.out.counter = st->d_counter;
  prob.out.result = gq_result_slot(st, GQ_SLOT_CALL);
  return prob;
}

// One launch of kernel over p's samples (D dimensions), timed; the moments
// copied back.
template <int D>
int run_dims(gq_cuda_state *st, const gq_mc_batch *p, const void *kernel, int block, int items, gq_mc_moments *out,
             double *ms)
{
  auto go = [&](const auto &prob) -> int {
    const unsigned long long tile = (unsigned long long)block * items;
    unsigned grid = gq::resident_grid(st, kernel, block, (prob.src.quads + tile - 1) / tile);
    if (p->blocks > 0)
      grid = p->blocks < (unsigned)gq::MAX_BLOCKS ? p->blocks : (unsigned)gq::MAX_BLOCKS;
    return gq::launch_timed(st, kernel, grid, block, prob, out, ms);
  };
  const bool normal = p->dist == GQ_MC_NORMAL;
  if (p->sampler == GQ_SAMPLER_SOBOL)
    return p->precision == GQ_PRECISION_FLOAT ? go(problem<D, float, gq::SobolUniform<D, float>>(st, p))
                                              : go(problem<D, double, gq::SobolUniform<D, double>>(st, p));
  if (p->precision == GQ_PRECISION_FLOAT)
    return normal ? go(problem<D, float, gq::PhiloxNormal<D, float>>(st, p))
                  : go(problem<D, float, gq::PhiloxUniform<D, float>>(st, p));
  return normal ? go(problem<D, double, gq::PhiloxNormal<D, double>>(st, p))
                : go(problem<D, double, gq::PhiloxUniform<D, double>>(st, p));
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
  status = run(st, p, (const void *)gq::jit_kernel(m, FAST), out, &info->ms);
  if (status != GQ_SUCCESS || finite(*out))
    return status;
  const double first_ms = info->ms;
  status = run(st, p, (const void *)gq::jit_kernel(m, EXACT), out, &info->ms);
  info->ms += first_ms;
  return status;
}

// For tests without a GPU: generate and compile the Monte Carlo kernels of f.
extern "C" int gq_jit_mc_compile_only(const gq_integrand *f, int dims, int dist, int precision, int cc,
                                      size_t *cubin_size)
{
  std::string src, want[2], cubin, names[2];
  const int sampler = dist == GQ_MC_SOBOL_COMPILE ? GQ_SAMPLER_SOBOL : GQ_SAMPLER_PHILOX;
  if (sampler == GQ_SAMPLER_SOBOL)
    dist = GQ_MC_UNIFORM;
  int status = module_source(f, precision, sampler, &src);
  kernel_names(cc / 10, dims, dist, sampler, precision, want);
  if (status == GQ_SUCCESS)
    status = gq::jit_compile(cc / 10, cc % 10, src, want, 2, &cubin, names);
  *cubin_size = cubin.size();
  return status;
}
