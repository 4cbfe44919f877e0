/* reduce_ref.h — exact references for the data reductions, computed by the
 * tests themselves (double-double sums, long double two-pass moments), and
 * one routine that checks every reduction of a context against them with
 * explicit tolerances.  Shared by t_reduce_cpu and t_reduce_gpu.
 *
 * Tolerances (u = 2^-53):
 *   sum, dot   2u|S| + 4 n u^2 sum|t|  (compensated: the result is S rounded,
 *              plus second-order terms)
 *   rms, rel.  8u relative (one compensated sum, a division, a sqrt); the
 *              GPU's one-shot calls (lite_rms, set by t_reduce_gpu) add plain
 *              doubles in their trees, within (L + 42)/2 u and (L + 40) u,
 *              L = 16 for doubles and 32 for floats (kernels/accumulators.cuh)
 *   mean       4u |mean|  (the compensated sum divided by n)
 *   variance   (n + 8) u var: gamma_n, the bound for any plain summation of
 *              the non-negative shifted squares; a naive sum of squares on
 *              1e7 +- 0.1 misses by ~1e-5 relative and fails it
 *   min, max, their indices, max|a-b|: exact
 *   L1, L2     (n + 8) u relative
 */
#ifndef GQ_REDUCE_REF_H
#define GQ_REDUCE_REF_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "exact_sum.h"
#include "tap.h"

static const double U = DBL_EPSILON / 2;
/* The context's one-shot rms is the GPU's lite accumulator (see above). */
static int lite_rms;

typedef struct {
  double sum, sum_abs, dot, dot_abs, rms, max_abs, relative;
  double mean, var, l1, l2, min, max;
  uint64_t argmin, argmax;
} exact_ref;

static inline dd dd_add_product(dd s, double a, double b)
{
  const double p = a * b;
  return dd_add(dd_add(s, p), fma(a, b, -p));
}

/* x, y as doubles (float data widened first by the caller). */
static inline void exact_reference(size_t n, const double *x, const double *y, exact_ref *r)
{
  dd s = {0, 0}, sa = {0, 0}, d = {0, 0}, da = {0, 0}, sq = {0, 0}, ref = {0, 0};
  memset(r, 0, sizeof *r);
  r->min = INFINITY;
  r->max = -INFINITY;
  r->argmin = r->argmax = GQ_NO_INDEX;
  for (size_t i = 0; i < n; i++) {
    s = dd_add(s, x[i]);
    sa = dd_add(sa, fabs(x[i]));
    if (y) {
      d = dd_add_product(d, x[i], y[i]);
      da = dd_add(da, fabs(x[i] * y[i]));
      const double diff = x[i] - y[i];
      sq = dd_add_product(sq, diff, diff);
      ref = dd_add_product(ref, x[i], x[i]);
      r->max_abs = fmax(r->max_abs, fabs(diff));
    }
    if (x[i] < r->min) { r->min = x[i]; r->argmin = i; }
    if (x[i] > r->max) { r->max = x[i]; r->argmax = i; }
  }
  r->sum = s.hi + s.lo;
  r->sum_abs = sa.hi;
  r->dot = d.hi + d.lo;
  r->dot_abs = da.hi;
  r->rms = n ? sqrt((sq.hi + sq.lo) / (double)n) : NAN;
  r->relative = sqrt((sq.hi + sq.lo) / (ref.hi + ref.lo));
  r->mean = n ? (double)((long double)s.hi / n + (long double)s.lo / n) : NAN;
  const long double mean = n ? ((long double)s.hi + (long double)s.lo) / (long double)n : 0;
  long double m2 = 0, l2 = 0;
  for (size_t i = 0; i < n; i++) {
    const long double e = (long double)x[i] - mean;
    m2 += e * e;
    l2 += (long double)x[i] * x[i];
  }
  r->var = n > 1 ? (double)(m2 / (long double)(n - 1)) : NAN;
  r->l1 = sa.hi + sa.lo;
  r->l2 = (double)sqrtl(l2);
}

static inline int close_to(double got, double want, double tol)
{
  return fabs(got - want) <= tol || (isnan(got) && isnan(want));
}

/* Poison a result before a call, so a field left unwritten shows. */
#define POISON(v) memset(&(v), 0xA5, sizeof(v))

/* Every reduction of ctx on (x, y) of n >= 1 elements (device or host pointers
 * as ctx wants; hx, hy the same data on the host as doubles). */
static inline void check_reductions(gq_context *ctx, const char *label, int is_float, size_t n, const void *x,
                                    const void *y, const double *hx, const double *hy)
{
  exact_ref e;
  exact_reference(n, hx, hy, &e);
  const double nd = (double)n;
  double v;
  POISON(v);
  int st = is_float ? gq_sum_f(ctx, n, x, &v) : gq_sum(ctx, n, x, &v);
  tap_ok(st == GQ_SUCCESS && close_to(v, e.sum, 2 * U * fabs(e.sum) + 4 * nd * U * U * e.sum_abs),
         "%s n=%zu: sum %.17g, exact %.17g", label, n, v, e.sum);
  POISON(v);
  st = is_float ? gq_dot_f(ctx, n, x, y, &v) : gq_dot(ctx, n, x, y, &v);
  tap_ok(st == GQ_SUCCESS && close_to(v, e.dot, 2 * U * fabs(e.dot) + 4 * nd * U * U * e.dot_abs),
         "%s n=%zu: dot %.17g, exact %.17g", label, n, v, e.dot);
  gq_rms_result r;
  POISON(r);
  st = is_float ? gq_rms_diff_f(ctx, n, x, y, &r) : gq_rms_diff(ctx, n, x, y, &r);
  const double L = is_float ? 32 : 16, rms_u = lite_rms ? (L + 42) / 2 : 8, rel_u = lite_rms ? L + 40 : 8;
  tap_ok(st == GQ_SUCCESS && r.n == n && close_to(r.rms, e.rms, rms_u * U * e.rms) && r.max_abs == e.max_abs &&
             close_to(r.relative, e.relative, rel_u * U * e.relative) && r.nan_count == 0 && r.inf_count == 0,
         "%s n=%zu: rms %.17g (exact %.17g), max %.17g (%.17g), relative %.17g (%.17g)", label, n, r.rms, e.rms,
         r.max_abs, e.max_abs, r.relative, e.relative);
  gq_stats_result s;
  POISON(s);
  st = is_float ? gq_stats_f(ctx, n, x, &s) : gq_stats(ctx, n, x, &s);
  const double gn = (nd + 8) * U;
  tap_ok(st == GQ_SUCCESS && s.n == n && s.total == n && s.nan_count == 0 && s.inf_count == 0 &&
             close_to(s.sum, e.sum, 2 * U * fabs(e.sum) + 4 * nd * U * U * e.sum_abs) &&
             close_to(s.mean, e.mean, 4 * U * fabs(e.mean)) && close_to(s.var_sample, e.var, gn * e.var) &&
             close_to(s.var_population, n > 1 ? e.var * (nd - 1) / nd : 0.0, n > 1 ? gn * e.var : 0.0) &&
             s.min == e.min && s.max == e.max && s.argmin == e.argmin && s.argmax == e.argmax &&
             close_to(s.l1, e.l1, gn * e.l1) && close_to(s.l2, e.l2, gn * e.l2) &&
             s.linf == fmax(fabs(e.min), fabs(e.max)),
         "%s n=%zu: stats mean %.17g (exact %.17g), var %.17g (%.17g), min %.17g@%llu max %.17g@%llu", label, n,
         s.mean, e.mean, s.var_sample, e.var, s.min, (unsigned long long)s.argmin, s.max,
         (unsigned long long)s.argmax);
}

#endif
