/* samples.c — the check of gq_integrate_samples: every term of the rule
 * (sampled.h's formulas, scipy's, with its zero divisions) in long double,
 * one term per interval or panel, summed with Neumaier's compensation in
 * long double.  Another precision and another grouping of the same rule:
 * the uniform trapezoid is summed interval by interval here, not as the sum
 * of y with its ends taken off, and the spacing multiplies each term.
 *
 * Tolerance: 16 double ulp of the terms' parts (each term rounds a handful
 * of times in double, its weights before they cancel: |y0| (2 + h1/h0), not
 * |y0 (2 - h1/h0)|), plus 4 ulp of the result (the final products and sum),
 * plus 4 n of the smallest subnormal (below DBL_MIN rounding is absolute).
 * The reference's own error, ~2^-64 of the same scale, is far below. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "check.h"

typedef long double ld;

static ld at(const void *v, int is_float, size_t i)
{
  return is_float ? (ld)((const float *)v)[i] : (ld)((const double *)v)[i];
}

static ld div0(ld num, ld den) { return den != 0.0L ? num / den : 0.0L; }

/* Neumaier's sum: s + c, c the rounding errors of every addition. */
typedef struct {
  ld s, c, parts;
} ld_sum;

static void add(ld_sum *a, ld t, ld parts)
{
  const ld s = a->s + t;
  a->c += fabsl(a->s) >= fabsl(t) ? (a->s - s) + t : (t - s) + a->s;
  a->s = s;
  a->parts += parts;
}

/* Simpson's panel (x0, x1, x2) or, without x, (0, dx, 2 dx). */
static void simpson_panel(ld_sum *sum, ld h0, ld h1, ld y0, ld y1, ld y2)
{
  const ld hsum = h0 + h1, r = div0(h0, h1), inv = div0(1.0L, r);
  const ld w1 = hsum * div0(hsum, h0 * h1);
  add(sum, hsum / 6.0L * (y0 * (2.0L - inv) + y1 * w1 + y2 * (2.0L - r)),
      fabsl(hsum / 6.0L) * (fabsl(y0) * (2.0L + fabsl(inv)) + fabsl(y1 * w1) + fabsl(y2) * (2.0L + fabsl(r))));
}

static void reference(const void *y, const void *x, size_t n, double dx, gq_rule rule, int f, ld_sum *sum)
{
#define H(i) (x ? at(x, f, (i) + 1) - at(x, f, i) : (ld)dx)
  if (rule == GQ_RULE_TRAPEZOID || n == 2) { /* scipy's simpson of two samples is the trapezoid */
    for (size_t i = 0; i + 1 < n; i++) {
      const ld h = H(i), y0 = at(y, f, i), y1 = at(y, f, i + 1);
      add(sum, h * (y0 + y1) / 2.0L, fabsl(h) * (fabsl(y0) + fabsl(y1)) / 2.0L);
    }
    return;
  }
  for (size_t i = 0; i + 2 < n; i += 2)
    simpson_panel(sum, H(i), H(i + 1), at(y, f, i), at(y, f, i + 1), at(y, f, i + 2));
  if (n % 2 == 0) { /* Cartwright's correction of the last interval */
    const ld h0 = H(n - 3), h1 = H(n - 2);
    const ld y0 = at(y, f, n - 3), y1 = at(y, f, n - 2), y2 = at(y, f, n - 1);
    const ld alpha = div0(2.0L * h1 * h1 + 3.0L * h0 * h1, 6.0L * (h1 + h0));
    const ld beta = div0(h1 * h1 + 3.0L * h0 * h1, 6.0L * h0);
    const ld eta = div0(h1 * h1 * h1, 6.0L * h0 * (h0 + h1));
    add(sum, alpha * y2 + beta * y1 - eta * y0, fabsl(alpha * y2) + fabsl(beta * y1) + fabsl(eta * y0));
  }
#undef H
}

void gq_check_samples(const void *y, const void *x, size_t n, double dx, gq_rule rule, int is_float, double got,
                      gq_ref_samples *ref, gq_check_outcome *out)
{
  ld_sum sum = {0.0L, 0.0L, 0.0L};
  reference(y, x, n, dx, rule, is_float, &sum);
  ref->value = (double)(sum.s + sum.c);
  ref->tol = (double)(16.0L * DBL_EPSILON * sum.parts + 4.0L * DBL_EPSILON * fabsl(sum.s + sum.c)) +
             4.0 * (double)n * DBL_TRUE_MIN; /* subnormal samples round absolutely */
  gq_check_conclude(out, 1, GQ_SUCCESS, ref->tol);
  if (fabs(got - ref->value) <= ref->tol)
    return;
  if (isfinite(ref->tol)) {
    out->verdict = GQ_CHECK_FAILED;
    snprintf(out->message, sizeof out->message, "check failed: integral %.17g, reference %.17g, tolerance %.3g",
             got, ref->value, ref->tol);
  } else {
    out->verdict = GQ_CHECK_NOT_MADE;
    snprintf(out->message, sizeof out->message,
             "check could not be made: the reference (%.17g) or its error bound is beyond the double range", got);
  }
}
