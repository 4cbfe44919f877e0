/* data.c — the host reference of the data reductions, one chunk at a time
 * (check.h says why it is built this way), and the checks of dot, rms and
 * stats against it. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <stdio.h>

#include "check.h"

static const double U = DBL_EPSILON / 2;         /* ours: a double's unit roundoff */
static const long double UL = LDBL_EPSILON / 2;  /* the reference's                */

void gq_data_ref_init(gq_data_ref *r, gq_ref_kind kind)
{
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->min = INFINITY;
  r->max = -INFINITY;
  r->argmin = r->argmax = GQ_NO_INDEX;
}

static double at(const void *v, size_t i, int is_float)
{
  return is_float ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void feed_dot(gq_data_ref *r, const void *x, const void *y, size_t n, int is_float)
{
  for (size_t i = 0; i < n; i++) {
    const double a = at(x, i, is_float), b = at(y, i, is_float);
    const long double t = (long double)a * b;
    if (isnan(t))
      r->nan_count++;
    else if (isinf(t))
      *(t > 0 ? &r->posinf_count : &r->neginf_count) += 1;
    else {
      r->n++;
      r->sum += t;
      r->abs_sum += fabsl(t);
    }
  }
}

static void feed_rms(gq_data_ref *r, const void *x, const void *y, size_t n, int is_float)
{
  for (size_t i = 0; i < n; i++) {
    const double a = at(x, i, is_float), b = at(y, i, is_float);
    if (isnan(a) || isnan(b) || isnan(a - b))
      r->nan_count++;
    else if (isinf(a) || isinf(b))
      r->posinf_count++;
    else {
      const long double d = (long double)a - b;
      r->n++;
      r->sq_diff += d * d;
      r->sq_ref += (long double)a * a;
      r->max_abs = fmax(r->max_abs, fabs(a - b));
    }
  }
}

/* Two passes over the chunk about its first finite value K (the second
 * corrected: Björck's sum of deviations), then Chan's merge with what came
 * before, the mean kept as shift + offset so that near 1e7 it keeps its
 * digits. */
static void feed_stats(gq_data_ref *r, const void *x, size_t n, int is_float)
{
  uint64_t m = 0;
  long double k = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    const double v = at(x, i, is_float);
    if (!isfinite(v)) {
      *(isnan(v) ? &r->nan_count : v > 0 ? &r->posinf_count : &r->neginf_count) += 1;
      continue;
    }
    if (m++ == 0)
      k = v;
    s += v - k;
    r->sum += v;
    r->abs_sum += fabs(v);
    r->sq_ref += (long double)v * v;
    if (v < r->min) {
      r->min = v;
      r->argmin = r->seen + i;
    }
    if (v > r->max) {
      r->max = v;
      r->argmax = r->seen + i;
    }
  }
  if (m == 0)
    return;
  const long double off = s / m;
  long double m2 = 0, e = 0;
  for (size_t i = 0; i < n; i++) {
    const double v = at(x, i, is_float);
    if (isfinite(v)) {
      const long double dv = (v - k) - off;
      m2 += dv * dv;
      e += dv;
    }
  }
  m2 -= e * e / m;
  if (r->n == 0) {
    r->shift = k;
    r->offset = off;
    r->m2 = m2;
  } else {
    const long double na = r->n, nb = m, d = (k - r->shift) + (off - r->offset);
    r->offset += d * (nb / (na + nb));
    r->m2 += m2 + d * d * (na * nb / (na + nb));
  }
  r->n += m;
}

void gq_data_ref_feed(gq_data_ref *r, const void *x, const void *y, size_t n, int is_float)
{
  if (r->kind == GQ_REF_DOT)
    feed_dot(r, x, y, n, is_float);
  else if (r->kind == GQ_REF_RMS)
    feed_rms(r, x, y, n, is_float);
  else
    feed_stats(r, x, n, is_float);
  r->seen += n;
}

static void reference_dot(const gq_data_ref *r, gq_nan_policy policy, gq_ref_dot *out)
{
  out->n = r->n;
  out->value = (double)r->sum;
  out->abs_sum = (double)r->abs_sum;
  if (policy != GQ_NAN_OMIT && r->nan_count + r->posinf_count + r->neginf_count > 0)
    out->value = r->nan_count > 0 || (r->posinf_count > 0 && r->neginf_count > 0) ? NAN
                 : r->posinf_count > 0 ? INFINITY : -INFINITY;
  /* long double summation: gamma_n(uL) sum|t| (Higham 4.2); ours 2 ulp */
  out->tol = (double)(((long double)r->n + 2) * UL * r->abs_sum) + 2 * U * fabs(out->value);
}

static void reference_rms(const gq_data_ref *r, gq_nan_policy policy, gq_ref_rms *out)
{
  gq_rms_result *g = &out->r;
  g->n = r->n;
  g->nan_count = r->nan_count;
  g->inf_count = r->posinf_count;
  g->rms = r->n ? (double)sqrtl(r->sq_diff / r->n) : NAN;
  g->relative = r->sq_ref > 0 ? (double)sqrtl(r->sq_diff / r->sq_ref) : NAN;
  g->max_abs = r->max_abs;
  if (policy != GQ_NAN_OMIT && r->nan_count + r->posinf_count > 0) {
    g->rms = g->max_abs = r->nan_count > 0 ? NAN : INFINITY;
    g->relative = NAN;
  }
  /* sums of squares: gamma_(n+2)(uL) relative, halved by the root; ours 4u */
  const double rel = (double)(((long double)r->n + 4) * UL);
  out->tol_rms = (4 * U + rel) * fabs(g->rms);
  out->tol_relative = (8 * U + 2 * rel) * fabs(g->relative);
}

static void reference_stats(const gq_data_ref *r, gq_ref_stats *out)
{
  gq_stats_result *g = &out->r;
  memset(g, 0, sizeof *g);
  const long double n = r->n;
  g->total = r->seen;
  g->n = r->n;
  g->nan_count = r->nan_count;
  g->inf_count = r->posinf_count + r->neginf_count;
  g->sum = (double)r->sum;
  g->l1 = (double)r->abs_sum;
  g->l2 = (double)sqrtl(r->sq_ref);
  g->mean = g->var_sample = g->var_population = g->sd_sample = g->sd_population = g->min = g->max = NAN;
  g->argmin = g->argmax = GQ_NO_INDEX;
  g->linf = 0.0;
  if (r->n > 0) {
    g->mean = (double)(r->shift + r->offset);
    g->var_population = (double)(r->m2 / n);
    g->sd_population = (double)sqrtl(r->m2 / n);
    if (r->n > 1) { /* one value has no sample variance: NaN on both sides */
      g->var_sample = (double)(r->m2 / (n - 1));
      g->sd_sample = (double)sqrtl(r->m2 / (n - 1));
    }
    g->min = r->min;
    g->max = r->max;
    g->argmin = r->argmin;
    g->argmax = r->argmax;
    g->linf = fmax(fabs(r->min), fabs(r->max));
  }
  /* The reference's bounds, in uL, for n values: the plain sums gamma_n
   * (sum, L1, L2 relative); the mean's offset n uL max|x - K| <= 2 n uL
   * sqrt(M2); M2 within 16 (n + 8) uL M2 (deviations, Chan's merges); ours
   * within 2 ulp of each (4 for L2, a sum of two rounded terms). */
  const long double gn = (n + 8) * UL;
  const long double sqrt_m2 = sqrtl(r->m2 > 0 ? r->m2 : 0); /* beyond DBL_MAX for data near it */
  out->tol_sum = (double)(gn * r->abs_sum) + 2 * U * fabs(g->sum);
  out->tol_mean = (double)(2 * gn * sqrt_m2 + UL * fabsl(r->shift)) + 2 * U * fabs(g->mean);
  const double var = r->n > 1 ? g->var_sample : g->var_population;
  out->tol_var = (double)(16 * gn) * var + 2 * U * var;
  const double sd = r->n > 1 ? g->sd_sample : g->sd_population; /* var may underflow where sd does not */
  out->tol_sd = (double)(8 * gn) * sd + 2 * U * sd;
  out->tol_l1 = (double)gn * g->l1 + 2 * U * g->l1;
  out->tol_l2 = (double)gn * g->l2 + 4 * U * g->l2;
}

/* NaN agrees with NaN only (undefined on both sides), an infinity with the
 * same infinity, finite values within tol. */
static int agree(double value, double reference, double tol)
{
  if (isnan(value) || isnan(reference))
    return isnan(value) && isnan(reference);
  if (isinf(value) || isinf(reference))
    return value == reference;
  /* A tolerance beyond the double range (sum|a*b| of 1e400 around a dot of
   * 0) vouches for nothing: that check cannot be made, and is no pass. */
  return isfinite(tol) && fabs(value - reference) <= tol;
}

/* long double sums fed in the same pass, within gamma_n(2^-64) sum|a_i b_i|;
 * ours within 2 ulp */
void gq_check_dot(const gq_data_ref *r, gq_nan_policy policy, double dot, gq_ref_dot *ref, gq_check_outcome *out)
{
  reference_dot(r, policy, ref);
  gq_check_conclude(out, 1, GQ_SUCCESS, 0.0);
  if (agree(dot, ref->value, ref->tol))
    return;
  if (isfinite(ref->tol) || !isfinite(dot)) {
    out->verdict = GQ_CHECK_FAILED;
    snprintf(out->message, sizeof out->message, "check failed: dot %.17g, reference %.17g, tolerance %.3g", dot,
             ref->value, ref->tol);
  } else {
    out->verdict = GQ_CHECK_NOT_MADE;
    snprintf(out->message, sizeof out->message,
             "check could not be made: the reference's error bound (sum |a*b| times its rounding) is beyond the "
             "double range, so it cannot vouch for %.17g",
             dot);
  }
}

/* The maximum is exact on both sides (one IEEE subtraction). */
void gq_check_rms(const gq_data_ref *r, gq_nan_policy policy, const gq_rms_result *got, gq_ref_rms *ref,
                  gq_check_outcome *out)
{
  reference_rms(r, policy, ref);
  gq_check_conclude(out, 1, GQ_SUCCESS, 0.0);
  if (agree(got->rms, ref->r.rms, ref->tol_rms) && agree(got->relative, ref->r.relative, ref->tol_relative) &&
      agree(got->max_abs, ref->r.max_abs, 0.0))
    return;
  out->verdict = GQ_CHECK_FAILED;
  snprintf(out->message, sizeof out->message,
           "check failed: rms %.17g vs %.17g, relative %.17g vs %.17g, max %.17g vs %.17g", got->rms, ref->r.rms,
           got->relative, ref->r.relative, got->max_abs, ref->r.max_abs);
}

/* Min, max, their indices and Linf are exact. */
void gq_check_stats(const gq_data_ref *r, const gq_stats_result *got, gq_ref_stats *ref, gq_check_outcome *out)
{
  reference_stats(r, ref);
  gq_check_conclude(out, 1, GQ_SUCCESS, 0.0);
  const gq_stats_result *e = &ref->r;
  if (got->n == e->n && agree(got->sum, e->sum, ref->tol_sum) && agree(got->mean, e->mean, ref->tol_mean) &&
      agree(got->var_sample, e->var_sample, ref->tol_var) &&
      agree(got->var_population, e->var_population, ref->tol_var) &&
      agree(got->sd_sample, e->sd_sample, ref->tol_sd) && agree(got->sd_population, e->sd_population, ref->tol_sd) &&
      agree(got->min, e->min, 0.0) && agree(got->max, e->max, 0.0) && got->argmin == e->argmin &&
      got->argmax == e->argmax && agree(got->l1, e->l1, ref->tol_l1) && agree(got->l2, e->l2, ref->tol_l2) &&
      agree(got->linf, e->linf, 0.0))
    return;
  out->verdict = GQ_CHECK_FAILED;
  snprintf(out->message, sizeof out->message,
           "check failed: a statistic differs from the reference beyond its tolerance (see --json)");
}
