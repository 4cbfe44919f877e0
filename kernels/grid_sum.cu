// grid_sum.cu — the trapezoid grid through the reduction engine for the
// built-in integrands, compiled ahead of time: one kernel instantiation per
// built-in and precision.  Expressions go to jit.cu.
#include "integrands.cuh"
#include "launch.cuh"
#include "nonfinite_scan.cuh"
#include "policy.cuh"
#include "transform_reduce.cuh"

extern "C" int gq_jit_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], gq_grid_info *info);
extern "C" int gq_jit_grid_nonfinite(gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first);

namespace {

using P = gq::GridPolicy;

template <class Real, class F>
int grid_sum_with(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], double *ms)
{
  using Map = gq::GridMap<Real, F>;
  Map map{p->a, p->h, F()};
  const void *kernel = (const void *)gq::transform_csum_kernel<P::BLOCK, P::ITEMS, 2, Map>;
  return gq::launch_grid_csum(st, kernel, P::BLOCK, P::ITEMS, (double)p->first,
                              (long long)(p->last - p->first + 1), &map, sums, ms);
}

// The fast functors first; a sum that comes out NaN or infinite is done again
// with CUDA's own functions (fast_sqrt is not finite for 0, +inf and
// subnormals), so what remains is the integrand's.
template <class Fast, class Exact>
int grid_sum_for(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
  if (p->precision == GQ_PRECISION_FLOAT)
    return grid_sum_with<float, Fast>(st, p, sums, &info->ms);
  int status = grid_sum_with<double, Fast>(st, p, sums, &info->ms);
  if (status != GQ_SUCCESS || gq::sums_finite(sums))
    return status;
  const double first_ms = info->ms;
  status = grid_sum_with<double, Exact>(st, p, sums, &info->ms);
  info->ms += first_ms;
  return status;
}

template <class Exact>
int nonfinite_for(gq_cuda_state *st, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  constexpr int BLOCK = 256;
  unsigned long long bad = 0, first_bad = 0;
  int status;
  if (p->precision == GQ_PRECISION_FLOAT) {
    gq::GridMap<float, Exact> map{p->a, p->h, Exact()};
    status = gq::launch_nonfinite(st, (const void *)gq::nonfinite_scan_kernel<BLOCK, decltype(map)>, BLOCK,
                                  (double)p->first, (long long)(p->last - p->first + 1), &map, &bad, &first_bad);
  } else {
    gq::GridMap<double, Exact> map{p->a, p->h, Exact()};
    status = gq::launch_nonfinite(st, (const void *)gq::nonfinite_scan_kernel<BLOCK, decltype(map)>, BLOCK,
                                  (double)p->first, (long long)(p->last - p->first + 1), &map, &bad, &first_bad);
  }
  *count = bad;
  *first = p->first + first_bad;
  return status;
}

} // namespace

extern "C" int gq_cuda_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], gq_grid_info *info)
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
