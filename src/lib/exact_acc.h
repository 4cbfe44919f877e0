/* exact_acc.h — the deterministic reductions' accumulator (gpuquad.h's
 * gq_exact_acc): exact sums (superacc.h) of the terms, their magnitudes and
 * squares, with the counts, extremes and first indices of the NaN policy.
 * How one element is added is written once here, for the CPU backend and
 * the host; merges are exact, so the result cannot depend on how the data
 * were cut (threads, chunks, blocks, ranks).
 *
 *   sum    s[0] = sum x,        s[1] = sum |x|
 *   dot    s[0] = sum x y,      s[1] = sum |x y|      (products exact)
 *   rms    s[0] = sum (a - b)^2 = sum a^2 - 2 a b + b^2 (three exact
 *          products: a - b itself may round or overflow), s[1] = sum a^2
 *   stats  s[0] = sum x,        s[1] = sum x^2,       s[2] = sum |x|
 *
 * Non-finite elements are counted as the double-double accumulators count
 * them (reduce_acc.h), never added. */
#ifndef GQ_EXACT_ACC_H
#define GQ_EXACT_ACC_H

#include <math.h>

#include "superacc.h"

struct gq_exact_acc {
  int kind;                 /* gq_exact_kind                                  */
  uint64_t n;               /* finite terms (pairs, values)                   */
  uint64_t nan_count, posinf_count, neginf_count; /* rms: posinf = every Inf  */
  uint64_t first_nan, first_posinf, first_neginf; /* stats: indices           */
  double min, max;          /* stats: over the finite values                  */
  uint64_t argmin, argmax;
  double max_abs;           /* rms: max |a - b|, +Inf where it overflows       */
  gq_superacc s[3];
};

GQ_HD void gq_exact_acc_zero(struct gq_exact_acc *a, int kind)
{
  a->kind = kind;
  a->n = a->nan_count = a->posinf_count = a->neginf_count = 0;
  a->first_nan = a->first_posinf = a->first_neginf = GQ_NO_INDEX;
  a->min = (double)INFINITY;
  a->max = -(double)INFINITY;
  a->argmin = a->argmax = GQ_NO_INDEX;
  a->max_abs = 0.0;
  for (int k = 0; k < 3; k++)
    gq_superacc_zero(&a->s[k]);
}

GQ_HD uint64_t gq_exact_acc_total(const struct gq_exact_acc *a)
{
  return a->n + a->nan_count + a->posinf_count + a->neginf_count;
}

/* A term t that is not finite (NaN, or an infinity), at index i. */
GQ_HD void gq_exact_acc_nonfinite_(struct gq_exact_acc *a, double t, uint64_t i)
{
  if (t != t) {
    a->nan_count++;
    a->first_nan = a->first_nan < i ? a->first_nan : i;
  } else if (t > 0) {
    a->posinf_count++;
    a->first_posinf = a->first_posinf < i ? a->first_posinf : i;
  } else {
    a->neginf_count++;
    a->first_neginf = a->first_neginf < i ? a->first_neginf : i;
  }
}

GQ_HD void gq_exact_add_sum(struct gq_exact_acc *a, double x, uint64_t i)
{
  if (!isfinite(x)) {
    gq_exact_acc_nonfinite_(a, x, i);
    return;
  }
  gq_superacc_add(&a->s[0], x);
  gq_superacc_add(&a->s[1], fabs(x));
  a->n++;
}

GQ_HD void gq_exact_add_dot(struct gq_exact_acc *a, double x, double y, uint64_t i)
{
  if (!isfinite(x) || !isfinite(y)) { /* NaN * y, 0 * Inf: NaN; else an infinity */
    gq_exact_acc_nonfinite_(a, x * y, i);
    return;
  }
  gq_superacc_add_product(&a->s[0], x, y, 0, 0);
  gq_superacc_add_product(&a->s[1], fabs(x), fabs(y), 0, 0);
  a->n++;
}

GQ_HD void gq_exact_add_rms(struct gq_exact_acc *a, double x, double y, uint64_t i)
{
  if (!isfinite(x) || !isfinite(y)) { /* the pair's a - b or a: NaN, else Inf */
    const double d = x - y;
    if (d != d || x != x)
      a->nan_count++;
    else
      a->posinf_count++;
    (void)i;
    return;
  }
  gq_superacc_add_product(&a->s[0], x, x, 0, 0);
  gq_superacc_add_product(&a->s[0], x, y, 1, 1);
  gq_superacc_add_product(&a->s[0], y, y, 0, 0);
  gq_superacc_add_product(&a->s[1], x, x, 0, 0);
  const double d = fabs(x - y);
  a->max_abs = d > a->max_abs ? d : a->max_abs;
  a->n++;
}

/* Indices only grow within one accumulator: a tie keeps the first. */
GQ_HD void gq_exact_add_stats(struct gq_exact_acc *a, double x, uint64_t i)
{
  if (!isfinite(x)) {
    gq_exact_acc_nonfinite_(a, x, i);
    return;
  }
  gq_superacc_add(&a->s[0], x);
  gq_superacc_add_product(&a->s[1], x, x, 0, 0);
  gq_superacc_add(&a->s[2], fabs(x));
  if (x < a->min) {
    a->min = x;
    a->argmin = i;
  }
  if (x > a->max) {
    a->max = x;
    a->argmax = i;
  }
  a->n++;
}

/* a += b, both with indices in one numbering; ties go to the smaller index,
 * so any merge order gives the same extremes. */
GQ_HD void gq_exact_acc_combine(struct gq_exact_acc *a, const struct gq_exact_acc *b)
{
  for (int k = 0; k < 3; k++)
    gq_superacc_merge(&a->s[k], &b->s[k]);
  if (b->min < a->min || (b->min == a->min && b->argmin < a->argmin)) {
    a->min = b->min;
    a->argmin = b->argmin;
  }
  if (b->max > a->max || (b->max == a->max && b->argmax < a->argmax)) {
    a->max = b->max;
    a->argmax = b->argmax;
  }
  a->max_abs = b->max_abs > a->max_abs ? b->max_abs : a->max_abs;
  a->n += b->n;
  a->nan_count += b->nan_count;
  a->posinf_count += b->posinf_count;
  a->neginf_count += b->neginf_count;
  a->first_nan = a->first_nan < b->first_nan ? a->first_nan : b->first_nan;
  a->first_posinf = a->first_posinf < b->first_posinf ? a->first_posinf : b->first_posinf;
  a->first_neginf = a->first_neginf < b->first_neginf ? a->first_neginf : b->first_neginf;
}

#endif /* GQ_EXACT_ACC_H */
