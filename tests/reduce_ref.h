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
 *   mean       4u |mean|  (within an ulp; the reference's own error)
 *   variance   (n + 8) u var against the long double two-pass reference,
 *              whose own error grows with n; a naive sum of squares on
 *              1e7 +- 0.1 misses by ~1e-5 relative and fails it.  Where the
 *              exact value is known (check_exact_stats: integers, whose
 *              mean and variances are exact rationals) the mean, the
 *              variances and the sums must be the correctly rounded doubles.
 *   overflow   check_overflow: results that fit are given (scaled sums),
 *              those beyond DBL_MAX are +-Inf, never NaN or a wrong finite
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

/* n doubles into the context's memory (device or host); NULL on failure. */
static inline void *ctx_copy(gq_context *ctx, const double *h, size_t n)
{
  void *d = NULL;
  if (gq_alloc(ctx, n * sizeof *h, &d) != GQ_SUCCESS)
    return NULL;
  if (gq_copy_to(ctx, d, h, n * sizeof *h) != GQ_SUCCESS) {
    gq_free(ctx, d);
    return NULL;
  }
  return d;
}

static inline int within_ulps(double got, double want, double ulps)
{
  return got == want || fabs(got - want) <= ulps * ulp_of(want);
}

/* Overflow: whenever the true result fits in a double it is given (the
 * intermediate sums, squares, differences and products are scaled); when it
 * does not, it is +-Inf — never NaN, never a wrong finite number. */
static inline void check_overflow(gq_context *ctx, const char *label)
{
  gq_stats_result s;
  double v;
  const double three[3] = {1e308, -1e308, 1e308};
  void *d = ctx_copy(ctx, three, 3);
  POISON(s);
  tap_ok(gq_stats(ctx, 3, d, &s) == GQ_SUCCESS && s.sum == 1e308 && s.mean == 1e308 / 3 &&
             isinf(s.var_sample) && s.var_sample > 0 && isinf(s.var_population) &&
             within_ulps(s.sd_sample, sqrt(4.0 / 3.0) * 1e308, 2) &&
             within_ulps(s.sd_population, sqrt(8.0 / 9.0) * 1e308, 2) && isinf(s.l1) &&
             within_ulps(s.l2, sqrt(3.0) * 1e308, 2) && s.min == -1e308 && s.argmin == 1 && s.argmax == 0,
         "%s: stats of 1e308, -1e308, 1e308: sum 1e308, mean %.17g, variances +Inf (overflow), sd %.17g / %.17g, "
         "L2 %.17g",
         label, s.mean, s.sd_sample, s.sd_population, s.l2);
  gq_free(ctx, d);
  const double pair[2] = {1.7e308, -1.7e308};
  d = ctx_copy(ctx, pair, 2);
  POISON(s);
  tap_ok(gq_stats(ctx, 2, d, &s) == GQ_SUCCESS && s.sum == 0.0 && s.mean == 0.0 && isinf(s.var_population) &&
             s.sd_population == 1.7e308 && isinf(s.sd_sample),
         "%s: stats of +-1.7e308: mean 0, population sd 1.7e308 (%.17g), variances +Inf", label, s.sd_population);
  gq_free(ctx, d);
  const double same[3] = {8e307, 8e307, 8e307};
  d = ctx_copy(ctx, same, 3);
  POISON(s);
  tap_ok(gq_stats(ctx, 3, d, &s) == GQ_SUCCESS && s.mean == 8e307 && s.var_sample == 0.0 && s.sum == INFINITY &&
             s.min == 8e307 && s.argmin == 0,
         "%s: stats of 3 x 8e307: mean 8e307 (%.17g), variance 0, sum +Inf (overflow)", label, s.mean);
  POISON(v);
  const int summed = gq_sum(ctx, 3, d, &v);
  tap_ok(summed == GQ_SUCCESS && v == INFINITY, "%s: sum of 3 x 8e307 is +Inf, not NaN (%g)", label, v);
  POISON(v);
  const int two = gq_sum(ctx, 2, d, &v);
  tap_ok(two == GQ_SUCCESS && v == 1.6e308, "%s: sum of 2 x 8e307 is 1.6e308 (%.17g)", label, v);
  gq_free(ctx, d);
  const double back[3] = {1e308, 1e308, -1e308}, ones[3] = {1e8, 1e8, 1e8};
  const double neg[3] = {-1e308, -1e308, 1e308};
  d = ctx_copy(ctx, back, 3);
  void *o = ctx_copy(ctx, ones, 3), *e = ctx_copy(ctx, neg, 3);
  POISON(v);
  tap_ok(gq_sum(ctx, 3, d, &v) == GQ_SUCCESS && v == 1e308, "%s: sum of 1e308, 1e308, -1e308 is 1e308 (%.17g)", label, v);
  POISON(v);
  tap_ok(gq_sum(ctx, 3, e, &v) == GQ_SUCCESS && v == -1e308, "%s: sum of -1e308, -1e308, 1e308 is -1e308 (%.17g)",
         label, v);
  gq_stats_acc sa;
  gq_stats_acc_init(&sa);
  POISON(s);
  tap_ok(gq_stats_accumulate(ctx, &sa, 3, d) == GQ_SUCCESS && gq_stats_finish(&sa, GQ_NAN_OMIT, &s) == GQ_SUCCESS &&
             s.sum == 1e308 && within_ulps(s.mean, 1e308 / 3, 1),
         "%s: stats accumulator, 1e308, 1e308, -1e308: sum 1e308, mean %.17g", label, s.mean);
  const double scaled[3] = {1e300, 1e300, -1e300};
  void *sc = ctx_copy(ctx, scaled, 3);
  POISON(v);
  tap_ok(gq_dot(ctx, 3, sc, o, &v) == GQ_SUCCESS && within_ulps(v, 1e308, 1),
         "%s: dot (1e300, 1e300, -1e300).(1e8, 1e8, 1e8) = 1e308 (%.17g), not Inf", label, v);
  const double big[2] = {1e200, 1e200}, pm[2] = {1e200, -1e200};
  void *b1 = ctx_copy(ctx, big, 2), *b2 = ctx_copy(ctx, pm, 2);
  POISON(v);
  tap_ok(gq_dot(ctx, 2, b1, b2, &v) == GQ_SUCCESS && v == 0.0,
         "%s: dot (1e200, 1e200).(1e200, -1e200) = 0 exactly (%g): products of 1e400 cancel", label, v);
  POISON(v);
  tap_ok(gq_dot(ctx, 2, b1, b1, &v) == GQ_SUCCESS && v == INFINITY, "%s: dot (1e200, 1e200)^2 = +Inf (overflow)", label);
  gq_rms_result r;
  POISON(r);
  tap_ok(gq_rms_diff(ctx, 1, b1, (const double *)b2 + 1, &r) == GQ_SUCCESS && r.rms == 2e200 && r.max_abs == 2e200 &&
             r.relative == 2.0 && r.n == 1,
         "%s: rms of 1e200 against -1e200 is 2e200 (%.17g), relative 2 (%.17g)", label, r.rms, r.relative);
  const double huge[1] = {1e308}, nhuge[1] = {-1e308};
  void *h1 = ctx_copy(ctx, huge, 1), *h2 = ctx_copy(ctx, nhuge, 1);
  POISON(r);
  tap_ok(gq_rms_diff(ctx, 1, h1, h2, &r) == GQ_SUCCESS && r.rms == INFINITY && r.max_abs == INFINITY &&
             r.relative == 2.0 && r.inf_count == 0 && r.n == 1,
         "%s: rms of 1e308 against -1e308: +Inf (overflow, not an infinite input), relative 2 (%.17g)", label,
         r.relative);
  /* Chunks whose totals are finite but whose merge overflows. */
  const double q[2] = {1e154, 1e154}, nq[2] = {-1e154, -1e154};
  void *q1 = ctx_copy(ctx, q, 2), *q2 = ctx_copy(ctx, nq, 2);
  gq_stats_acc_init(&sa);
  POISON(s);
  tap_ok(gq_stats_accumulate(ctx, &sa, 2, q1) == GQ_SUCCESS && gq_stats_accumulate(ctx, &sa, 2, q2) == GQ_SUCCESS &&
             gq_stats_finish(&sa, GQ_NAN_PROPAGATE, &s) == GQ_SUCCESS && s.mean == 0.0 &&
             within_ulps(s.var_sample, 4.0 / 3.0 * 1e308, 2) && isinf(s.var_population) == 0 &&
             within_ulps(s.var_population, 1e308, 2),
         "%s: chunks (1e154, 1e154) + (-1e154, -1e154): variance 4/3 1e308 (%.17g), population 1e308 (%.17g)", label,
         s.var_sample, s.var_population);
  gq_sum_acc su;
  gq_sum_acc_init(&su);
  gq_sum_accumulate(ctx, &su, 2, d);
  gq_sum_accumulate(ctx, &su, 1, (const double *)d + 2);
  tap_ok(gq_sum_finish(&su, GQ_NAN_PROPAGATE, &v) == GQ_SUCCESS && v == 1e308,
         "%s: sum accumulator, chunks (1e308, 1e308) + (-1e308): 1e308 (%.17g)", label, v);
  /* Data so small that their squares underflow: the sd, L2 and rms fit. */
  const double sub[3] = {1e-320, 2e-320, 3e-320}, t1[1] = {1e-200}, t3[1] = {3e-200};
  void *su3 = ctx_copy(ctx, sub, 3), *ta = ctx_copy(ctx, t1, 1), *tb = ctx_copy(ctx, t3, 1);
  POISON(s);
  tap_ok(gq_stats(ctx, 3, su3, &s) == GQ_SUCCESS && s.sd_sample == 1e-320 && s.mean == 2e-320 &&
             within_ulps(s.l2, sqrt(14.0) * 1e-320, 2e3) && s.var_sample == 0.0,
         "%s: stats of 1e-320, 2e-320, 3e-320: sd 1e-320 (%.17g), L2 %.17g (variance underflows to 0)", label,
         s.sd_sample, s.l2);
  POISON(r);
  tap_ok(gq_rms_diff(ctx, 1, ta, tb, &r) == GQ_SUCCESS && r.rms == fabs(1e-200 - 3e-200) && r.max_abs == r.rms &&
             within_ulps(r.relative, 2.0, 2),
         "%s: rms of 1e-200 against 3e-200: %.17g (squares underflow), relative %.17g", label, r.rms, r.relative);
  void *list[] = {d, o, e, sc, b1, b2, h1, h2, q1, q2, su3, ta, tb};
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++)
    gq_free(ctx, list[k]);
}

/* Integers c + i, i = 0..n-1, in a scrambled order: every statistic is an
 * exact rational, so the correctly rounded double is known.  The library
 * must give it: sum, mean, both variances and sds, L1 (all within an ulp of
 * exact, and here exactly the rounded value). */
static inline void check_exact_stats(gq_context *ctx, const char *label, size_t n, double c)
{
  double *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++)
    h[i] = c + (double)((i * 7919) % n); /* 7919 is prime: a permutation when n is not its multiple */
  void *d = ctx_copy(ctx, h, n);
  const double nd = (double)n, var_pop = (nd * nd - 1.0) / 12.0, var_sample = nd * (nd + 1.0) / 12.0;
  const double sum = nd * c + nd * (nd - 1.0) / 2.0, mean = c + (nd - 1.0) / 2.0;
  gq_stats_result s;
  POISON(s);
  tap_ok(gq_stats(ctx, n, d, &s) == GQ_SUCCESS && s.sum == sum && s.mean == mean && s.var_population == var_pop &&
             s.var_sample == var_sample && s.sd_population == sqrt(var_pop) && s.sd_sample == sqrt(var_sample) &&
             s.l1 == fabs(sum),
         "%s: %zu integers from %g: mean %.17g (%.17g), variances %.17g (%.17g), %.17g (%.17g): correctly rounded",
         label, n, c, s.mean, mean, s.var_sample, var_sample, s.var_population, var_pop);
  /* The same data in uneven chunks: the merges are exact, so the bits are
   * those of one pass (as they are for any thread count). */
  gq_stats_acc acc;
  gq_stats_acc_init(&acc);
  size_t at = 0, step = 1;
  while (at < n) {
    const size_t count = n - at < step ? n - at : step;
    gq_stats_accumulate(ctx, &acc, count, (const double *)d + at);
    at += count;
    step = step * 3 + 1;
  }
  gq_stats_result c2;
  POISON(c2);
  gq_stats_finish(&acc, GQ_NAN_PROPAGATE, &c2);
  tap_ok(c2.sum == s.sum && c2.mean == s.mean && c2.var_sample == s.var_sample &&
             c2.var_population == s.var_population && c2.l1 == s.l1 && c2.l2 == s.l2 && c2.argmin == s.argmin,
         "%s: %zu integers in chunks of 1, 4, 13, ...: the one-pass bits", label, n);
  gq_free(ctx, d);
  free(h);
}

#endif
