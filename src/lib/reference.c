/* reference.c — reference integrals from GSL and the trapezoid check. */
#include "config.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "internal.h"

static double call_f(double x, void *param)
{
  return gq_integrand_eval(param, x);
}

static double call_abs_f(double x, void *param)
{
  return fabs(gq_integrand_eval(param, x));
}

/* Adaptive Gauss-Kronrod (21 points) with Wynn's epsilon extrapolation, which
 * copes with the endpoint singularities of circle-like integrands. */
static int qags(double (*fn)(double, void *), const gq_integrand *f, double lo, double hi,
                double epsrel, double *value, double *abserr)
{
  enum { LIMIT = 2000 };
  gsl_integration_workspace *w = gsl_integration_workspace_alloc(LIMIT);
  if (!w)
    return gq_fail(GQ_ENOMEM, "cannot allocate the GSL workspace");
  gsl_function F = {fn, (void *)f};
  /* GSL's default handler aborts; a reference that misses its tolerance
   * (GSL_EROUND, GSL_EMAXITER) still returns its best estimate and error. */
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  gsl_integration_qags(&F, lo, hi, 0.0, epsrel, LIMIT, w, value, abserr);
  gsl_set_error_handler(old);
  gsl_integration_workspace_free(w);
  return GQ_SUCCESS;
}

int gq_integrate_reference(const gq_integrand *f, double a, double b, gq_reference *ref)
{
  if (!f || !ref)
    return gq_fail(GQ_EINVAL, "gq_integrate_reference: NULL argument");
  if (!isfinite(a) || !isfinite(b))
    return gq_fail(GQ_EINVAL, "the limits must be finite numbers (a = %g, b = %g)", a, b);
  const double lo = fmin(a, b), hi = fmax(a, b), sign = a <= b ? 1.0 : -1.0;
  double err;
  int status = qags(call_abs_f, f, lo, hi, 1e-6, &ref->l1norm, &err);
  if (status != GQ_SUCCESS)
    return status;
  if (f->antiderivative) {
    const double Fa = f->antiderivative(a), Fb = f->antiderivative(b);
    ref->value = Fb - Fa;
    ref->abserr = 8.0 * DBL_EPSILON * (fabs(Fa) + fabs(Fb));
    ref->method = GQ_REFERENCE_EXACT;
  } else {
    status = qags(call_f, f, lo, hi, 1e-13, &ref->value, &ref->abserr);
    if (status != GQ_SUCCESS)
      return status;
    ref->value *= sign;
    ref->method = GQ_REFERENCE_QAGS;
  }
  if (!isfinite(ref->value))
    return gq_fail(GQ_EDOM, "the reference integral is not finite");
  return GQ_SUCCESS;
}

int gq_trapezoid_check(const gq_trapezoid_result *r, gq_precision precision,
                       const gq_reference *ref, double *tolerance)
{
  const double eps = precision == GQ_PRECISION_FLOAT ? 0x1p-24 : 0x1p-53;
  const double tol = GQ_CHECK_SAFETY * r->difference + 64.0 * eps * ref->l1norm + ref->abserr;
  if (tolerance)
    *tolerance = tol;
  const double diff = fabs(r->result - ref->value);
  if (!(diff <= tol))
    return gq_fail(GQ_ECHECK, "|estimate - reference| = %.3g exceeds the tolerance %.3g", diff, tol);
  return GQ_SUCCESS;
}
