/* samples.c — gq_integrate_samples: the integral of sampled data as scipy's
 * trapezoid and simpson compute it, on either backend.
 *
 *   trapezoid, spacing dx   dx (sum y - (y_0 + y_{n-1})/2): the plain
 *                           compensated sum of y (GQ_REDUCE_SUM, reduce.c)
 *                           with the two ends taken off in its accumulator
 *   trapezoid, abscissae x  the sum of the intervals' terms (a stencil:
 *                           cpu/sampled.c, kernels/samples.cu)
 *   simpson                 the sum of the panels' terms (times dx/3 for a
 *                           spacing), and for an even n Cartwright's
 *                           correction of the last interval, on the host from
 *                           the last three samples (sampled.h)
 *
 * A sum that is not finite is rerun classifying; then the inputs are asked
 * why (the statistics' first NaN and Inf: x not finite is bad input, y not
 * finite a failed computation naming the first such index; both finite, a
 * term overflowed).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "sampled.h"

/* The stencil's sum, fast pass then classifying if it is not finite. */
static int stencil_sum(gq_context *ctx, gq_sampled_problem *p, gq_sum_acc *acc)
{
  for (p->classify = 0;; p->classify = 1) {
    const int status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_sampled_sum(ctx->cuda, p, acc)
                                                       : gq_cpu_sampled_sum(p, acc);
    if (status != GQ_SUCCESS || p->classify || gq_sum_acc_finite(acc))
      return status;
  }
}

/* Elements [first, first + count) of v (the context's memory), widened. */
static int fetch(gq_context *ctx, const void *v, int is_float, size_t first, int count, double *out)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  unsigned char buf[3 * sizeof(double)];
  const int status = gq_copy_from(ctx, buf, (const unsigned char *)v + first * esize, (size_t)count * esize);
  for (int k = 0; k < count && status == GQ_SUCCESS; k++) {
    if (is_float) {
      float f;
      memcpy(&f, buf + k * esize, sizeof f);
      out[k] = f;
    } else {
      memcpy(&out[k], buf + k * esize, sizeof out[k]);
    }
  }
  return status;
}

/* The first index of v that is NaN or infinite (GQ_NO_INDEX: none), and
 * which it is. */
static int first_nonfinite(gq_context *ctx, const void *v, int is_float, size_t n, uint64_t *first,
                           const char **what)
{
  gq_stats_acc s;
  gq_stats_acc_zero(&s);
  const int status = is_float ? gq_stats_accumulate_f(ctx, &s, n, v) : gq_stats_accumulate(ctx, &s, n, v);
  *first = GQ_NO_INDEX;
  if (status != GQ_SUCCESS)
    return status;
  const struct {
    uint64_t index;
    const char *name;
  } kinds[] = {{s.first_nan, "NaN"}, {s.first_posinf, "Inf"}, {s.first_neginf, "-Inf"}};
  for (int k = 0; k < 3; k++)
    if (kinds[k].index < *first) {
      *first = kinds[k].index;
      *what = kinds[k].name;
    }
  return GQ_SUCCESS;
}

/* Why the integral is not finite. */
static int diagnose(gq_context *ctx, const void *y, const void *x, size_t n, int is_float, gq_samples_result *out)
{
  uint64_t first;
  const char *what = "";
  int status = x ? first_nonfinite(ctx, x, is_float, n, &first, &what) : GQ_SUCCESS;
  if (status != GQ_SUCCESS)
    return status;
  if (x && first != GQ_NO_INDEX)
    return gq_fail(GQ_EINVAL, "x[%llu] is %s: the abscissae must be finite",
                   (unsigned long long)first, what);
  status = first_nonfinite(ctx, y, is_float, n, &first, &what);
  if (status != GQ_SUCCESS)
    return status;
  if (first != GQ_NO_INDEX) {
    out->first_bad = first;
    return gq_fail(GQ_EDOM, "y[%llu] is %s: the integral is %g", (unsigned long long)first, what, out->value);
  }
  if (isnan(out->value))
    return gq_fail(GQ_EDOM, "terms overflowed with both signs (finite samples near DBL_MAX): the integral is NaN");
  return GQ_SUCCESS; /* an overflow: +-inf, as scipy's */
}

/* Take t off the accumulator (a term like the others: scaled when it must). */
static void take_off(gq_sum_acc *acc, double t)
{
  if (isfinite(t))
    gq_sum_acc_add_scaled(acc, -t, 0.0, 0);
}

int gq_integrate_samples(gq_context *ctx, const void *y, const void *x, size_t n, double dx, gq_rule rule,
                         int is_float, gq_samples_result *out)
{
  if (!out)
    return gq_null_arg(__func__, "out");
  out->value = out->abs_sum = NAN;
  out->n = n;
  out->first_bad = GQ_NO_INDEX;
  if (!ctx || !y)
    return gq_null_arg(__func__, ctx ? "y" : "ctx");
  if (rule != GQ_RULE_TRAPEZOID && rule != GQ_RULE_SIMPSON)
    return gq_fail(GQ_EINVAL, "%s: sampled data take the trapezoid or Simpson's rule, not %s", __func__,
                   gq_rule_name(rule));
  if (n < 2)
    return gq_fail(GQ_EINVAL, "%s: %zu sample%s: at least 2 are needed (scipy gives 0 for fewer)", __func__, n,
                   n == 1 ? "" : "s");
  if (!x && !isfinite(dx))
    return gq_fail(GQ_EINVAL, "%s: the spacing dx = %g is not finite", __func__, dx);
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  if (gq_check_span(__func__, "y", y, n, esize) != GQ_SUCCESS ||
      (x && gq_check_span(__func__, "x", x, n, esize) != GQ_SUCCESS))
    return GQ_EINVAL;
  if ((uintptr_t)y % esize || (uintptr_t)x % esize)
    return gq_fail(GQ_EINVAL, "%s: y and x must be aligned to their element size", __func__);

  const int simpson = rule == GQ_RULE_SIMPSON;
  gq_sum_acc acc;
  gq_sum_acc_zero(&acc);
  double last = 0.0; /* simpson, even n: the last interval */
  int status = GQ_SUCCESS;
  if (!simpson && !x) {
    const gq_array_reduce p = {GQ_REDUCE_SUM, is_float, 0, n, y, NULL};
    gq_reduce_acc r;
    double ends[2];
    status = gq_array_reduce_run(ctx, &p, &r, NULL);
    if (status == GQ_SUCCESS)
      status = fetch(ctx, y, is_float, 0, 1, &ends[0]);
    if (status == GQ_SUCCESS)
      status = fetch(ctx, y, is_float, n - 1, 1, &ends[1]);
    if (status != GQ_SUCCESS)
      return status;
    acc = r.sum;
    take_off(&acc, ends[0] / 2.0);
    take_off(&acc, ends[1] / 2.0);
  } else {
    gq_sampled_problem p = {simpson, is_float, 0, simpson ? (n - 1) / 2 : n - 1, y, x};
    if (simpson && n % 2 == 0) {
      /* the last three samples (two for n = 2) and their spacings */
      const int k = n == 2 ? 2 : 3;
      double ys[3], xs[3];
      status = fetch(ctx, y, is_float, n - (size_t)k, k, ys);
      if (status == GQ_SUCCESS && x)
        status = fetch(ctx, x, is_float, n - (size_t)k, k, xs);
      if (status != GQ_SUCCESS)
        return status;
      if (k == 2) /* scipy: 0.5 last_dx (y[-1] + y[-2]) */
        last = 0.5 * (x ? xs[1] - xs[0] : dx) * (ys[1] + ys[0]);
      else
        last = gq_simpson_last_interval(x ? xs[1] - xs[0] : dx, x ? xs[2] - xs[1] : dx, ys[0], ys[1], ys[2]);
    }
    if (p.panels > 0)
      status = stencil_sum(ctx, &p, &acc);
    if (status != GQ_SUCCESS)
      return status;
  }
  /* a spacing's factor: dx, or dx/3 for simpson (scipy's result *= dx / 3.0) */
  const double factor = x ? 1.0 : simpson ? dx / 3.0 : dx;
  /* The factor goes in before the scale (2^scale): an integral that fits a
   * double is given even when sum y does not (scipy's (y0 + y1) would be
   * inf); non-finite terms propagate as IEEE arithmetic would. */
  double propagated;
  gq_sum_finish(&acc, GQ_NAN_PROPAGATE, &propagated);
  const int e = gq_scale_exp_(acc.scale);
  const uint64_t bad = acc.nan_count + acc.posinf_count + acc.neginf_count;
  out->value = (bad ? factor * propagated : ldexp(factor * (acc.sum + acc.sum_err), e)) + last;
  out->abs_sum = ldexp(fabs(factor) * acc.abs_sum, e) + fabs(last);
  if (!isfinite(out->value))
    return diagnose(ctx, y, x, n, is_float, out);
  gq_clear_error();
  return GQ_SUCCESS;
}
