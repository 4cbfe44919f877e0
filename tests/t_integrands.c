/* t_integrands.c — built-ins and expressions are one kind of integrand:
 * each built-in's formula text parses to the same function as its compiled
 * row of integrands.def, its antiderivative differentiates back to it, and a
 * set of expressions integrated on the CPU passes the GSL check. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "tap.h"

int main(void)
{
  for (size_t k = 0;; k++) {
    const gq_integrand *b = gq_integrand_builtin_at(k);
    if (!b)
      break;
    gq_integrand *e = NULL;
    const int st = gq_integrand_parse(gq_integrand_formula(b), NULL, 0, 2, &e, NULL); /* dims 2: not the built-in */
    /* The C rows may order operations differently (poly is in Horner form), so
     * the differences are measured against the largest |f| on the interval. */
    double a, bb, worst = 0, scale = 0;
    gq_integrand_limits(b, &a, &bb);
    for (int i = 0; st == GQ_SUCCESS && i <= 1000; i++) {
      const double x = a + (bb - a) * i / 1000.0;
      const double want = gq_integrand_eval(b, x), got = gq_integrand_eval(e, x);
      worst = fmax(worst, fabs(got - want));
      scale = fmax(scale, fabs(want));
    }
    worst /= scale;
    tap_ok(st == GQ_SUCCESS && !gq_integrand_is_builtin(e) && worst <= 8 * DBL_EPSILON,
           "built-in %s: its formula '%s' parses to the same function (worst %.2g of max |f|)",
           gq_integrand_name(b), gq_integrand_formula(b), worst);
    gq_integrand_free(e);

    /* the exact reference: F' = f by central differences */
    gq_reference ref;
    gq_integrate_reference(b, a, bb, &ref);
    int good = ref.method == GQ_REFERENCE_EXACT;
    for (int j = 1; good && j < 8; j++) {
      const double x = a + (bb - a) * j / 8.0, h = 1e-5 * (bb - a);
      gq_reference lo, hi;
      gq_integrate_reference(b, a, x - h, &lo);
      gq_integrate_reference(b, a, x + h, &hi);
      const double d = (hi.value - lo.value) / (2 * h), f = gq_integrand_eval(b, x);
      good = fabs(d - f) <= 1e-6 * (fabs(f) + 1);
    }
    tap_ok(good, "built-in %s: the antiderivative differentiates back to f", gq_integrand_name(b));
  }

  /* Expressions on the CPU against GSL's QAGS, with the documented check. */
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  const struct {
    const char *text;
    double a, b;
  } cases[] = {
    {"exp(-x*x)*cos(3*x)", -2, 2},   {"x^3 - 2*x + 1", -1, 2},     {"1/(1+x^2)", -5, 5},
    {"sqrt(x)", 0, 2},               {"log(1+x)", 0, 3},          {"sin(x)^2", 0, 3.14159265358979},
    {"abs(x - 0.3)", 0, 1},          {"if(x < 0, -x, x^2)", -1, 1}, {"tanh(3*x)", -2, 2},
    {"erf(x)*exp(-x)", 0, 4},        {"atan2(x, 1 + x^2)", 0, 2},  {"hypot(x, 1) - min(x, 0.5)", 0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    gq_integrand_parse(cases[i].text, NULL, 0, 1, &f, NULL);
    gq_trapezoid_result r;
    gq_reference ref;
    double tol = 0;
    const int s1 = gq_integrate_trapezoid(ctx, f, cases[i].a, cases[i].b, 1000000, GQ_PRECISION_DOUBLE, &r);
    const int s2 = gq_integrate_reference(f, cases[i].a, cases[i].b, &ref);
    const int s3 = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
    tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && s3 == GQ_SUCCESS && ref.method == GQ_REFERENCE_QAGS,
           "%s on [%g, %g]: T = %.15g, QAGS %.15g, |diff| %.2g <= tol %.2g", cases[i].text, cases[i].a,
           cases[i].b, r.result, ref.value, fabs(r.result - ref.value), tol);
    gq_integrand_free(f);
  }
  gq_context_free(ctx);
  return tap_done();
}
