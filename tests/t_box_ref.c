/* t_box_ref.c — gq_integrate_reference_box against exact values: integrands
 * that separate (products, sums, quotients, powers of sums, exp of a sum,
 * built-ins, reversed and infinite axes) through products of 1-D references,
 * and integrands that do not through libcubature's hcubature, with its
 * tolerance; the integral of |f| and the width; bad boxes and integrands.
 * Built without libcubature, the integrands that do not separate must have
 * no reference (GQ_EDOM, "built without libcubature"), and that is tested
 * instead. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/check/check.h"
#include "tap.h"

#define PI 3.14159265358979323846

static gq_integrand *parse(const char *text, int dims)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, dims, &f, NULL) != GQ_SUCCESS)
    diag("cannot parse %s: %s", text, gq_last_error());
  return f;
}

static gq_box box2(double a1, double b1, double a2, double b2)
{
  gq_box box = {2, {a1, a2}, {b1, b2}, {1, 1}};
  return box;
}

/* The reference of text over box: status, method, and |value - exact|
 * within its abserr (plus 4 ulp of the exact value's own rounding) and
 * abserr at most `accuracy` of the value. */
static void expect(const char *text, const gq_box *box, double exact, int method, double accuracy)
{
  gq_integrand *f = parse(text, box->dims);
  gq_reference ref;
  memset(&ref, 0xff, sizeof ref);
  const int status = f ? gq_integrate_reference_box(f, box, &ref) : GQ_EINVAL;
  const double diff = fabs(ref.value - exact);
  tap_ok(status == GQ_SUCCESS && ref.method == method && diff <= ref.abserr + 4.0 * DBL_EPSILON * fabs(exact) &&
             ref.abserr <= accuracy * fabs(exact) && ref.l1norm >= fabs(ref.value),
         "%s over a %d-D box: %.17g, exact %.17g, |diff| %.2g <= abserr %.2g (method %d) %s", text, box->dims,
         ref.value, exact, diff, ref.abserr, ref.method, status == GQ_SUCCESS ? "" : gq_last_error());
  gq_integrand_free(f);
}

static void separable(void)
{
  const double erf_sum = 0.5 * sqrt(PI) * (erf(2.0) + erf(1.0));
  gq_box b = box2(0, 2, 1, 3);
  expect("x1*x2^2", &b, 2.0 * 26.0 / 3.0, GQ_REFERENCE_SEPARABLE, 1e-13);
  expect("x*y^2", &b, 2.0 * 26.0 / 3.0, GQ_REFERENCE_SEPARABLE, 1e-13);
  b = box2(-1, 2, 0, 1);
  expect("exp(-x1^2)*cos(x2)", &b, erf_sum * sin(1.0), GQ_REFERENCE_SEPARABLE, 1e-12);
  expect("3*cos(x2)/exp(x1^2)", &b, 3.0 * erf_sum * sin(1.0), GQ_REFERENCE_SEPARABLE, 1e-12);
  b = box2(0, 1, 0, 2);
  expect("x1+x2^3", &b, 0.5 * 2.0 + 1.0 * 4.0, GQ_REFERENCE_SEPARABLE, 1e-13);
  expect("(x1+x2)^2", &b, 2.0 / 3.0 + 2.0 * 0.5 * 2.0 + 8.0 / 3.0, GQ_REFERENCE_SEPARABLE, 1e-13);
  expect("(x1-2*x2)*(x1+x2)-x1", &b, 2.0 / 3.0 - 2.0 * 8.0 / 3.0 - 0.5 * 2.0 - 1.0, GQ_REFERENCE_SEPARABLE,
         1e-13);
  b = box2(0, 1, 1, 2);
  expect("x1/x2", &b, 0.5 * log(2.0), GQ_REFERENCE_SEPARABLE, 1e-13);
  expect("(2*x1*x2)^3", &b, 8.0 * 0.25 * 15.0 / 4.0, GQ_REFERENCE_SEPARABLE, 1e-13);
  b = box2(1, 0, 0, 1); /* a reversed axis negates */
  expect("x1*x2", &b, -0.25, GQ_REFERENCE_SEPARABLE, 1e-13);
  gq_box b3 = {3, {0, 0, 0}, {1, 2, 3}, {1, 1, 1}};
  expect("x1*x2*x3", &b3, 0.5 * 2.0 * 4.5, GQ_REFERENCE_SEPARABLE, 1e-13);
  expect("exp(x1+2*x2-x3+1)", &b3, exp(1.0) * (exp(1.0) - 1.0) * (exp(4.0) - 1.0) / 2.0 * (1.0 - exp(-3.0)),
         GQ_REFERENCE_SEPARABLE, 1e-12);
  gq_box b6 = {6, {0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 2}, {1, 1, 1, 1, 1, 1}};
  expect("x1*x2*x3*x4*x5*x6+1", &b6, 2.0 / 32.0 + 2.0, GQ_REFERENCE_SEPARABLE, 1e-13);

  /* infinite axes: the 1-D references are GSL's qagi and qagiu */
  b = box2(-INFINITY, INFINITY, -INFINITY, INFINITY);
  expect("exp(-x1^2-x2^2)", &b, PI, GQ_REFERENCE_SEPARABLE, 1e-12);
  expect("exp(-(x1^2+x2^2))", &b, PI, GQ_REFERENCE_SEPARABLE, 1e-12);
  b = box2(0, INFINITY, 0, 1);
  expect("x2*exp(-x1)", &b, 0.5, GQ_REFERENCE_SEPARABLE, 1e-12);
}

static void builtin_and_one_dimension(void)
{
  const gq_integrand *gauss = gq_integrand_builtin("gauss");
  gq_box b = box2(-1, 2, 0, 3);
  gq_reference ref, one;
  const int status = gq_integrate_reference_box(gauss, &b, &ref);
  gq_integrate_reference(gauss, -1, 2, &one);
  tap_ok(status == GQ_SUCCESS && ref.method == GQ_REFERENCE_SEPARABLE && fabs(ref.value - 3.0 * one.value) <=
             ref.abserr && ref.width == 9.0,
         "the built-in gauss over [-1, 2] x [0, 3]: 3 times its 1-D reference (%.17g), width %g", ref.value,
         ref.width);
  gq_box line = {1, {0}, {2}, {1}};
  gq_integrand *f = parse("x*exp(x)", 1);
  gq_reference r1, r2;
  const int s1 = gq_integrate_reference_box(f, &line, &r1), s2 = gq_integrate_reference(f, 0, 2, &r2);
  tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && r1.value == r2.value && r1.abserr == r2.abserr &&
             r1.l1norm == r2.l1norm && r1.method == r2.method && r1.width == r2.width,
         "a 1-D box is gq_integrate_reference's integral, to the bit (%.17g)", r1.value);
  gq_integrand_free(f);
}

static void norm_and_width(void)
{
  gq_integrand *f = parse("x1*x2", 2);
  gq_box b = box2(-1, 2, 0, 1);
  gq_reference ref;
  int status = gq_integrate_reference_box(f, &b, &ref);
  tap_ok(status == GQ_SUCCESS && fabs(ref.value - 0.75) <= 1e-15 && fabs(ref.l1norm - 1.25) <= 1e-6 &&
             ref.width == 3.0,
         "x1*x2 over [-1, 2] x [0, 1]: 0.75, the integral of |f| 1.25 (%.17g), width 3 (%g)", ref.l1norm,
         ref.width);
  gq_integrand_free(f);
  f = parse("exp(-x1^2)*exp(-x2)", 2);
  b = box2(-INFINITY, INFINITY, 0, INFINITY);
  status = gq_integrate_reference_box(f, &b, &ref);
  tap_ok(status == GQ_SUCCESS && ref.width == 2.0 && fabs(ref.value - sqrt(PI)) <= ref.abserr + 1e-15,
         "infinite axes: width of the t-intervals 2 x 1 (%g), value sqrt(pi) (%.17g)", ref.width, ref.value);
  gq_integrand_free(f);
}

#ifdef HAVE_CUBATURE
/* exp(x1 x2) over [0, 1]^2 = sum over n >= 0 of 1 / ((n + 1)^2 n!). */
static double exp_product(void)
{
  double sum = 0.0, factorial = 1.0;
  for (int n = 0; n < 30; n++) {
    if (n > 0)
      factorial *= n;
    sum += 1.0 / ((n + 1.0) * (n + 1.0) * factorial);
  }
  return sum;
}
#endif

static void not_separable(void)
{
#ifdef HAVE_CUBATURE
  gq_box b = box2(0, 1, 0, 1);
  expect("1/(1+x1*x2)", &b, PI * PI / 12.0, GQ_REFERENCE_HCUBATURE, 2e-10);
  expect("exp(x1*x2)", &b, exp_product(), GQ_REFERENCE_HCUBATURE, 2e-10);
  expect("sin(x1+x2)", &b, 2.0 * sin(1.0) - sin(2.0), GQ_REFERENCE_HCUBATURE, 2e-10);
  b = box2(1, 0, 0, 1);
  expect("1/(1+x1*x2)", &b, -PI * PI / 12.0, GQ_REFERENCE_HCUBATURE, 2e-10);
  /* half-lines: the integral of s exp(-s^2) over s = x1 + x2 >= 0 */
  b = box2(0, INFINITY, 0, INFINITY);
  expect("exp(-(x1+x2)^2)", &b, 0.5, GQ_REFERENCE_HCUBATURE, 2e-10);
  b = box2(INFINITY, 0, -INFINITY, 0);
  expect("exp(-(x1-x2)^2)", &b, -0.5, GQ_REFERENCE_HCUBATURE, 2e-10);
  /* exp(-x^T A x), A = [[1, 1/2], [1/2, 1]]: pi / sqrt(det A) */
  b = box2(-INFINITY, INFINITY, -INFINITY, INFINITY);
  expect("exp(-(x1^2+x1*x2+x2^2))", &b, PI / sqrt(0.75), GQ_REFERENCE_HCUBATURE, 2e-10);
  /* an integral that cancels: converged on 1e-10 of the integral of |f| */
  gq_integrand *f = parse("sin(x1+x2)", 2);
  gq_reference ref;
  b = box2(-1, 1, -1, 1);
  int status = gq_integrate_reference_box(f, &b, &ref);
  tap_ok(status == GQ_SUCCESS && fabs(ref.value) <= ref.abserr + 1e-15 && ref.abserr <= 1e-10 * ref.l1norm &&
             ref.l1norm > 1.0,
         "sin(x1+x2) over [-1, 1]^2 cancels: %.3g +/- %.3g, the integral of |f| %.6g", ref.value, ref.abserr,
         ref.l1norm);
  gq_integrand_free(f);
  /* f infinite at the box's centre, hcubature's first point */
  f = parse("1/(x1-x2)", 2);
  b = box2(0, 1, 0, 1);
  status = gq_integrate_reference_box(f, &b, &ref);
  tap_ok(status == GQ_EDOM && strstr(gq_last_error(), "not finite"), "1/(x1-x2) over [0, 1]^2: no reference (%s)",
         gq_last_error());
  gq_integrand_free(f);
  /* a jump along a diagonal: h-adaptive cubature gains about one digit per
   * level, and the evaluations run out before even |f| has 6 digits (f >= 0:
   * its estimate is that of f as well) */
  f = parse("(x1+x2<0.7)*(1+x1)", 2);
  status = gq_integrate_reference_box(f, &b, &ref);
  tap_ok(status == GQ_EDOM && strstr(gq_last_error(), "reached only") && isnan(ref.value) &&
             fabs(ref.l1norm - 0.245 - 0.7 * 0.7 * 0.7 / 6.0) < 1e-4,
         "a discontinuity across the diagonal: no reference, the estimate of |f| kept, %.6g (%s)", ref.l1norm,
         gq_last_error());
  gq_integrand_free(f);
#else
  gq_integrand *f = parse("1/(1+x1*x2)", 2);
  gq_box b = box2(0, 1, 0, 1);
  gq_reference ref;
  const int status = gq_integrate_reference_box(f, &b, &ref);
  tap_ok(status == GQ_EDOM && strstr(gq_last_error(), "built without libcubature"),
         "built without libcubature: no reference for 1/(1+x1*x2) (%s)", gq_last_error());
  gq_integrand_free(f);
#endif
}

static void refused(void)
{
  gq_integrand *f = parse("x1*x2", 3), *g = parse("x1*x3", 3), *h = parse("x1+x2", 2);
  gq_reference ref;
  gq_box b = box2(0, 1, 0, 1);
  tap_ok(gq_integrate_reference_box(NULL, &b, &ref) == GQ_EINVAL && gq_integrate_reference_box(f, NULL, &ref) ==
             GQ_EINVAL && gq_integrate_reference_box(f, &b, NULL) == GQ_EINVAL,
         "NULL f, box or ref: GQ_EINVAL");
  gq_box bad = b;
  bad.dims = 0;
  tap_ok(gq_integrate_reference_box(f, &bad, &ref) == GQ_EINVAL, "0 dimensions: %s", gq_last_error());
  bad.dims = GQ_MAX_DIM + 1;
  tap_ok(gq_integrate_reference_box(f, &bad, &ref) == GQ_EINVAL, "%d dimensions: %s", GQ_MAX_DIM + 1,
         gq_last_error());
  tap_ok(gq_integrate_reference_box(g, &b, &ref) == GQ_EINVAL && strstr(gq_last_error(), "x3"),
         "x3 in a 2-D box: %s", gq_last_error());
  bad = box2(0, NAN, 0, 1);
  tap_ok(gq_integrate_reference_box(f, &bad, &ref) == GQ_EINVAL && isnan(ref.value), "a NaN limit: %s",
         gq_last_error());
  bad = box2(0, 1, INFINITY, INFINITY);
  tap_ok(gq_integrate_reference_box(f, &bad, &ref) == GQ_EINVAL, "[inf, inf]: %s", gq_last_error());
  bad = box2(-DBL_MAX, DBL_MAX, 0, 1);
  tap_ok(gq_integrate_reference_box(f, &bad, &ref) == GQ_EINVAL, "b - a overflows: %s", gq_last_error());
  bad = box2(0, 1, 0, INFINITY);
  tap_ok(gq_integrate_reference_box(h, &bad, &ref) == GQ_EDOM && strstr(gq_last_error(), "diverges"),
         "x1 + x2 over [0, 1] x [0, inf): no reference (%s)", gq_last_error());
  gq_integrand_free(f);
  gq_integrand_free(g);
  gq_integrand_free(h);
}

/* gq_check_box: a result within its estimate of the reference passes, one
 * beyond it fails, and without a reference the check is not made. */
static void check_box(void)
{
  gq_integrand *f = parse("exp(-x1^2)*cos(x2)", 2), *g = parse("1/(x1-x2)", 2);
  const gq_box b = box2(-1, 2, 0, 1);
  const double exact = 0.5 * sqrt(PI) * (erf(2.0) + erf(1.0)) * sin(1.0);
  gq_rule_result r;
  memset(&r, 0, sizeof r);
  r.result = exact + 1e-9;
  r.difference = 1e-9;
  gq_reference ref;
  double tol;
  gq_check_outcome out;
  int status = gq_check_box(f, &b, &r, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
  tap_ok(status == GQ_SUCCESS && out.verdict == GQ_CHECK_PASSED && tol >= 4e-9 && tol < 1e-8,
         "gq_check_box: 1e-9 off with a difference of 1e-9 passes (tolerance %.3g)", tol);
  r.result = exact + 1e-7;
  status = gq_check_box(f, &b, &r, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
  tap_ok(status == GQ_SUCCESS && out.verdict == GQ_CHECK_FAILED, "1e-7 off fails: %s", out.message);
  const gq_box square = box2(0, 1, 0, 1);
  status = gq_check_box(g, &square, &r, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
  tap_ok(status == GQ_SUCCESS && out.verdict == GQ_CHECK_NOT_MADE && isnan(tol), "no reference, no check: %s",
         out.message);
  gq_integrand_free(f);
  gq_integrand_free(g);
}

int main(void)
{
  separable();
  builtin_and_one_dimension();
  norm_and_width();
  not_separable();
  refused();
  check_box();
  return tap_done();
}
