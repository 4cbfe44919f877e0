// grid_exact.cu — the built-in integrands' deterministic grid sums
// (TileExact x ExactWords, CUDA's correctly rounded functions), apart from
// grid_sum.cu because nvcc compiles this file with --fmad=false
// (Makefile.am): no a * b + c of an integrand is contracted into an FMA,
// so the terms f(x_i), x_i = fma(i, h, a), are the CPU's (compiled with
// -ffp-contract=off) wherever f uses only correctly rounded operations,
// and so are their exact sums.  The engine's own FMAs (TwoProd, the grid
// points) are explicit fma() calls, which the flag leaves alone.
#include "grid.cuh"
#include "integrands.cuh"
#include "engine/grid_source.cuh"
#include "engine/kernel.cuh"
#include "engine/exact_tile.cuh"

namespace {

template <class Rows, class Real, class F> const void *exact_kernel()
{
  using G = typename Rows::Grid;
  return (const void *)gq::reduce_kernel<G::BLOCK, G::ITEMS, 1, false, gq::PointMap<F>,
                                         gq::TileExact<gq::GRID_KEYS, G::ITEMS>, gq::GridSource<Real>, gq::ExactWords>;
}

template <class F> int exact_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_grid_info *info)
{
  return gq::with_rows(st->cc_major, [&](auto rows) {
    using Rows = decltype(rows);
    using G = typename Rows::Grid;
    return gq::grid_exact_launch(st,
                                 p->precision == GQ_PRECISION_FLOAT ? exact_kernel<Rows, float, F>()
                                                                    : exact_kernel<Rows, double, F>(),
                                 G::BLOCK, G::ITEMS, p, &info->ms);
  });
}

} // namespace

int gq::builtin_exact_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_grid_info *info)
{
  switch (p->f->id) {
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc) \
  case GQ_F_##ID:                                                 \
    return exact_sum<gq::exact::Integrand_##ID>(st, p, info);
#include "../src/lib/integrands.def"
#undef GQ_BUILTIN
  default:
    return gq_fail(GQ_EINVAL, "unknown built-in integrand %d", p->f->id);
  }
}
