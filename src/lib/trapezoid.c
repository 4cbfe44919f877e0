/* trapezoid.c — the composite trapezoid rule and its error estimate.
 *
 * T(h) = h * (f(a)/2 + sum_{i=1}^{n-1} f(x_i) + f(b)/2),  x_i = fma(i, h, a).
 *
 * The backend reduces the interior sum split by index parity, which costs
 * nothing extra per point and gives the same rule on spacing 2h in the same
 * pass: T(2h) uses f(a), the even-index interior points and f(b).  For any
 * convergence order p >= 1, err T(h) = |T(h) - T(2h)| / (2^p - 1) <= |T(h) - T(2h)|,
 * which is the bound the check uses; the Richardson estimate for smooth f
 * (p = 2) is a third of it.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "internal.h"

#define eval_in gq_integrand_eval_in

static int grid_sum(gq_context *ctx, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_grid_sum(ctx->cuda, p, sums, info);
  return gq_cpu_grid_sum(ctx, p, sums, info);
}

static int grid_nonfinite(gq_context *ctx, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  if (ctx->backend == GQ_BACKEND_CUDA)
    return gq_cuda_grid_nonfinite(ctx->cuda, p, count, first);
  return gq_cpu_grid_nonfinite(ctx, p, count, first);
}

/* Say where f is not finite: an endpoint, or how many grid points and the
 * first one. */
static int report_nonfinite(gq_context *ctx, const gq_integrand *f, gq_precision precision,
                            double a, double b, double h, uint64_t n, double fa, double fb,
                            gq_trapezoid_result *out)
{
  if (!isfinite(fa) || !isfinite(fb)) {
    const int at_a = !isfinite(fa);
    out->nonfinite_count = (uint64_t)!isfinite(fa) + (uint64_t)!isfinite(fb);
    out->nonfinite_x = at_a ? a : b;
    return gq_fail(GQ_EDOM,
                   "f is not finite at the endpoint %s = %.17g (f = %g); the trapezoid rule "
                   "evaluates both endpoints, so move the limit off the singularity",
                   at_a ? "a" : "b", at_a ? a : b, at_a ? fa : fb);
  }
  uint64_t count = 0, first = 0;
  if (n >= 2) {
    gq_grid_sum p = {f, precision, a, h, 1, n - 1};
    const int status = grid_nonfinite(ctx, &p, &count, &first);
    if (status != GQ_SUCCESS)
      return status;
  }
  if (count == 0) /* every point finite: the integral itself overflows */
    return gq_fail(GQ_EDOM, "the integral overflows a double (f is finite at every point but the "
                   "rule gives %g)", out->result);
  out->nonfinite_count = count;
  out->nonfinite_x = fma((double)first, h, a);
  return gq_fail(GQ_EDOM, "f is not finite at %llu of the %llu interior points; the first is x = %.17g",
                 (unsigned long long)count, (unsigned long long)(n - 1), out->nonfinite_x);
}

static int trapezoid(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n,
                     gq_precision precision, gq_trapezoid_result *out)
{
  memset(out, 0, sizeof *out);
  out->result = out->coarse = out->abserr = out->difference = NAN;
  out->n = n;
  out->backend = ctx->backend;
  out->nonfinite_x = NAN;
  if (!isfinite(a) || !isfinite(b))
    return gq_fail(GQ_EINVAL, "the limits must be finite numbers (a = %g, b = %g)", a, b);
  if (n < 1 || n > GQ_TRAPEZOID_MAX_N)
    return gq_fail(GQ_EINVAL, "the number of intervals must be between 1 and 2^53");
  if (precision != GQ_PRECISION_DOUBLE && precision != GQ_PRECISION_FLOAT)
    return gq_fail(GQ_EINVAL, "unknown precision %d", (int)precision);
  const double h = (b - a) / (double)n;
  if (!isfinite(h))
    return gq_fail(GQ_EINVAL, "b - a overflows a double (a = %g, b = %g)", a, b);
  /* Points closer than two doubles apart cannot be told apart: x_i would
   * repeat and the rule would not be the one asked for. */
  const double widest = fmax(fabs(a), fabs(b));
  if (a != b && fabs(h) < 2.0 * (nextafter(widest, INFINITY) - widest))
    return gq_fail(GQ_EINVAL,
                   "the interval [%.17g, %.17g] is too small to divide into %llu parts in double precision",
                   a, b, (unsigned long long)n);

  const double fa = eval_in(f, precision, a), fb = eval_in(f, precision, b);
  gq_csum sums[GQ_GRID_KEYS] = {gq_csum_zero(), gq_csum_zero()};
  _Static_assert(GQ_GRID_KEYS == 2, "the trapezoid weighs the two parities");
  gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
  if (n >= 2) {
    gq_grid_sum p = {f, precision, a, h, 1, n - 1};
    int status = grid_sum(ctx, &p, sums, &info);
    if (status != GQ_SUCCESS)
      return status;
  }
  out->kernel_ms = info.ms;
  out->compile_ms = info.compile_ms;
  out->jit = info.jit;
  for (int k = 0; k < 2; k++) { /* exact: the scale is a power of two */
    sums[k].s *= f->scale;
    sums[k].c *= f->scale;
  }

  gq_csum fine = sums[0];
  gq_csum_merge(&fine, sums[1]);
  gq_csum_add(&fine, 0.5 * fa);
  gq_csum_add(&fine, 0.5 * fb);
  out->result = h * gq_csum_value(fine);

  if (n >= 2) {
    /* Spacing 2h over [x_0, x_m], m the largest even index <= n; when n is odd
     * the last interval [x_{n-1}, b] keeps spacing h. */
    gq_csum coarse = sums[0];
    gq_csum_add(&coarse, 0.5 * fa);
    if (n % 2 == 0) {
      gq_csum_add(&coarse, 0.5 * fb);
      out->coarse = 2.0 * h * gq_csum_value(coarse);
    } else {
      const double fm = eval_in(f, precision, fma((double)(n - 1), h, a));
      gq_csum_add(&coarse, -0.5 * fm); /* x_{n-1} is in sums[0] with weight 1 */
      out->coarse = 2.0 * h * gq_csum_value(coarse) + h * (0.5 * fm + 0.5 * fb);
    }
    out->difference = fabs(out->result - out->coarse);
  } else {
    /* One interval: compare with the finer rule T(h/2); for p >= 1 the error of
     * T(h) is at most 2 |T(h) - T(h/2)|. */
    const double fmid = eval_in(f, precision, a + 0.5 * (b - a));
    out->coarse = h * (0.25 * fa + 0.5 * fmid + 0.25 * fb); /* halves first: no overflow */
    out->difference = 2.0 * fabs(out->result - out->coarse);
  }
  out->abserr = out->difference / 3.0;

  if (!isfinite(out->result))
    return report_nonfinite(ctx, f, precision, a, b, h, n, fa, fb, out);
  gq_clear_error();
  return GQ_SUCCESS;
}

int gq_integrate_trapezoid(gq_context *ctx, const gq_integrand *f, double a, double b,
                           uint64_t n, gq_precision precision, gq_trapezoid_result *out)
{
  if (!ctx || !f || !out)
    return gq_fail(GQ_EINVAL, "gq_integrate_trapezoid: NULL argument");
  int status = trapezoid(ctx, f, a, b, n, precision, out);
  if (status != GQ_EDOM || out->nonfinite_count != 0)
    return status;
  /* Every f(x_i) is finite but a sum of them overflowed (1e308 + x): the
   * rule for 2^-k f, 2^k >= 2n so that no sum of n finite values overflows,
   * times 2^k (exact), which overflows only if the integral does. */
  const int k = gq_sum_headroom(n);
  gq_integrand *small = NULL;
  const gq_trapezoid_result first = *out;
  if (gq_integrand_scaled(f, k, &small) != GQ_SUCCESS) {
    *out = first;
    return status;
  }
  status = trapezoid(ctx, small, a, b, n, precision, out);
  gq_integrand_free(small);
  out->result = ldexp(out->result, k);
  out->coarse = ldexp(out->coarse, k);
  out->difference = ldexp(out->difference, k);
  out->abserr = ldexp(out->abserr, k);
  out->kernel_ms += first.kernel_ms;
  out->compile_ms += first.compile_ms;
  if (status == GQ_SUCCESS && !isfinite(out->result))
    return gq_fail(GQ_EDOM, "the integral overflows a double (f is finite at every point)");
  return status;
}
