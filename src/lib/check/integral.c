/* integral.c — reference integrals from GSL and the check of a rule's result.
 *
 * A reference is only as good as GSL's verdict on it, so every status of
 * gsl_integration_qags is read.  The integral of |f| comes first: f has an
 * integral over [a, b] only if |f| does, and QAGS on f alone can return a
 * finite "principal value" with a tiny error estimate for 1/x on [-1, 2].
 * When |f| does not converge, or GSL cannot compute either integral to a
 * usable accuracy, there is no reference, and a check without a reference is
 * not a pass: gq_integrate_reference returns GQ_EDOM with GSL's reason, and
 * gq_trapezoid_check returns GQ_ECHECK for a reference it cannot use.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "../internal.h"
#include "check.h"

/* QAGS's error estimate for the integral of |f| may be at most this fraction
 * of it: ∫|f| sets the scale of rounding errors and bounds the tolerance, so
 * it needs a digit or two, not thirteen. */
#define L1_MAX_RELERR 1e-2

/* What QAGS integrates: f, or |f|^power / norm^power (norm keeps f^2 of a
 * large f from overflowing), on an interval or against the standard normal
 * density.  A pole that falls on a Kronrod node (the midpoint of [0, 1] for
 * 1/sqrt(|x - 0.5|)) is one point, which no integral sees: it counts as 0
 * there, and QAGS, bisecting at it, never evaluates it again.  Infinities at
 * more than a few points are not poles but an f that is infinite on a set
 * of measure > 0 (exp(1000 x)), and leave no reference. */
typedef struct {
  const gq_integrand *f;
  int power; /* 0: f itself */
  double norm;
  unsigned long infinities;
} integrand_call;

enum { MAX_POLES = 4 };

static double call_f(double x, void *param)
{
  integrand_call *c = param;
  const double v = gq_integrand_eval(c->f, x);
  if (isinf(v)) {
    c->infinities++;
    return 0.0;
  }
  if (c->power == 0)
    return v / c->norm;
  const double scaled = fabs(v) / c->norm;
  return c->power == 2 ? scaled * scaled : scaled;
}

static double call_f_normal(double x, void *param)
{
  const double density = exp(-0.5 * x * x) * 0.39894228040143267794;
  /* where the density underflows, so does f times it for any f that has a
   * mean (slower than exp(x^2 / 2)) */
  return density == 0.0 ? 0.0 : call_f(x, param) * density;
}

/* Where QAGS integrates: [lo, hi], or an infinite interval through GSL's own
 * change of variables (qagi: the line; qagiu: [lo, inf); qagil: (-inf, hi]),
 * in the order of GQ_REFERENCE_QAGS ... GQ_REFERENCE_QAGIL. */
enum { RANGE_FINITE, RANGE_LINE, RANGE_UPPER, RANGE_LOWER };
static const char *const range_gsl[] = {"gsl_integration_qags", "gsl_integration_qagi",
                                        "gsl_integration_qagiu", "gsl_integration_qagil"};

/* Adaptive Gauss-Kronrod (21 points, 15 on infinite ranges) with Wynn's
 * epsilon extrapolation, which copes with the endpoint singularities of
 * circle-like integrands, over the range.  *gsl_status is GSL's
 * verdict; *value and *abserr are its best estimate whatever it says.  A run
 * that uses up its subintervals (an oscillating f over many periods: sin over
 * [0, 1e5] needs some 16000) is repeated once with many more. */
static int qags(double (*fn)(double, void *), void *param, int range, double lo, double hi, double epsrel,
                double *value, double *abserr, int *gsl_status)
{
  static const size_t limits[] = {2000, 50000};
  gsl_function F = {fn, param};
  for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
    /* GSL's default handler aborts, out of memory too: turn it off and read
     * the statuses instead. */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(limits[k]);
    if (!w) {
      gsl_set_error_handler(old);
      return gq_fail(GQ_ENOMEM, "cannot allocate the GSL workspace (%zu subintervals)", limits[k]);
    }
    switch (range) {
    case RANGE_LINE:
      *gsl_status = gsl_integration_qagi(&F, 0.0, epsrel, limits[k], w, value, abserr);
      break;
    case RANGE_UPPER:
      *gsl_status = gsl_integration_qagiu(&F, lo, 0.0, epsrel, limits[k], w, value, abserr);
      break;
    case RANGE_LOWER:
      *gsl_status = gsl_integration_qagil(&F, hi, 0.0, epsrel, limits[k], w, value, abserr);
      break;
    default:
      *gsl_status = gsl_integration_qags(&F, lo, hi, 0.0, epsrel, limits[k], w, value, abserr);
    }
    gsl_integration_workspace_free(w);
    gsl_set_error_handler(old);
    if (*gsl_status != GSL_EMAXITER)
      break;
  }
  return GQ_SUCCESS;
}

/* Roundoff (GSL_EROUND) and the subdivision limit (GSL_EMAXITER) stop QAGS
 * short of the tolerance asked for but leave an estimate with an honest error
 * bound; divergence (GSL_EDIVERGE), a singularity it cannot integrate
 * (GSL_ESING) and anything else leave none. */
static int usable(int gsl_status, double value, double abserr)
{
  const int soft = gsl_status == GSL_SUCCESS || gsl_status == GSL_EROUND || gsl_status == GSL_EMAXITER;
  return soft && isfinite(value) && isfinite(abserr) && abserr >= 0.0;
}

/* QAGS's 21-point sums overflow long before the integral does (1e308 + x):
 * callers integrate f / norm, norm a power of two (so the scaling is exact)
 * 2^16 below the largest |f| at 33 points of [lo, hi] (of [-8, 8] on the
 * line), and scale back; 1 for an f of ordinary size. */
double gq_size_norm(const gq_integrand *f, int line, double lo, double hi)
{
  if (line)
    lo = -8.0, hi = 8.0;
  double big = 0.0;
  for (int k = 0; k <= 32; k++) {
    const double v = fabs(gq_integrand_eval(f, lo + (hi - lo) * k / 32.0));
    if (isfinite(v) && v > big)
      big = v;
  }
  return big > 0x1p900 ? ldexp(1.0, ilogb(big) - 16) : 1.0;
}

/* The integral of |f|^power / norm^power (fn: call_f, or call_f_normal
 * against the normal density) over the range, to L1_MAX_RELERR; width is
 * the scale of underflow. */
static int moment(double (*fn)(double, void *), const gq_integrand *f, int range, double lo, double hi,
                  double width, int power, double norm, double *value)
{
  integrand_call c = {f, power, norm, 0};
  double abserr;
  int gsl_status;
  const int status = qags(fn, &c, range, lo, hi, 1e-6, value, &abserr, &gsl_status);
  if (status != GQ_SUCCESS)
    return status;
  if (c.infinities > MAX_POLES)
    return gq_fail(GQ_EDOM, "f is infinite at %lu of the points GSL evaluated", c.infinities);
  if (!usable(gsl_status, *value, abserr) || *value < 0.0 ||
      abserr > L1_MAX_RELERR * *value + 64.0 * DBL_MIN * width)
    return gq_fail(GQ_EDOM, "%s: %s; %g +/- %g", range_gsl[range], gsl_strerror(gsl_status), *value,
                   abserr);
  return GQ_SUCCESS;
}

int gq_abs_moment(const gq_integrand *f, int line, double lo, double hi, int power, double norm,
                  double *value)
{
  return moment(line ? call_f_normal : call_f, f, line ? RANGE_LINE : RANGE_FINITE, lo, hi,
                line ? 1.0 : hi - lo, power, norm, value);
}

int gq_integrate_reference(const gq_integrand *f, double a, double b, gq_reference *ref)
{
  if (!ref)
    return gq_fail(GQ_EINVAL, "gq_integrate_reference: NULL argument");
  ref->value = ref->abserr = ref->l1norm = NAN;
  ref->method = GQ_REFERENCE_QAGS;
  if (!f)
    return gq_fail(GQ_EINVAL, "gq_integrate_reference: NULL argument");
  if (isnan(a) || isnan(b))
    return gq_fail(GQ_EINVAL, "the limits must be numbers (a = %g, b = %g)", a, b);
  const double lo = fmin(a, b), hi = fmax(a, b), sign = a <= b ? 1.0 : -1.0;
  const int range = !isinf(lo) && !isinf(hi) ? RANGE_FINITE : isinf(lo) && isinf(hi) ? RANGE_LINE
                  : isinf(hi) ? RANGE_UPPER : RANGE_LOWER;
  if (range != RANGE_FINITE && a == b)
    return gq_fail(GQ_EINVAL, "the interval [%g, %g] is empty", a, b);
  /* On an infinite range the rule sums over the t-interval of its change of
   * variables (rules.c): its width is the scale of underflow. */
  ref->width = range == RANGE_FINITE ? fabs(b - a) : range == RANGE_LINE ? 2.0 : 1.0;
  if (!isfinite(ref->width))
    return gq_fail(GQ_EINVAL, "b - a overflows a double (a = %g, b = %g)", a, b);
  const double norm = gq_size_norm(f, range == RANGE_LINE, range == RANGE_LOWER ? hi - 16.0 : lo,
                                   range == RANGE_UPPER ? lo + 16.0 : hi);
  int status = moment(call_f, f, range, lo, hi, ref->width, 1, norm, &ref->l1norm);
  ref->l1norm *= norm;
  if (status == GQ_EDOM) {
    char why[256];
    snprintf(why, sizeof why, "%s", gq_last_error());
    return gq_fail(GQ_EDOM,
                   "no reference: the integral of |f| over [%.17g, %.17g] does not converge (%s), so f "
                   "has no integral there (a singularity that is not integrable?)",
                   lo, hi, why);
  }
  if (status != GQ_SUCCESS)
    return status;
  if (f->antiderivative && range == RANGE_FINITE) {
    const double Fa = f->antiderivative(a), Fb = f->antiderivative(b);
    ref->value = Fb - Fa;
    ref->abserr = 8.0 * DBL_EPSILON * (fabs(Fa) + fabs(Fb));
    ref->method = GQ_REFERENCE_EXACT;
    if (!isfinite(ref->value) || !isfinite(ref->abserr))
      return gq_fail(GQ_EDOM, "no reference: the antiderivative is not finite at the limits (F(a) = %g, F(b) = %g)",
                     Fa, Fb);
  } else {
    int gsl_status;
    integrand_call c = {f, 0, norm, 0};
    status = qags(call_f, &c, range, lo, hi, 1e-13, &ref->value, &ref->abserr, &gsl_status);
    if (status != GQ_SUCCESS)
      return status;
    ref->value *= sign * norm;
    ref->abserr *= norm;
    ref->method = GQ_REFERENCE_QAGS + range;
    if (!usable(gsl_status, ref->value, ref->abserr) || c.infinities > MAX_POLES)
      return gq_fail(GQ_EDOM, "no reference: GSL cannot compute the integral over [%.17g, %.17g] "
                              "(%s: %s; %g +/- %g)",
                     lo, hi, range_gsl[range], gsl_strerror(gsl_status), ref->value, ref->abserr);
  }
  /* |∫f| <= ∫|f|: QAGS can miss a narrow peak in a wide interval (gauss on
   * [-1e5, 1e5]) that an antiderivative does not */
  ref->l1norm = fmax(ref->l1norm, fabs(ref->value));
  gq_clear_error();
  return GQ_SUCCESS;
}

int gq_trapezoid_check(const gq_trapezoid_result *r, gq_precision precision,
                       const gq_reference *ref, double *tolerance)
{
  if (tolerance)
    *tolerance = NAN;
  if (!r || !ref)
    return gq_null_arg(__func__, r ? "ref" : "r");
  if (precision != GQ_PRECISION_DOUBLE && precision != GQ_PRECISION_FLOAT)
    return gq_fail(GQ_EINVAL, "unknown precision %d", (int)precision);
  if (!(isfinite(ref->value) && isfinite(ref->abserr) && ref->abserr >= 0.0 && isfinite(ref->l1norm) &&
        ref->l1norm >= 0.0 && isfinite(ref->width) && ref->width >= 0.0))
    return gq_fail(GQ_ECHECK, "no usable reference (%g +/- %g, integral of |f| %g)",
                   ref->value, ref->abserr, ref->l1norm);
  const int in_float = precision == GQ_PRECISION_FLOAT;
  const double eps = in_float ? 0x1p-24 : 0x1p-53;
  /* Below the smallest normal number f(x_i) keeps an absolute, not a relative,
   * accuracy: a floor of a few of those over the interval. */
  const double tiny = in_float ? FLT_MIN : DBL_MIN;
  const double rounding = 64.0 * eps * ref->l1norm + 64.0 * tiny * ref->width + 4.0 * DBL_TRUE_MIN;
  /* The bound GQ_CHECK_SAFETY * |result - coarse| (the coarser rule of the
   * same pass: T(2h) for the trapezoid) holds once the rule converges;
   * an estimate it puts as far off as a fair fraction of ∫|f| has not, and
   * says nothing (a singularity between the grid points makes it grow with
   * the error itself).  Capped, it cannot excuse any error. */
  const double cap = GQ_CHECK_MAX_FRACTION * ref->l1norm;
  const double discretisation = isnan(r->difference) ? cap : fmin(GQ_CHECK_SAFETY * r->difference, cap);
  /* A QAGS reference less accurate than the estimate's own tolerance (and
   * than 1e-6 of ∫|f|: QAGS struggled) would decide the check by its own
   * error.  An exact one is uncertain only by the rounding of F(b) - F(a). */
  if (ref->method != GQ_REFERENCE_EXACT && ref->abserr > fmax(discretisation + rounding, 1e-6 * ref->l1norm))
    return gq_fail(GQ_ECHECK,
                   "the reference %.17g is uncertain by %.3g, more than the "
                   "estimate's tolerance %.3g",
                   ref->value, ref->abserr, discretisation + rounding);
  const double tol = discretisation + rounding + ref->abserr;
  if (tolerance)
    *tolerance = tol;
  const double diff = fabs(r->result - ref->value);
  if (diff <= tol)
    return GQ_SUCCESS;
  if (GQ_CHECK_SAFETY * r->difference > cap)
    return gq_fail(GQ_ECHECK,
                   "|estimate - reference| = %.3g exceeds the tolerance %.3g; the rule has not converged "
                   "(%g x its difference from the coarser rule = %.3g is more than %g of the integral "
                   "of |f|, %.3g): more intervals, or a singularity in [a, b]?",
                   diff, tol, GQ_CHECK_SAFETY, GQ_CHECK_SAFETY * r->difference, GQ_CHECK_MAX_FRACTION,
                   ref->l1norm);
  return gq_fail(GQ_ECHECK, "|estimate - reference| = %.3g exceeds the tolerance %.3g", diff, tol);
}

/* A check that cannot be made (no reference: f has no integral, or GSL or
 * hcubature cannot compute it; or one too uncertain to decide) is no pass. */
int gq_check_box(const gq_integrand *f, const gq_box *box, const gq_rule_result *r, gq_precision precision,
                 gq_reference *ref, double *tolerance, gq_check_outcome *out)
{
  *tolerance = NAN;
  int status = gq_integrate_reference_box(f, box, ref);
  if (status == GQ_ENOMEM || status == GQ_ECUDA)
    return status;
  const int has_reference = status == GQ_SUCCESS;
  if (has_reference)
    status = gq_trapezoid_check(r, precision, ref, tolerance);
  gq_check_conclude(out, has_reference, status, *tolerance);
  return GQ_SUCCESS;
}

int gq_check_rule(const gq_integrand *f, double a, double b, const gq_rule_result *r,
                  gq_precision precision, gq_reference *ref, double *tolerance, gq_check_outcome *out)
{
  const gq_box line = {1, {a}, {b}, {0}};
  return gq_check_box(f, &line, r, precision, ref, tolerance, out);
}
