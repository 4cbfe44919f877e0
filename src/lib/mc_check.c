/* mc_check.c — an independent estimate for gpuquad mc's check, on the host
 * with GSL: VEGAS for a uniform box, plain Monte Carlo with the Mersenne
 * Twister and GSL's Gaussian sampler for the normal distribution.  Neither
 * shares anything with the estimate it checks (not the generator, not the
 * sampling, not the evaluation path), so agreement within a few combined
 * standard errors is evidence, not tautology. */
#include "config.h"

#include <gsl/gsl_monte_vegas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "lib/expr/expr.h"

enum { WARMUP_CALLS = 10000 };

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

int gq_mc_reference_gsl(const gq_integrand *f, const gq_mc_options *o, gq_mc_reference *ref)
{
  if (!f || !o || !ref)
    return gq_fail(GQ_EINVAL, "gq_mc_reference_gsl: NULL argument");
  memset(ref, 0, sizeof *ref);
  ref->value = ref->se = ref->chisq = NAN;
  if (o->dims < 1 || o->dims > GQ_MC_MAX_DIMS || gq_integrand_dims(f) > o->dims)
    return gq_fail(GQ_EINVAL, "bad dimension %d for the reference", o->dims);
  gsl_monte_function F = {gq_integrand_is_builtin(f) ? eval_builtin : eval_expr, (size_t)o->dims,
                          gq_integrand_is_builtin(f) ? (void *)f : (void *)f->expr};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937); /* default seed: deterministic */
  if (!rng)
    return gq_fail(GQ_ENOMEM, "cannot allocate a GSL generator");
  int status = GQ_SUCCESS;
  if (o->dist == GQ_MC_NORMAL) {
    /* plain Monte Carlo, Welford's update for the variance */
    double mean = 0.0, m2 = 0.0, x[GQ_MC_MAX_DIMS];
    for (uint64_t k = 1; k <= GQ_MC_CHECK_CALLS; k++) {
      for (int d = 0; d < o->dims; d++)
        x[d] = gsl_ran_gaussian_ziggurat(rng, 1.0);
      const double y = F.f(x, F.dim, F.params);
      const double delta = y - mean;
      mean += delta / (double)k;
      m2 += delta * (y - mean);
    }
    ref->value = mean;
    ref->se = sqrt(m2 / (GQ_MC_CHECK_CALLS - 1.0) / GQ_MC_CHECK_CALLS);
    ref->calls = GQ_MC_CHECK_CALLS;
    ref->method = GQ_MC_REFERENCE_PLAIN;
  } else {
    double lo[GQ_MC_MAX_DIMS], hi[GQ_MC_MAX_DIMS], value = NAN, err = NAN;
    double volume = 1.0;
    for (int d = 0; d < o->dims; d++) {
      lo[d] = o->a[d];
      hi[d] = o->b[d];
      volume *= hi[d] - lo[d];
    }
    if (volume == 0.0) { /* a degenerate box: the integral is 0 */
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
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    /* warm-up: adapt the grid, then one long run on it (GSL's recipe) */
    int gs = gsl_monte_vegas_integrate(&F, lo, hi, (size_t)o->dims, WARMUP_CALLS, rng, s, &value, &err);
    if (gs == 0)
      gs = gsl_monte_vegas_integrate(&F, lo, hi, (size_t)o->dims, GQ_MC_CHECK_CALLS, rng, s, &value, &err);
    gsl_set_error_handler(old);
    ref->chisq = gsl_monte_vegas_chisq(s);
    gsl_monte_vegas_free(s);
    if (gs != 0)
      status = gq_fail(GQ_EDOM, "gsl_monte_vegas_integrate failed (GSL error %d)", gs);
    ref->value = value;
    ref->se = err;
    ref->calls = WARMUP_CALLS + GQ_MC_CHECK_CALLS;
    ref->method = GQ_MC_REFERENCE_VEGAS;
  }
  gsl_rng_free(rng);
  if (status == GQ_SUCCESS && !(isfinite(ref->value) && isfinite(ref->se)))
    status = gq_fail(GQ_EDOM, "the reference is not finite (f is not finite at some sampled point)");
  return status;
}

int gq_mc_check(const gq_mc_result *r, const gq_mc_reference *ref, double *z)
{
  if (!r || !ref)
    return gq_null_arg(__func__, r ? "ref" : "r");
  const double spread = sqrt(r->integral_se * r->integral_se + ref->se * ref->se);
  const double diff = r->integral - ref->value;
  const double zz = diff == 0.0 ? 0.0 : diff / spread; /* spread 0, diff != 0: infinite */
  if (z)
    *z = zz;
  return fabs(zz) <= GQ_MC_CHECK_Z ? GQ_SUCCESS : GQ_ECHECK;
}
