/* reduce_acc.h — the merges of the data-reduction accumulators (gpuquad.h's
 * gq_sum_acc, gq_rms_acc, gq_stats_acc), shared by the CPU backend, the CUDA
 * kernels (warp, block and last-block merges) and the host (chunk merges), so
 * that every level combines partials with the same formulas.
 *
 * Moments: a partial is (n, mean, M2 = sum (x - mean)^2); two partials merge
 * by Chan, Golub and LeVeque (1979):
 *     n = nA + nB,  d = meanB - meanA,
 *     mean = meanA + d nB / n,  M2 = M2A + M2B + d^2 nA nB / n,
 * which never subtracts two large sums of squares, so the variance of data
 * like 1e7 +- 0.1 keeps its digits.  Within one thread (or SIMD lane) values
 * are accumulated shifted by one of that thread's own values K:
 *     S1 = sum (x - K),  S2 = sum (x - K)^2,  mean = K + S1/n,  M2 = S2 - S1^2/n.
 * Because K is a data point, S2 <= (n + 1) M2 (S2 = M2 + n (K - mean)^2 and
 * (K - mean)^2 <= M2), so the cancellation costs at most log2(n + 1) bits of
 * the thread's M2 and, for clustered data, almost none; it avoids a division
 * per element (Welford).  S1 is a compensated sum: |S1| grows to n|K - mean|,
 * and a plain S1 would carry n u |S1| into S1^2/n — on 1e7 +- 0.1 that is
 * 1e-11 of the variance, against ~1e-15 compensated.  S2 sums non-negative
 * terms, so a plain sum keeps its relative accuracy.
 *
 * The mean is carried as shift + offset, never as one double: near 1e7 a
 * double mean is only good to ulp(1e7) = 2e-9, and Chan's d = meanB - meanA
 * would carry that error into d^2 nA nB / n (1e-10 of the variance of
 * 1e7 +- 0.1).  A merge keeps A's shift and takes
 *     d = (shiftB - shiftA) + (offsetB - offsetA),
 * where the first difference is exact for clustered data (Sterbenz).
 *
 * min/max ties go to the smaller index, so the merged result is the first
 * occurrence whatever the merge order.
 */
#ifndef GQ_REDUCE_ACC_H
#define GQ_REDUCE_ACC_H

#include <math.h>

#include "gpuquad.h"
#include "compensated.h"

GQ_HD uint64_t gq_index_min_(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ---- sum of terms ---------------------------------------------------- */
GQ_HD void gq_sum_acc_zero(gq_sum_acc *a)
{
  a->n = a->nan_count = a->posinf_count = a->neginf_count = 0;
  a->sum = a->sum_err = a->abs_sum = 0.0;
}

GQ_HD void gq_sum_acc_combine(gq_sum_acc *a, const gq_sum_acc *b)
{
  gq_csum s = {a->sum, a->sum_err}, t = {b->sum, b->sum_err};
  gq_csum_merge(&s, t);
  a->sum = s.s;
  a->sum_err = s.c;
  a->abs_sum += b->abs_sum;
  a->n += b->n;
  a->nan_count += b->nan_count;
  a->posinf_count += b->posinf_count;
  a->neginf_count += b->neginf_count;
}

/* ---- rms of a difference --------------------------------------------- */
GQ_HD void gq_rms_acc_zero(gq_rms_acc *a)
{
  a->n = a->nan_count = a->inf_count = 0;
  a->sq_diff = a->sq_diff_err = a->sq_ref = a->sq_ref_err = a->max_abs = 0.0;
}

GQ_HD void gq_rms_acc_combine(gq_rms_acc *a, const gq_rms_acc *b)
{
  gq_csum s = {a->sq_diff, a->sq_diff_err}, t = {b->sq_diff, b->sq_diff_err};
  gq_csum_merge(&s, t);
  a->sq_diff = s.s;
  a->sq_diff_err = s.c;
  gq_csum r = {a->sq_ref, a->sq_ref_err}, q = {b->sq_ref, b->sq_ref_err};
  gq_csum_merge(&r, q);
  a->sq_ref = r.s;
  a->sq_ref_err = r.c;
  a->max_abs = b->max_abs > a->max_abs ? b->max_abs : a->max_abs;
  a->n += b->n;
  a->nan_count += b->nan_count;
  a->inf_count += b->inf_count;
}

/* rms = sqrt(ss / n) and the relative change sqrt(ss / ref) from the
 * finished sums of squares: gq_rms_finish on the host and the kernels that
 * finish on the device use this one formula, so both give the same bits. */
GQ_HD void gq_rms_values(double ss, double ref, uint64_t n, double *rms, double *relative)
{
  *rms = n > 0 ? sqrt(ss / (double)n) : NAN;
  *relative = ref > 0.0 ? sqrt(ss / ref) : NAN;
}

/* ---- statistics ------------------------------------------------------- */
GQ_HD void gq_stats_acc_zero(gq_stats_acc *a)
{
  a->n = a->nan_count = a->posinf_count = a->neginf_count = 0;
  a->first_nan = a->first_posinf = a->first_neginf = GQ_NO_INDEX;
  a->sum = a->sum_err = a->shift = a->offset = a->m2 = a->abs_sum = 0.0;
  a->min = (double)INFINITY;
  a->max = -(double)INFINITY;
  a->argmin = a->argmax = GQ_NO_INDEX;
}

GQ_HD uint64_t gq_stats_acc_total(const gq_stats_acc *a)
{
  return a->n + a->nan_count + a->posinf_count + a->neginf_count;
}

/* Moments of one thread's or lane's shifted sums (see the top of the file). */
GQ_HD void gq_stats_acc_set_moments(gq_stats_acc *a, uint64_t n, double shift, gq_csum s1c, double s2)
{
  a->n = n;
  if (n == 0) {
    a->shift = a->offset = a->m2 = 0.0;
    return;
  }
  const double s1 = gq_csum_value(s1c);
  const double q = s1 / (double)n;
  const double m2 = s2 - s1 * q;
  a->shift = shift;
  a->offset = q;
  a->m2 = m2 > 0.0 ? m2 : 0.0;
}

/* Merge b into a; both carry indices in one numbering (the caller shifts
 * b's indices first when b's data came after a's). */
GQ_HD void gq_stats_acc_combine(gq_stats_acc *a, const gq_stats_acc *b)
{
  if (b->n > 0) {
    if (a->n == 0) {
      a->shift = b->shift;
      a->offset = b->offset;
      a->m2 = b->m2;
    } else {
      const double na = (double)a->n, nb = (double)b->n, n = na + nb;
      const double d = (b->shift - a->shift) + (b->offset - a->offset);
      a->offset += d * (nb / n);
      a->m2 += b->m2 + d * d * (na * (nb / n));
    }
  }
  gq_csum s = {a->sum, a->sum_err}, t = {b->sum, b->sum_err};
  gq_csum_merge(&s, t);
  a->sum = s.s;
  a->sum_err = s.c;
  a->abs_sum += b->abs_sum;
  if (b->min < a->min || (b->min == a->min && b->argmin < a->argmin)) {
    a->min = b->min;
    a->argmin = b->argmin;
  }
  if (b->max > a->max || (b->max == a->max && b->argmax < a->argmax)) {
    a->max = b->max;
    a->argmax = b->argmax;
  }
  a->n += b->n;
  a->nan_count += b->nan_count;
  a->posinf_count += b->posinf_count;
  a->neginf_count += b->neginf_count;
  a->first_nan = gq_index_min_(a->first_nan, b->first_nan);
  a->first_posinf = gq_index_min_(a->first_posinf, b->first_posinf);
  a->first_neginf = gq_index_min_(a->first_neginf, b->first_neginf);
}

/* Shift every index of a by base (its data start at element base). */
GQ_HD void gq_stats_acc_rebase(gq_stats_acc *a, uint64_t base)
{
  uint64_t *idx[5] = {&a->first_nan, &a->first_posinf, &a->first_neginf, &a->argmin, &a->argmax};
  for (int k = 0; k < 5; k++)
    if (*idx[k] != GQ_NO_INDEX)
      *idx[k] += base;
}

#endif /* GQ_REDUCE_ACC_H */
