// grid_sum.cu — the trapezoid grid through the reduction engine: one kernel
// instantiation per built-in integrand and precision.
#include "cuda_check.cuh"
#include "cuda_state.cuh"
#include "integrands.cuh"
#include "policy.cuh"
#include "transform_reduce.cuh"

namespace {

template <class Real, class F>
int launch_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], double *ms)
{
  using P = gq::GridPolicy;
  using Map = gq::GridMap<Real, F>;
  auto kernel = gq::transform_csum_kernel<P::BLOCK, P::ITEMS, 2, Map>;
  const long long count = (long long)(p->last - p->first + 1);
  const long long tiles = (count + (long long)P::BLOCK * P::ITEMS - 1) / ((long long)P::BLOCK * P::ITEMS);
  const int grid = gq::resident_grid(kernel, P::BLOCK, st->sms, tiles);
  Map map{p->a, p->h, F()};

  GQ_CUDA_TRY(cudaSetDevice(st->device));
  GQ_CUDA_TRY(cudaEventRecord(st->start, st->stream));
  GQ_CUDA_TRY(cudaMemsetAsync(st->d_acc, 0, 2 * sizeof(gq_csum), st->stream));
  kernel<<<grid, P::BLOCK, 0, st->stream>>>((double)p->first, count, map, st->d_acc);
  GQ_CUDA_LAUNCH_CHECK();
  GQ_CUDA_TRY(cudaEventRecord(st->stop, st->stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(st->h_acc, st->d_acc, 2 * sizeof(gq_csum), cudaMemcpyDeviceToHost, st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(st->stream));
  float elapsed = 0.0f;
  GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, st->start, st->stop));
  if (ms)
    *ms = elapsed;
  // Thread key k summed the indices first + k (mod 2).
  for (int k = 0; k < 2; k++)
    sums[(p->first + (unsigned)k) & 1] = st->h_acc[k];
  return GQ_SUCCESS;
}

// The fast functors first; a sum that comes out NaN or infinite is done again
// with CUDA's own functions (fast_sqrt is not finite for 0, +inf and
// subnormals), so what remains is the integrand's.
template <class Fast, class Exact>
int grid_sum_for(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], double *ms)
{
  if (p->precision == GQ_PRECISION_FLOAT)
    return launch_grid_sum<float, Fast>(st, p, sums, ms);
  int status = launch_grid_sum<double, Fast>(st, p, sums, ms);
  if (status != GQ_SUCCESS)
    return status;
  const double total = gq_csum_value(sums[0]) + gq_csum_value(sums[1]);
  if (total - total == 0.0) // finite
    return GQ_SUCCESS;
  const double first_ms = *ms;
  status = launch_grid_sum<double, Exact>(st, p, sums, ms);
  *ms += first_ms;
  return status;
}

} // namespace

extern "C" int gq_cuda_grid_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_csum sums[2], double *ms)
{
  switch (p->integrand) {
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc) \
  case GQ_F_##ID:                                          \
    return grid_sum_for<gq::fast::Integrand_##ID, gq::exact::Integrand_##ID>(st, p, sums, ms);
#include "../src/lib/integrands.def"
#undef GQ_BUILTIN
  default:
    return gq_fail(GQ_EINVAL, "unknown built-in integrand %d", p->integrand);
  }
}
