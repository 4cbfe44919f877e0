/* reduce_acc.h — the data-reduction accumulators (gpuquad.h's gq_sum_acc,
 * gq_rms_acc, gq_stats_acc): how one term is added and how two partials
 * merge, shared by the CPU backend, the CUDA kernels (thread, warp, block
 * and last-block levels) and the host (chunk merges), so that every level
 * uses the same formulas.
 *
 * Moments are double-double sums about a shift K that is one of the values:
 *     S1 = sum (x - K),  S2 = sum (x - K)^2,  mean = K + S1/n,
 *     M2 = S2 - S1^2/n.
 * x - K is taken exactly (TwoSum: dh + dl), its square with its rounding
 * error (TwoProd by fma, plus 2 dh dl), and both are added with TwoSum, so
 * S1 and S2 carry ~106 bits.  Because K is a data point, (K - mean)^2 <= M2
 * and S2 = M2 + n (K - mean)^2 <= (n + 1) M2: the cancellation in M2 costs at
 * most log2(n + 1) of those bits, and the mean and the variances round to
 * within an ulp of exact.  Two partials with shifts KA, KB merge exactly
 * (to ~2^-104) by moving B onto A's shift, d = KB - KA (TwoSum):
 *     S1 = S1A + S1B + nB d,   S2 = S2A + S2B + 2 d S1B + nB d^2,
 * where |d| <= 2 max|x - mean|, so no term is much larger than S2 itself.
 * Nothing is divided until the end, so every merge order — lanes, threads,
 * blocks, chunks — gives the same double-double to ~2^-104 and the same
 * rounded results whatever the thread count (the old Chan merges, with a
 * division per merge, changed the variance between 1 and 2 threads).
 *
 * Overflow.  The fast pass adds terms as they are; a partial that overflows
 * shows as Inf or NaN, and the caller reruns the pass classifying (with
 * CLASSIFY on the GPU), which counts real NaN/Inf inputs and adds the
 * finite ones scaled: every partial carries an exponent `scale`, its sums in
 * units of 2^scale (squares 4^scale), raised whenever a term would exceed
 * GQ_SCALE_LIMIT (powers of two: exact but for terms that underflow, which
 * are below 2^-600 of the largest).  With every scaled term <= 2^400 no sum
 * of 2^64 of them, squared or not, can overflow.  Merges align the exponents
 * (and raise them when a shift or a sum is above the limit, which catches
 * two finite chunk sums whose total overflows).  Underflow is the mirror
 * case: data below 2^-399, whose squares lose their digits, are rerun too
 * (reduce.c), and the classifying adds lower the exponent for them while
 * everything summed is as small (gq_scale_move_).  The finish multiplies by
 * 2^scale once: a result that does not fit is +-Inf, one that fits is
 * exact as without scaling.
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

/* Merge extremes (bmin at bargmin, bmax at bargmax) into (min, argmin, max,
 * argmax): ties go to the smaller index, so any merge order gives the first
 * occurrence (also exact_acc.h's). */
GQ_HD void gq_extremes_merge_(double *min, uint64_t *argmin, double *max, uint64_t *argmax, double bmin,
                              uint64_t bargmin, double bmax, uint64_t bargmax)
{
  if (bmin < *min || (bmin == *min && bargmin < *argmin)) {
    *min = bmin;
    *argmin = bargmin;
  }
  if (bmax > *max || (bmax == *max && bargmax < *argmax)) {
    *max = bmax;
    *argmax = bargmax;
  }
}

/* Scaled terms stay at or below this (see the top of the file). */
#define GQ_SCALE_LIMIT 0x1p400
#define GQ_SCALE_TOP 399 /* ilogb of the largest power of two a rescale leaves */

/* ---- double-double helpers (value = s + c, c not normalised) ---------- */
GQ_HD gq_csum gq_dd_make(double s, double c)
{
  gq_csum r = {s, c};
  return r;
}
GQ_HD gq_csum gq_dd_renorm(gq_csum a)
{
  double e;
  const double s = gq_two_sum(a.s, a.c, &e);
  gq_csum r = {s, e};
  return r;
}
GQ_HD gq_csum gq_dd_add(gq_csum a, gq_csum b)
{
  gq_csum_merge(&a, b);
  return gq_dd_renorm(a);
}
GQ_HD gq_csum gq_dd_neg(gq_csum a)
{
  gq_csum r = {-a.s, -a.c};
  return r;
}
GQ_HD gq_csum gq_dd_mul(gq_csum a, gq_csum b)
{
  const double p = a.s * b.s;
  gq_csum r = {p, fma(a.s, b.s, -p) + (a.s * b.c + a.c * b.s)};
  return gq_dd_renorm(r);
}
GQ_HD gq_csum gq_dd_div(gq_csum a, double d)
{
  const double q = a.s / d;
  const double r = fma(-q, d, a.s); /* a.s - q d, exactly */
  gq_csum out = {q, (r + a.c) / d};
  return gq_dd_renorm(out);
}
/* A scale difference as an ldexp exponent (large ones flush to 0 anyway). */
GQ_HD int gq_scale_exp_(int64_t e) { return e < -4200 ? -4200 : e > 4200 ? 4200 : (int)e; }
/* The rescale that brings |v| (> GQ_SCALE_LIMIT) to at most the limit. */
GQ_HD int64_t gq_scale_up_(double v) { return v > GQ_SCALE_LIMIT ? (int64_t)(ilogb(v) - GQ_SCALE_TOP) : 0; }

/* The exponent change that puts a value of binary exponent top (in scaled
 * units) at most at 2^GQ_SCALE_TOP, or, when it and everything summed so far
 * (below 2^-GQ_SCALE_TOP, magnitude: the largest sum) are tiny, lifts them
 * there, so that squares of data near DBL_MIN (whose sd and L2 fit in a
 * double) do not underflow. */
GQ_HD int64_t gq_scale_move_(int64_t top, double magnitude)
{
  if (top > GQ_SCALE_TOP)
    return top - GQ_SCALE_TOP;
  if (top < -GQ_SCALE_TOP && !(magnitude >= 0x1p-399)) {
    const int64_t have = magnitude > 0.0 ? (int64_t)ilogb(magnitude) : top;
    return (top > have ? top : have) - GQ_SCALE_TOP;
  }
  return 0;
}

/* ---- sum of terms ---------------------------------------------------- */
GQ_HD void gq_sum_acc_zero(gq_sum_acc *a)
{
  a->n = a->nan_count = a->posinf_count = a->neginf_count = 0;
  a->sum = a->sum_err = a->abs_sum = 0.0;
  a->scale = 0;
}

GQ_HD int gq_sum_acc_finite(const gq_sum_acc *a) { return isfinite(a->sum + a->sum_err + a->abs_sum); }

GQ_HD void gq_sum_acc_rescale(gq_sum_acc *a, int64_t up)
{
  if (up <= 0)
    return;
  const int e = gq_scale_exp_(-up);
  a->sum = ldexp(a->sum, e);
  a->sum_err = ldexp(a->sum_err, e);
  a->abs_sum = ldexp(a->abs_sum, e);
  a->scale += up;
}

/* One finite term t_hi + t_lo = m 2^e (e = 0 for a term that is a double),
 * scaled: the classifying pass's add. */
GQ_HD void gq_sum_acc_add_scaled(gq_sum_acc *a, double m, double m_err, int64_t e)
{
  /* from the exponents: m 2^(e - scale) itself may not fit in a double */
  const int64_t top = m != 0.0 ? (int64_t)ilogb(m) + e - a->scale : 0;
  if (top > GQ_SCALE_TOP)
    gq_sum_acc_rescale(a, top - GQ_SCALE_TOP);
  const double t = ldexp(m, gq_scale_exp_(e - a->scale));
  gq_csum s = {a->sum, a->sum_err};
  gq_csum_add(&s, t);
  a->sum = s.s;
  a->sum_err = s.c + ldexp(m_err, gq_scale_exp_(e - a->scale));
  a->abs_sum += fabs(t);
  a->n++;
}

/* The product a*b of two finite doubles, added scaled even where a*b
 * itself overflows: as (ma mb) 2^(ea + eb) with ma, mb in [1, 2). */
GQ_HD void gq_sum_acc_add_product_scaled(gq_sum_acc *acc, double a, double b)
{
  if (a == 0.0 || b == 0.0) {
    gq_sum_acc_add_scaled(acc, 0.0, 0.0, 0);
    return;
  }
  const int ea = ilogb(a), eb = ilogb(b);
  const double ma = ldexp(a, -ea), mb = ldexp(b, -eb), p = ma * mb;
  gq_sum_acc_add_scaled(acc, p, fma(ma, mb, -p), (int64_t)ea + eb);
}

GQ_HD void gq_sum_acc_combine(gq_sum_acc *a, const gq_sum_acc *b)
{
  gq_sum_acc B = *b;
  /* One exponent, high enough that neither sum nor their total overflows;
   * a side whose sums are all zero takes the other's (raising the other
   * would flush a tiny one's sums for nothing). */
  if (a->sum == 0.0 && a->sum_err == 0.0 && a->abs_sum == 0.0)
    a->scale = B.scale;
  if (B.sum == 0.0 && B.sum_err == 0.0 && B.abs_sum == 0.0)
    B.scale = a->scale;
  gq_sum_acc_rescale(a, B.scale - a->scale);
  gq_sum_acc_rescale(&B, a->scale - B.scale);
  const double big = fmax(fmax(fabs(a->sum), fabs(B.sum)), fmax(a->abs_sum, B.abs_sum));
  if (big > GQ_SCALE_LIMIT && isfinite(big)) {
    const int64_t up = gq_scale_up_(big);
    gq_sum_acc_rescale(a, up);
    gq_sum_acc_rescale(&B, up);
  }
  gq_csum s = {a->sum, a->sum_err}, t = {B.sum, B.sum_err};
  gq_csum_merge(&s, t);
  a->sum = s.s;
  a->sum_err = s.c;
  a->abs_sum += B.abs_sum;
  a->n += B.n;
  a->nan_count += B.nan_count;
  a->posinf_count += B.posinf_count;
  a->neginf_count += B.neginf_count;
}

/* The compensated sum, times 2^scale: +-Inf where it does not fit. */
GQ_HD double gq_sum_acc_value(const gq_sum_acc *a)
{
  return ldexp(a->sum + a->sum_err, gq_scale_exp_(a->scale));
}

/* ---- rms of a difference --------------------------------------------- */
GQ_HD void gq_rms_acc_zero(gq_rms_acc *a)
{
  a->n = a->nan_count = a->inf_count = 0;
  a->sq_diff = a->sq_diff_err = a->sq_ref = a->sq_ref_err = a->max_abs = 0.0;
  a->scale = 0;
}

/* max_abs is left out: it is +Inf exactly when a - b overflows, which the
 * classifying pass keeps as it is. */
GQ_HD int gq_rms_acc_finite(const gq_rms_acc *a)
{
  return isfinite(a->sq_diff + a->sq_diff_err + a->sq_ref + a->sq_ref_err) && !isnan(a->max_abs);
}

GQ_HD void gq_rms_acc_move_scale_(gq_rms_acc *a, int64_t up)
{
  const int e = gq_scale_exp_(-2 * up);
  a->sq_diff = ldexp(a->sq_diff, e);
  a->sq_diff_err = ldexp(a->sq_diff_err, e);
  a->sq_ref = ldexp(a->sq_ref, e);
  a->sq_ref_err = ldexp(a->sq_ref_err, e);
  a->scale += up;
}
GQ_HD void gq_rms_acc_rescale(gq_rms_acc *a, int64_t up)
{
  if (up > 0)
    gq_rms_acc_move_scale_(a, up);
}

/* One pair of finite values, scaled (the classifying pass): a - b is taken
 * in scaled units, where it cannot overflow. */
GQ_HD void gq_rms_acc_add_scaled(gq_rms_acc *r, double a, double b)
{
  const double big = fmax(fabs(a), fabs(b));
  if (big != 0.0) /* squares: their magnitude is the root of the sums' */
    gq_rms_acc_move_scale_(r, gq_scale_move_((int64_t)ilogb(big) - r->scale,
                                             sqrt(fmax(r->sq_diff, r->sq_ref))));
  const double sa = ldexp(a, gq_scale_exp_(-r->scale)), sb = ldexp(b, gq_scale_exp_(-r->scale));
  const double d = sa - sb, d2 = d * d, a2 = sa * sa;
  gq_csum sq = {r->sq_diff, r->sq_diff_err}, ref = {r->sq_ref, r->sq_ref_err};
  gq_csum_add(&sq, d2);
  gq_csum_add(&ref, a2);
  r->sq_diff = sq.s;
  r->sq_diff_err = sq.c + fma(d, d, -d2);
  r->sq_ref = ref.s;
  r->sq_ref_err = ref.c + fma(sa, sa, -a2);
  r->max_abs = fmax(r->max_abs, fabs(a - b)); /* +Inf: a - b does not fit */
  r->n++;
}

GQ_HD void gq_rms_acc_combine(gq_rms_acc *a, const gq_rms_acc *b)
{
  gq_rms_acc B = *b;
  if (a->sq_diff == 0.0 && a->sq_diff_err == 0.0 && a->sq_ref == 0.0 && a->sq_ref_err == 0.0)
    a->scale = B.scale; /* as in gq_sum_acc_combine */
  if (B.sq_diff == 0.0 && B.sq_diff_err == 0.0 && B.sq_ref == 0.0 && B.sq_ref_err == 0.0)
    B.scale = a->scale;
  gq_rms_acc_rescale(a, B.scale - a->scale);
  gq_rms_acc_rescale(&B, a->scale - B.scale);
  const double big = fmax(fmax(a->sq_diff, B.sq_diff), fmax(a->sq_ref, B.sq_ref));
  if (big > GQ_SCALE_LIMIT && isfinite(big)) { /* squares: half the exponent */
    const int64_t up = (gq_scale_up_(big) + 1) / 2;
    gq_rms_acc_rescale(a, up);
    gq_rms_acc_rescale(&B, up);
  }
  gq_csum s = {a->sq_diff, a->sq_diff_err}, t = {B.sq_diff, B.sq_diff_err};
  gq_csum_merge(&s, t);
  a->sq_diff = s.s;
  a->sq_diff_err = s.c;
  gq_csum r = {a->sq_ref, a->sq_ref_err}, q = {B.sq_ref, B.sq_ref_err};
  gq_csum_merge(&r, q);
  a->sq_ref = r.s;
  a->sq_ref_err = r.c;
  a->max_abs = B.max_abs > a->max_abs ? B.max_abs : a->max_abs;
  a->n += B.n;
  a->nan_count += B.nan_count;
  a->inf_count += B.inf_count;
}

/* rms = sqrt(ss / n) 2^scale and the relative change sqrt(ss / ref) from
 * the finished (scaled) sums of squares: gq_rms_finish on the host and the
 * kernels that finish on the device use this one formula, so both give the
 * same bits. */
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
  a->scale = 0;
  a->shift = a->s1 = a->s1_err = a->s2 = a->s2_err = a->abs_sum = a->abs_err = 0.0;
  a->min = (double)INFINITY;
  a->max = -(double)INFINITY;
  a->argmin = a->argmax = GQ_NO_INDEX;
}

GQ_HD uint64_t gq_stats_acc_total(const gq_stats_acc *a)
{
  return a->n + a->nan_count + a->posinf_count + a->neginf_count;
}

GQ_HD int gq_stats_acc_finite(const gq_stats_acc *a)
{
  return isfinite(a->shift + a->s1 + a->s1_err + a->s2 + a->s2_err + a->abs_sum + a->abs_err);
}

/* scale += k, the sums divided by 2^k (4^k): any sign (a negative k is the
 * classifying pass's lowering for tiny data). */
GQ_HD void gq_stats_acc_move_scale_(gq_stats_acc *a, int64_t up)
{
  const int e = gq_scale_exp_(-up), e2 = gq_scale_exp_(-2 * up);
  a->shift = ldexp(a->shift, e);
  a->s1 = ldexp(a->s1, e);
  a->s1_err = ldexp(a->s1_err, e);
  a->abs_sum = ldexp(a->abs_sum, e);
  a->abs_err = ldexp(a->abs_err, e);
  a->s2 = ldexp(a->s2, e2);
  a->s2_err = ldexp(a->s2_err, e2);
  a->scale += up;
}
GQ_HD void gq_stats_acc_rescale(gq_stats_acc *a, int64_t up)
{
  if (up > 0)
    gq_stats_acc_move_scale_(a, up);
}

/* Within one accumulator indices only grow: a tie keeps the first. */
GQ_HD void gq_stats_acc_minmax_(gq_stats_acc *a, double x, uint64_t i)
{
  if (x < a->min) {
    a->min = x;
    a->argmin = i;
  }
  if (x > a->max) {
    a->max = x;
    a->argmax = i;
  }
}

/* TwoSum by Fast2Sum: one compare puts the larger magnitude first, then
 * three additions give the same s = fl(a + b) and the same exact error as
 * gq_two_sum's six (Dekker: exact when |big| >= |small|, subnormals
 * included).  The compare and the selects are not FP64 arithmetic, which is
 * what the GPU's statistics kernel is short of.  A NaN or an Inf still makes
 * s non-finite. */
GQ_HD double gq_two_sum_ordered_(double a, double b, double *err)
{
  const int swap = fabs(b) > fabs(a);
  const double big = swap ? b : a, small = swap ? a : b;
  const double s = big + small;
  *err = small - (s - big);
  return s;
}

/* The moments' part of adding t (a value in units of 2^scale). */
GQ_HD void gq_stats_acc_moments_add_(gq_stats_acc *a, double t)
{
  if (a->n == 0)
    a->shift = t; /* the shift is one of the values (see the top) */
  double dl;
  const double dh = gq_two_sum(t, -a->shift, &dl); /* t - K = dh + dl exactly */
  gq_csum s1 = {a->s1, a->s1_err}, s2 = {a->s2, a->s2_err}, l1 = {a->abs_sum, a->abs_err};
  gq_csum_add(&s1, dh);
  const double p = dh * dh;
  gq_csum_add(&s2, p);
  a->s1 = s1.s;
  a->s1_err = s1.c + dl;
  a->s2 = s2.s;
  a->s2_err = s2.c + fma(2.0 * dh, dl, fma(dh, dh, -p));
  gq_csum_add(&l1, fabs(t)); /* compensated too: L1 within an ulp */
  a->abs_sum = l1.s;
  a->abs_err = l1.c;
  a->n++;
}

/* The fast pass's add: a finite value, no scaling (an overflow shows as a
 * non-finite sum and the pass is redone). */
GQ_HD void gq_stats_acc_add(gq_stats_acc *a, double x, uint64_t i)
{
  gq_stats_acc_minmax_(a, x, i);
  gq_stats_acc_moments_add_(a, x);
}

/* The classifying pass's add: a finite value, scaled. */
GQ_HD void gq_stats_acc_add_scaled(gq_stats_acc *a, double x, uint64_t i)
{
  if (x != 0.0) /* from the exponents: x 2^-scale itself may not fit */
    gq_stats_acc_move_scale_(a, gq_scale_move_((int64_t)ilogb(x) - a->scale, a->abs_sum));
  const double t = ldexp(x, gq_scale_exp_(-a->scale));
  gq_stats_acc_minmax_(a, x, i);
  gq_stats_acc_moments_add_(a, t);
}

/* The classifying pass's count of a value that is not finite. */
GQ_HD void gq_stats_acc_add_nonfinite(gq_stats_acc *a, double x, uint64_t i)
{
  if (x != x) {
    a->first_nan = gq_index_min_(a->first_nan, i);
    a->nan_count++;
  } else if (x > 0) {
    a->first_posinf = gq_index_min_(a->first_posinf, i);
    a->posinf_count++;
  } else {
    a->first_neginf = gq_index_min_(a->first_neginf, i);
    a->neginf_count++;
  }
}

/* Merge b into a; both carry indices in one numbering (the caller shifts
 * b's indices first when b's data came after a's). */
GQ_HD void gq_stats_acc_combine(gq_stats_acc *a, const gq_stats_acc *b)
{
  if (b->n > 0) {
    gq_stats_acc B = *b;
    if (a->n == 0) {
      a->scale = B.scale;
      a->shift = B.shift;
      a->s1 = B.s1;
      a->s1_err = B.s1_err;
      a->s2 = B.s2;
      a->s2_err = B.s2_err;
      a->abs_sum = B.abs_sum;
      a->abs_err = B.abs_err;
    } else {
      gq_stats_acc_rescale(a, B.scale - a->scale);
      gq_stats_acc_rescale(&B, a->scale - B.scale);
      /* Shifts above the limit (the fast pass's) could make d, d^2 or the
       * total overflow: raise both first. */
      const double big = fmax(fmax(fabs(a->shift), fabs(B.shift)), fmax(a->abs_sum, B.abs_sum));
      if (big > GQ_SCALE_LIMIT && isfinite(big)) {
        const int64_t up = gq_scale_up_(big);
        gq_stats_acc_rescale(a, up);
        gq_stats_acc_rescale(&B, up);
      }
      double dl;
      const double dh = gq_two_sum(B.shift, -a->shift, &dl);
      const gq_csum d = {dh, dl}, s1b = {B.s1, B.s1_err};
      const double nb = (double)B.n;
      const gq_csum nbd = gq_dd_mul(d, gq_dd_make(nb, 0.0));
      gq_csum s1 = gq_dd_add(gq_dd_make(a->s1, a->s1_err), s1b);
      s1 = gq_dd_add(s1, nbd);
      /* S2B + 2 d S1B + nB d^2 = S2B + d (2 S1B + nB d) */
      const gq_csum inner = gq_dd_add(gq_dd_add(s1b, s1b), nbd);
      gq_csum s2 = gq_dd_add(gq_dd_make(a->s2, a->s2_err), gq_dd_make(B.s2, B.s2_err));
      s2 = gq_dd_add(s2, gq_dd_mul(d, inner));
      a->s1 = s1.s;
      a->s1_err = s1.c;
      a->s2 = s2.s;
      a->s2_err = s2.c;
      gq_csum l1 = {a->abs_sum, a->abs_err};
      gq_csum_merge(&l1, gq_dd_make(B.abs_sum, B.abs_err));
      a->abs_sum = l1.s;
      a->abs_err = l1.c;
    }
  }
  gq_extremes_merge_(&a->min, &a->argmin, &a->max, &a->argmax, b->min, b->argmin, b->max, b->argmax);
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
