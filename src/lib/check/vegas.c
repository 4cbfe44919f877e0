/* vegas.c — an independent estimate for gpuquad mc's check, on the host
 * with GSL: VEGAS for a uniform box, plain Monte Carlo with the Mersenne
 * Twister and GSL's Gaussian sampler for the normal distribution.  Neither
 * shares anything with the estimate it checks (not the generator, not the
 * sampling, not the evaluation path), so agreement within a few combined
 * standard errors is evidence, not tautology. */
#include "config.h"

#include <gsl/gsl_monte_vegas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"
#include "check.h"
#include "lib/expr/expr.h"

enum { WARMUP_CALLS = 10000 };
#define MAX_CHISQ 5.0 /* of the reference's runs, per degree of freedom (4) */

static double eval_expr(double *x, size_t dim, void *params)
{
  double v[GQ_EXPR_MAX_DIMS] = {0};
  for (size_t d = 0; d < dim; d++)
    v[d] = x[d];
  return gq_expr_eval((const gq_expr *)params, v);
}

static double eval_builtin(double *x, size_t dim, void *params)
{
  (void)dim;
  return gq_integrand_eval((const gq_integrand *)params, x[0]);
}

/* f on the unit cube, u -> lo + u w: VEGAS integrates over [0, 1]^D and the
 * volume multiplies afterwards, scaled (gq_mc_times_volume), so a box whose
 * volume overflows a double still gets its integral when that fits. */
typedef struct {
  gsl_monte_function f;
  double lo[GQ_MC_MAX_DIMS], w[GQ_MC_MAX_DIMS];
} unit_cube;

static double eval_unit_cube(double *u, size_t dim, void *params)
{
  const unit_cube *c = params;
  double x[GQ_MC_MAX_DIMS];
  for (size_t d = 0; d < dim; d++)
    x[d] = fma(u[d], c->w[d], c->lo[d]);
  return c->f.f(x, dim, c->f.params);
}

/* In one dimension GSL can say outright whether f has a mean (the integral
 * of |f| converges) and a variance (the integral of f^2 does): without the
 * first there is nothing to estimate, without the second the standard
 * errors, and so the z-score, mean nothing, however well the numbers agree. */
static int check_moments(const gq_integrand *f, const gq_mc_options *o)
{
  const int line = o->dist == GQ_MC_NORMAL;
  const double lo = line ? 0.0 : o->a[0], hi = line ? 0.0 : o->b[0];
  double mean_abs, mean_sq;
  char why[256];
  /* mean_abs in units of size: GSL's sums of a huge f (1e308 + x) would overflow */
  const double size = gq_size_norm(f, line, lo, hi);
  int status = gq_abs_moment(f, line, lo, hi, 1, size, &mean_abs);
  if (status == GQ_EDOM) {
    snprintf(why, sizeof why, "%s", gq_last_error());
    return gq_fail(GQ_EDOM, "no reference: f has no mean (the integral of |f| does not converge: %s)", why);
  }
  if (status != GQ_SUCCESS || mean_abs == 0.0)
    return status;
  /* f^2 scaled by the mean of |f|, so that a large f does not overflow */
  const double norm = (line ? mean_abs : mean_abs / (hi - lo)) * size;
  status = gq_abs_moment(f, line, lo, hi, 2, norm, &mean_sq);
  if (status == GQ_EDOM) {
    snprintf(why, sizeof why, "%s", gq_last_error());
    return gq_fail(GQ_EDOM,
                   "the variance of f is infinite (the integral of f^2 does not converge: %s), so its "
                   "standard error and the z-score mean nothing",
                   why);
  }
  return status;
}

static int validate(const gq_integrand *f, const gq_mc_options *o)
{
  if (o->dims < 1 || o->dims > GQ_MC_MAX_DIMS || gq_integrand_dims(f) > o->dims)
    return gq_fail(GQ_EINVAL, "bad dimension %d for the reference", o->dims);
  if (o->dist != GQ_MC_UNIFORM && o->dist != GQ_MC_NORMAL)
    return gq_fail(GQ_EINVAL, "unknown distribution %d", (int)o->dist);
  if (o->dist == GQ_MC_UNIFORM)
    for (int d = 0; d < o->dims; d++)
      if (!(isfinite(o->a[d]) && isfinite(o->b[d]) && o->a[d] <= o->b[d] && isfinite(o->b[d] - o->a[d])))
        return gq_fail(GQ_EINVAL, "bad limits in dimension %d for the reference (a = %g, b = %g)", d + 1,
                       o->a[d], o->b[d]);
  return GQ_SUCCESS;
}

/* f of x1 alone: its mean and variance over the box are those over x1's
 * interval, whatever the other dimensions; of more, no quadrature decides. */
static int moments_exist(const gq_integrand *f, const gq_mc_options *o)
{
  const int used = gq_integrand_is_builtin(f) ? 1 : gq_expr_dims_used(f->expr);
  if (used > 1 || (o->dist == GQ_MC_UNIFORM && o->a[0] == o->b[0]))
    return GQ_SUCCESS;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  const int status = check_moments(f, o);
  gsl_set_error_handler(old);
  return status;
}

int gq_mc_moments_exist(const gq_integrand *f, const gq_mc_options *o)
{
  if (!f || !o)
    return gq_fail(GQ_EINVAL, "gq_mc_moments_exist: NULL argument");
  int status = validate(f, o);
  if (status == GQ_SUCCESS)
    status = moments_exist(f, o);
  if (status == GQ_SUCCESS)
    gq_clear_error();
  return status;
}

static int reference(const gq_integrand *f, const gq_mc_options *o, gq_mc_reference *ref)
{
  if (!f || !o || !ref)
    return gq_fail(GQ_EINVAL, "gq_mc_reference_gsl: NULL argument");
  memset(ref, 0, sizeof *ref);
  ref->value = ref->se = ref->chisq = NAN;
  int status = validate(f, o);
  if (status == GQ_SUCCESS)
    status = moments_exist(f, o);
  if (status != GQ_SUCCESS)
    return status;
  gsl_monte_function F = {gq_integrand_is_builtin(f) ? eval_builtin : eval_expr, (size_t)o->dims,
                          gq_integrand_is_builtin(f) ? (void *)f : (void *)f->expr};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937); /* default seed: deterministic */
  if (!rng)
    return gq_fail(GQ_ENOMEM, "cannot allocate a GSL generator");
  if (o->dist == GQ_MC_NORMAL) {
    /* plain Monte Carlo, Welford's update for the variance, in BATCHES runs
     * whose means give a chi^2 of their agreement as VEGAS's iterations do */
    enum { BATCHES = 5 };
    const uint64_t per_batch = GQ_MC_CHECK_CALLS / BATCHES;
    double batch_mean[BATCHES], batch_var[BATCHES], x[GQ_MC_MAX_DIMS];
    for (int j = 0; j < BATCHES; j++) {
      double mean = 0.0, m2 = 0.0;
      for (uint64_t k = 1; k <= per_batch; k++) {
        for (int d = 0; d < o->dims; d++)
          x[d] = gsl_ran_gaussian_ziggurat(rng, 1.0);
        const double y = F.f(x, F.dim, F.params);
        const double delta = y - mean;
        mean += delta / (double)k;
        m2 += delta * (y - mean);
      }
      batch_mean[j] = mean;
      batch_var[j] = m2 / (double)(per_batch - 1) / (double)per_batch;
    }
    /* the batches are equal in size: the mean and within-batch variance
     * of all of them are the averages */
    double mean = 0.0, var = 0.0, chisq = 0.0;
    for (int j = 0; j < BATCHES; j++) {
      mean += batch_mean[j] / BATCHES;
      var += batch_var[j] / BATCHES;
    }
    for (int j = 0; j < BATCHES; j++)
      if (batch_mean[j] != mean)
        chisq += (batch_mean[j] - mean) * (batch_mean[j] - mean) / batch_var[j];
    ref->value = mean;
    ref->se = sqrt(var / BATCHES);
    ref->chisq = chisq / (BATCHES - 1);
    ref->calls = per_batch * BATCHES;
    ref->method = GQ_MC_REFERENCE_PLAIN;
  } else {
    double lo[GQ_MC_MAX_DIMS], hi[GQ_MC_MAX_DIMS], value = NAN, err = NAN;
    unit_cube cube = {F, {0}, {0}};
    for (int d = 0; d < o->dims; d++) {
      lo[d] = 0.0;
      hi[d] = 1.0;
      cube.lo[d] = o->a[d];
      cube.w[d] = o->b[d] - o->a[d];
    }
    double volume_mantissa;
    int volume_exponent;
    gq_mc_volume(cube.w, o->dims, &volume_mantissa, &volume_exponent);
    F.f = eval_unit_cube;
    F.params = &cube;
    if (volume_mantissa == 0.0) { /* a degenerate box: the integral is 0 */
      gsl_rng_free(rng);
      ref->value = 0.0;
      ref->se = 0.0;
      ref->method = GQ_MC_REFERENCE_EXACT;
      return GQ_SUCCESS;
    }
    gsl_monte_vegas_state *s = gsl_monte_vegas_alloc((size_t)o->dims);
    if (!s) {
      gsl_rng_free(rng);
      return gq_fail(GQ_ENOMEM, "cannot allocate the VEGAS state");
    }
    /* warm-up: adapt the grid, then one long run on it (GSL's recipe) */
    int gs = gsl_monte_vegas_integrate(&F, lo, hi, (size_t)o->dims, WARMUP_CALLS, rng, s, &value, &err);
    if (gs == 0)
      gs = gsl_monte_vegas_integrate(&F, lo, hi, (size_t)o->dims, GQ_MC_CHECK_CALLS, rng, s, &value, &err);
    ref->chisq = gsl_monte_vegas_chisq(s);
    gsl_monte_vegas_free(s);
    if (gs != 0)
      status = gq_fail(GQ_EDOM, "gsl_monte_vegas_integrate failed (GSL error %d)", gs);
    ref->value = gq_mc_times_volume(value, volume_mantissa, volume_exponent);
    ref->se = gq_mc_times_volume(err, volume_mantissa, volume_exponent);
    ref->calls = WARMUP_CALLS + GQ_MC_CHECK_CALLS;
    if (gs == 0 && isfinite(value) && isfinite(err) && !(isfinite(ref->value) && isfinite(ref->se)))
      status = gq_fail(GQ_EDOM, "the reference integral overflows a double (%g times a volume of about 10^%.1f)",
                       value, log10(volume_mantissa) + volume_exponent * log10(2.0));
    ref->method = GQ_MC_REFERENCE_VEGAS;
  }
  gsl_rng_free(rng);
  if (status == GQ_SUCCESS && !(isfinite(ref->value) && isfinite(ref->se)))
    status = gq_fail(GQ_EDOM, "the reference is not finite (f is not finite at some sampled point)");
  /* Where no quadrature can say whether f has a mean and a variance, the
   * reference's own runs can: estimates that disagree far beyond their
   * standard errors mean that those errors mean nothing (an f without a
   * mean, or with an infinite variance).  By chance chi^2/4 exceeds the
   * threshold with probability 5e-4. */
  if (status == GQ_SUCCESS && o->dims > 1 && ref->chisq > MAX_CHISQ)
    status = gq_fail(GQ_EDOM,
                     "the reference's %s runs disagree (chi^2 per degree of freedom %.3g > %g): f seems to "
                     "have no mean or an infinite variance, so standard errors and the z-score mean nothing",
                     ref->method == GQ_MC_REFERENCE_VEGAS ? "VEGAS" : "Monte Carlo", ref->chisq, MAX_CHISQ);
  return status;
}

/* GSL's default handler aborts, out of memory too: off for the whole
 * reference, so that every failure is a status. */
int gq_mc_reference_gsl(const gq_integrand *f, const gq_mc_options *o, gq_mc_reference *ref)
{
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  const int status = reference(f, o, ref);
  gsl_set_error_handler(old);
  return status;
}

int gq_mc_check(const gq_mc_result *r, const gq_mc_reference *ref, double *z)
{
  if (z)
    *z = NAN;
  if (!r || !ref)
    return gq_null_arg(__func__, r ? "ref" : "r");
  if (!(isfinite(r->integral) && isfinite(r->integral_se) && r->integral_se >= 0.0 && isfinite(ref->value) &&
        isfinite(ref->se) && ref->se >= 0.0))
    return gq_fail(GQ_ECHECK, "no usable estimate or reference (%g +/- %g against %g +/- %g)", r->integral,
                   r->integral_se, ref->value, ref->se);
  /* Rounding, which standard errors do not see: with zero variance (f
   * constant on the samples) they are 0 and any last-bit difference would
   * be infinitely many of them.  The scale of f's values is volume * (|mean|
   * + sd), which bounds volume * E|f|; f is evaluated in the estimate's
   * precision (64 roundings' worth) and the reference sums its calls without
   * compensation (calls roundings); below the smallest normal number values
   * keep an absolute, not a relative, accuracy. */
  const int in_float = r->precision == GQ_PRECISION_FLOAT;
  const double eps = in_float ? 0x1p-24 : 0x1p-53, tiny = in_float ? FLT_MIN : DBL_MIN;
  const double scale = fabs(r->integral) + r->integral_se * sqrt((double)(r->n > 1 ? r->n : 1));
  const double volume = isfinite(r->volume) ? r->volume : 0.0;
  const double rounding = 64.0 * eps * scale + ((double)ref->calls + 2.0) * 0x1p-53 * (fabs(ref->value) + scale) +
                          64.0 * tiny * volume + 4.0 * DBL_TRUE_MIN;
  const double spread = hypot(hypot(r->integral_se, ref->se), rounding); /* squares would under/overflow */
  const double diff = r->integral - ref->value;
  const double zz = diff == 0.0 ? 0.0 : diff / spread;
  if (z)
    *z = zz;
  if (fabs(zz) <= GQ_MC_CHECK_Z)
    return GQ_SUCCESS;
  return gq_fail(GQ_ECHECK, "z = %.3g, beyond %g standard errors", zz, GQ_MC_CHECK_Z);
}

/* A check that cannot be made (no reference: f has no mean or an infinite
 * variance, or GSL fails) is no pass. */
int gq_check_mc(const gq_integrand *f, const gq_mc_options *opt, const gq_mc_result *r, const double *exact,
                gq_mc_reference *ref, double *z, gq_check_outcome *out)
{
  *z = NAN;
  int status;
  if (exact) {
    ref->value = *exact;
    ref->se = 0.0;
    /* an exact value is no check of a standard error that means nothing */
    status = gq_mc_moments_exist(f, opt);
  } else {
    status = gq_mc_reference_gsl(f, opt, ref);
  }
  if (status == GQ_ENOMEM || status == GQ_ECUDA)
    return status;
  const int has_reference = status == GQ_SUCCESS;
  if (has_reference)
    status = gq_mc_check(r, ref, z);
  gq_check_conclude(out, has_reference, status, *z);
  return GQ_SUCCESS;
}
