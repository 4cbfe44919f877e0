/* check/hist.c — the histogram's reference (GSL's gsl_histogram and
 * gsl_histogram2d, given numpy's edges as their ranges) and the check of a
 * histogram against it (gpuquad.h, "hist", states both contracts).
 *
 * GSL finds a value's bin by a linear guess corrected by bisection over the
 * ranges, so with the same edges it agrees with numpy's edge-corrected
 * index everywhere but at hi: GSL's bins are [r_k, r_k+1) with r_K = hi
 * excluded, numpy's last bin is closed.  A value equal to hi is therefore
 * given to GSL at the last bin's lower edge, which lies in the last bin. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_histogram2d.h>

#include "../hist_internal.h"

/* numpy's edges of one axis, as GSL's ranges (bins + 1 of them). */
static double *ranges(const gq_hist *h, int axis)
{
  double *r = malloc(((size_t)h->bins[axis] + 1) * sizeof *r);
  if (r)
    for (uint32_t k = 0; k <= h->bins[axis]; k++)
      r[k] = gq_hist_edge(h, axis, k);
  return r;
}

/* Where GSL cannot take x on one axis: 0 (in range; *at is what to give
 * GSL), or 1 + GQ_HIST_UNDER / OVER / NAN. */
static int outside(const gq_hist *h, int axis, const double *r, double x, double *at)
{
  if (isnan(x))
    return 1 + GQ_HIST_NAN;
  if (x < h->lo[axis])
    return 1 + GQ_HIST_UNDER;
  if (x > h->hi[axis])
    return 1 + GQ_HIST_OVER;
  *at = x == h->hi[axis] ? r[h->bins[axis] - 1] : x;
  return 0;
}

static void count_outside(gq_hist *h, int where)
{
  if (where == 1 + GQ_HIST_NAN)
    h->nan++;
  else if (where == 1 + GQ_HIST_UNDER)
    h->under++;
  else
    h->over++;
}

/* 1-D: counts by gsl_histogram_increment; with values, their sums and the
 * sums of |v| by gsl_histogram_accumulate in two more histograms. */
static int reference_1d(const gq_hist *like, size_t n, const double *x, const double *values, gq_hist *ref,
                        gq_hist *abs_ref)
{
  const size_t bins = like->bins[0];
  double *r = ranges(like, 0);
  gsl_histogram *g[3] = {gsl_histogram_alloc(bins), values ? gsl_histogram_alloc(bins) : NULL,
                         abs_ref ? gsl_histogram_alloc(bins) : NULL};
  const int used = abs_ref ? 3 : values ? 2 : 1;
  int status = GQ_SUCCESS;
  for (int k = 0; k < used; k++)
    if (!g[k] || !r)
      status = gq_fail(GQ_ENOMEM, "histogram reference: out of memory");
    else if (gsl_histogram_set_ranges(g[k], r, bins + 1) != GSL_SUCCESS)
      status = gq_fail(GQ_EDOM, "histogram reference: GSL refused the edges");
  for (size_t i = 0; i < n && status == GQ_SUCCESS; i++) {
    double at = 0;
    const int where = outside(like, 0, r, x[i], &at);
    if (where) {
      count_outside(ref, where);
      continue;
    }
    int refused = gsl_histogram_increment(g[0], at);
    if (values)
      refused |= gsl_histogram_accumulate(g[1], at, values[i]);
    if (abs_ref)
      refused |= gsl_histogram_accumulate(g[2], at, fabs(values[i]));
    if (refused)
      status = gq_fail(GQ_EDOM, "histogram reference: GSL found no bin for %.17g", x[i]);
  }
  for (size_t k = 0; k < bins && status == GQ_SUCCESS; k++) {
    ref->counts[k] = (uint64_t)gsl_histogram_get(g[0], k);
    if (values)
      ref->sums[k] = gsl_histogram_get(g[1], k);
    if (abs_ref) {
      abs_ref->counts[k] = ref->counts[k];
      abs_ref->sums[k] = gsl_histogram_get(g[2], k);
    }
  }
  free(r);
  for (int k = 0; k < used; k++)
    if (g[k])
      gsl_histogram_free(g[k]);
  return status;
}

/* 2-D: gsl_histogram2d_increment; a point outside either range is not given
 * to GSL (NaN first, then under, then over, as the accumulator counts). */
static int reference_2d(const gq_hist *like, size_t n, const double *x, const double *y, gq_hist *ref)
{
  double *rx = ranges(like, 0), *ry = ranges(like, 1);
  gsl_histogram2d *g = gsl_histogram2d_alloc(like->bins[0], like->bins[1]);
  int status = GQ_SUCCESS;
  if (!rx || !ry || !g)
    status = gq_fail(GQ_ENOMEM, "histogram reference: out of memory");
  else if (gsl_histogram2d_set_ranges(g, rx, like->bins[0] + 1, ry, like->bins[1] + 1) != GSL_SUCCESS)
    status = gq_fail(GQ_EDOM, "histogram reference: GSL refused the edges");
  for (size_t i = 0; i < n && status == GQ_SUCCESS; i++) {
    double ax = 0, ay = 0;
    const int wx = outside(like, 0, rx, x[i], &ax), wy = outside(like, 1, ry, y[i], &ay);
    if (wx == 1 + GQ_HIST_NAN || wy == 1 + GQ_HIST_NAN)
      count_outside(ref, 1 + GQ_HIST_NAN);
    else if (wx == 1 + GQ_HIST_UNDER || wy == 1 + GQ_HIST_UNDER)
      count_outside(ref, 1 + GQ_HIST_UNDER);
    else if (wx || wy)
      count_outside(ref, 1 + GQ_HIST_OVER);
    else if (gsl_histogram2d_increment(g, ax, ay) != GSL_SUCCESS)
      status = gq_fail(GQ_EDOM, "histogram reference: GSL found no cell for (%.17g, %.17g)", x[i], y[i]);
  }
  for (size_t i = 0; i < like->bins[0] && status == GQ_SUCCESS; i++)
    for (size_t j = 0; j < like->bins[1]; j++)
      ref->counts[i * like->bins[1] + j] = (uint64_t)gsl_histogram2d_get(g, i, j);
  free(rx);
  free(ry);
  if (g)
    gsl_histogram2d_free(g);
  return status;
}

static int same_shape(const gq_hist *h, gq_hist **out)
{
  return h->dims == 2 ? gq_hist2d_create(out, h->bins[0], h->lo[0], h->hi[0], h->bins[1], h->lo[1], h->hi[1])
                      : gq_hist_create(out, h->bins[0], h->lo[0], h->hi[0], h->kind);
}

int gq_hist_reference(const gq_hist *h, size_t n, const double *x, const double *y, const double *values,
                      gq_hist **ref, gq_hist **abs_ref)
{
  if (!h || !ref)
    return gq_null_arg(__func__, h ? "ref" : "h");
  *ref = NULL;
  if (abs_ref)
    *abs_ref = NULL;
  const int sums = h->kind != GQ_HIST_COUNTS;
  if (n > 0 && (!x || (h->dims == 2 && !y) || (sums && !values)))
    return gq_null_arg(__func__, !x ? "x" : h->dims == 2 && !y ? "y" : "values");
  int status = same_shape(h, ref);
  if (status == GQ_SUCCESS && sums && abs_ref)
    status = same_shape(h, abs_ref);
  if (status == GQ_SUCCESS)
    status = h->dims == 2 ? reference_2d(h, n, x, y, *ref)
                          : reference_1d(h, n, x, sums ? values : NULL, *ref, sums && abs_ref ? *abs_ref : NULL);
  if (status != GQ_SUCCESS) {
    gq_hist_free(*ref);
    *ref = NULL;
    if (abs_ref) {
      gq_hist_free(*abs_ref);
      *abs_ref = NULL;
    }
    return status;
  }
  (*ref)->total = n;
  if (abs_ref && *abs_ref)
    (*abs_ref)->total = n;
  return GQ_SUCCESS;
}

static int count_differs(const char *what, uint64_t ours, uint64_t theirs)
{
  return gq_fail(GQ_ECHECK, "histogram check: %s: %llu here, %llu in GSL's", what, (unsigned long long)ours,
                 (unsigned long long)theirs);
}

int gq_hist_check(const gq_hist *h, const gq_hist *ref, const gq_hist *abs_ref, double *worst)
{
  if (!h || !ref)
    return gq_null_arg(__func__, h ? "ref" : "h");
  if (worst)
    *worst = 0;
  if (h->dims != ref->dims || h->cells != ref->cells || h->kind != ref->kind ||
      (abs_ref && abs_ref->cells != h->cells))
    return gq_fail(GQ_EINVAL, "gq_hist_check: the histograms differ in shape or kind");
  if (h->under != ref->under)
    return count_differs("below the range", h->under, ref->under);
  if (h->over != ref->over)
    return count_differs("above the range", h->over, ref->over);
  if (h->nan != ref->nan)
    return count_differs("NaN", h->nan, ref->nan);
  double largest = 0;
  for (size_t k = 0; k < h->cells; k++) {
    if (h->counts[k] != ref->counts[k]) {
      char what[64];
      snprintf(what, sizeof what, "bin %zu", k);
      return count_differs(what, h->counts[k], ref->counts[k]);
    }
    if (!h->sums)
      continue;
    const double sum = h->sums[k] + h->sums_err[k], theirs = ref->sums[k] + ref->sums_err[k];
    if (sum == theirs || (isnan(sum) && isnan(theirs))) /* infinities and NaN from the values agree */
      continue;
    const double scale = abs_ref ? abs_ref->sums[k] : fabs(theirs);
    const double bound = 4.0 * ((double)h->counts[k] + 2.0) * DBL_EPSILON * scale;
    const double diff = fabs(sum - theirs);
    const double ratio = diff == 0 ? 0 : bound > 0 ? diff / bound : INFINITY;
    if (!(ratio <= 1.0)) {
      if (worst)
        *worst = ratio;
      return gq_fail(GQ_ECHECK, "histogram check: the sum of bin %zu is %.17g here, %.17g in GSL's (bound %.3g)",
                     k, sum, theirs, bound);
    }
    if (ratio > largest)
      largest = ratio;
  }
  if (worst)
    *worst = largest;
  return GQ_SUCCESS;
}
