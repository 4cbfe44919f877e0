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
 * them (reduce_acc.h), never added.  The tally (counts, extremes) is plain
 * C for the kernels too; the host's per-element adds are here, the GPU's in
 * kernels/engine/exact_accumulator.cuh (expansions before the words). */
#ifndef GQ_EXACT_ACC_H
#define GQ_EXACT_ACC_H

#include <math.h>

#include "reduce_acc.h" /* the extremes' and first indices' merges */
#include "superacc.h"

/* Everything but the sums: counts, first indices and extremes, merged by
 * gq_exact_tally_combine on every level (CPU threads, GPU threads and
 * blocks, chunks). */
struct gq_exact_tally {
  uint64_t n;               /* finite terms (pairs, values)                   */
  uint64_t nan_count, posinf_count, neginf_count; /* rms: posinf = every Inf  */
  uint64_t first_nan, first_posinf, first_neginf; /* stats: indices           */
  double min, max;          /* stats: over the finite values                  */
  uint64_t argmin, argmax;
  double max_abs;           /* rms: max |a - b|, +Inf where it overflows       */
};

struct gq_exact_acc {
  int kind;                 /* gq_exact_kind                                  */
  int magnitudes;           /* sum, dot: also s[1] (0: the one-shot forms,
                               which do not report it, skip its work)         */
  struct gq_exact_tally t;
  gq_superacc s[3];
};

GQ_HD void gq_exact_tally_zero(struct gq_exact_tally *t)
{
  t->n = t->nan_count = t->posinf_count = t->neginf_count = 0;
  t->first_nan = t->first_posinf = t->first_neginf = GQ_NO_INDEX;
  t->min = (double)INFINITY;
  t->max = -(double)INFINITY;
  t->argmin = t->argmax = GQ_NO_INDEX;
  t->max_abs = 0.0;
}

GQ_HD void gq_exact_acc_zero(struct gq_exact_acc *a, int kind)
{
  a->kind = kind;
  a->magnitudes = 1;
  gq_exact_tally_zero(&a->t);
  for (int k = 0; k < 3; k++)
    gq_superacc_zero(&a->s[k]);
}

GQ_HD uint64_t gq_exact_acc_total(const struct gq_exact_acc *a)
{
  return a->t.n + a->t.nan_count + a->t.posinf_count + a->t.neginf_count;
}

/* A term t that is not finite (NaN, or an infinity), at index i. */
GQ_HD void gq_exact_tally_nonfinite(struct gq_exact_tally *a, double t, uint64_t i)
{
  if (t != t) {
    a->nan_count++;
    a->first_nan = gq_index_min_(a->first_nan, i);
  } else if (t > 0) {
    a->posinf_count++;
    a->first_posinf = gq_index_min_(a->first_posinf, i);
  } else {
    a->neginf_count++;
    a->first_neginf = gq_index_min_(a->first_neginf, i);
  }
}

/* A pair of rms that is not finite: NaN where a - b or a is, else Inf. */
GQ_HD void gq_exact_tally_rms_nonfinite(struct gq_exact_tally *a, double x, double y)
{
  const double d = x - y;
  if (d != d || x != x)
    a->nan_count++;
  else
    a->posinf_count++;
}

GQ_HD void gq_exact_tally_extremes(struct gq_exact_tally *a, double x, uint64_t i)
{
  gq_extremes_merge_(&a->min, &a->argmin, &a->max, &a->argmax, x, i, x, i);
}

/* a += b, indices in one numbering; ties go to the smaller index, so any
 * merge order gives the same extremes. */
GQ_HD void gq_exact_tally_combine(struct gq_exact_tally *a, const struct gq_exact_tally *b)
{
  gq_extremes_merge_(&a->min, &a->argmin, &a->max, &a->argmax, b->min, b->argmin, b->max, b->argmax);
  a->max_abs = b->max_abs > a->max_abs ? b->max_abs : a->max_abs;
  a->n += b->n;
  a->nan_count += b->nan_count;
  a->posinf_count += b->posinf_count;
  a->neginf_count += b->neginf_count;
  a->first_nan = gq_index_min_(a->first_nan, b->first_nan);
  a->first_posinf = gq_index_min_(a->first_posinf, b->first_posinf);
  a->first_neginf = gq_index_min_(a->first_neginf, b->first_neginf);
}

/* ---- one element, on the host (the GPU's kernel: exact_reduce.cu) ---- */
static inline void gq_exact_add_sum(struct gq_exact_acc *a, double x, uint64_t i)
{
  if (!isfinite(x)) {
    gq_exact_tally_nonfinite(&a->t, x, i);
    return;
  }
  gq_superacc_add(&a->s[0], x);
  if (a->magnitudes)
    gq_superacc_add(&a->s[1], fabs(x));
  a->t.n++;
}

static inline void gq_exact_add_dot(struct gq_exact_acc *a, double x, double y, uint64_t i)
{
  if (!isfinite(x) || !isfinite(y)) { /* NaN * y, 0 * Inf: NaN; else an infinity */
    gq_exact_tally_nonfinite(&a->t, x * y, i);
    return;
  }
  gq_superacc_add_product(&a->s[0], x, y, 0, 0);
  if (a->magnitudes)
    gq_superacc_add_product(&a->s[1], fabs(x), fabs(y), 0, 0);
  a->t.n++;
}

static inline void gq_exact_add_rms(struct gq_exact_acc *a, double x, double y)
{
  if (!isfinite(x) || !isfinite(y)) {
    gq_exact_tally_rms_nonfinite(&a->t, x, y);
    return;
  }
  gq_superacc_add_product(&a->s[0], x, x, 0, 0);
  gq_superacc_add_product(&a->s[0], x, y, 1, 1);
  gq_superacc_add_product(&a->s[0], y, y, 0, 0);
  gq_superacc_add_product(&a->s[1], x, x, 0, 0);
  const double d = fabs(x - y);
  a->t.max_abs = d > a->t.max_abs ? d : a->t.max_abs;
  a->t.n++;
}

static inline void gq_exact_add_stats(struct gq_exact_acc *a, double x, uint64_t i)
{
  if (!isfinite(x)) {
    gq_exact_tally_nonfinite(&a->t, x, i);
    return;
  }
  gq_superacc_add(&a->s[0], x);
  gq_superacc_add_product(&a->s[1], x, x, 0, 0);
  gq_superacc_add(&a->s[2], fabs(x));
  gq_exact_tally_extremes(&a->t, x, i);
  a->t.n++;
}

static inline void gq_exact_acc_combine(struct gq_exact_acc *a, const struct gq_exact_acc *b)
{
  for (int k = 0; k < 3; k++)
    gq_superacc_merge(&a->s[k], &b->s[k]);
  gq_exact_tally_combine(&a->t, &b->t);
}

#endif /* GQ_EXACT_ACC_H */
