/* t_inf.c — infinite limits (issue 15): every rule, forward and reversed, in
 * double and float, against the exact integrals with tolerances from the
 * rules' own estimates; the reference from GSL's qagi, qagiu and qagil; a
 * slowly decaying f that must not pass; NaN and empty limits; the endpoint
 * and interior "f is not finite" errors in x.  On the CPU backend;
 * `t_inf gpu` (tests/inf.gpu) runs the same on the CUDA backend, exit 77
 * without a device, and compares the two backends. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/check/check.h"
#include "tap.h"
#include "tap_context.h"

static const gq_rule RULES[] = {GQ_RULE_TRAPEZOID, GQ_RULE_SIMPSON, GQ_RULE_BOOLE};

static const struct {
  const char *f;
  double a, b, exact;
  int method;
  const char *change;
} CASES[] = {
  {"exp(-x^2)", -INFINITY, INFINITY, 1.7724538509055160273, GQ_REFERENCE_QAGI, "x = t/(1-t^2), t in [-1, 1]"},
  {"gauss", -INFINITY, INFINITY, 1.7724538509055160273, GQ_REFERENCE_QAGI, "x = t/(1-t^2), t in [-1, 1]"},
  {"1/(1+x^2)", 0, INFINITY, 1.5707963267948966192, GQ_REFERENCE_QAGIU, "x = a + t/(1-t), t in [0, 1]"},
  {"1/(1+x^2)", -INFINITY, INFINITY, 3.1415926535897932385, GQ_REFERENCE_QAGI, "x = t/(1-t^2), t in [-1, 1]"},
  {"exp(x)", -INFINITY, 0, 1.0, GQ_REFERENCE_QAGIL, "x = b - t/(1-t), t in [0, 1]"},
  {"x*exp(-x)", 0, INFINITY, 1.0, GQ_REFERENCE_QAGIU, "x = a + t/(1-t), t in [0, 1]"},
  /* a finite limit away from 0: exp(-(x-2)) over [2, inf) and (-inf, 3] of exp(x-3) */
  {"exp(2-x)", 2, INFINITY, 1.0, GQ_REFERENCE_QAGIU, "x = a + t/(1-t), t in [0, 1]"},
  {"exp(x-3)", -INFINITY, 3, 1.0, GQ_REFERENCE_QAGIL, "x = b - t/(1-t), t in [0, 1]"},
};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

static gq_integrand *parse1(const char *text)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, 1, &f, NULL) != GQ_SUCCESS)
    printf("# cannot parse %s: %s\n", text, gq_last_error());
  return f;
}

/* The change's text with the limits reversed: its finite limit is the
 * other letter ("x = a + t/(1-t)" becomes "x = b + t/(1-t)"). */
static const char *swap_ab(const char *text)
{
  static char swapped[64];
  snprintf(swapped, sizeof swapped, "%s", text);
  for (char *c = swapped; *c; c++)
    *c = *c == 'a' ? 'b' : *c == 'b' ? 'a' : *c;
  return swapped;
}

/* Each case, rule, direction and precision against the exact value: the
 * error within 4 x |R - R'| (the check's bound) plus rounding, and the check
 * against GSL passes with the infinite-range method. */
static void exact_values(gq_context *ctx)
{
  for (int k = 0; k < NCASES; k++) {
    gq_integrand *f = parse1(CASES[k].f);
    for (int r = 0; r < 3; r++)
      for (int reversed = 0; reversed <= 1; reversed++)
        for (int p = 0; p <= 1; p++) {
          const gq_precision precision = p ? GQ_PRECISION_FLOAT : GQ_PRECISION_DOUBLE;
          const double a = reversed ? CASES[k].b : CASES[k].a, b = reversed ? CASES[k].a : CASES[k].b;
          const double exact = reversed ? -CASES[k].exact : CASES[k].exact;
          gq_rule_result res;
          const int status = gq_integrate_rule(ctx, f, RULES[r], a, b, 100000, precision, &res);
          const double eps = p ? FLT_EPSILON : DBL_EPSILON;
          const double tol = GQ_CHECK_SAFETY * res.difference + 64.0 * eps * fabs(exact);
          gq_reference ref;
          double check_tol;
          gq_check_outcome outcome;
          const int cs = gq_check_rule(f, a, b, &res, precision, &ref, &check_tol, &outcome);
          tap_ok(status == GQ_SUCCESS && fabs(res.result - exact) <= tol && isfinite(res.abserr) &&
                     strcmp(res.change, reversed ? swap_ab(CASES[k].change) : CASES[k].change) == 0 &&
                     cs == GQ_SUCCESS &&
                     outcome.verdict == GQ_CHECK_PASSED && ref.method == CASES[k].method &&
                     fabs(ref.value - exact) <= 1e-12 * fabs(exact),
                 "%s %s over [%g, %g] %s: %.17g (exact %.17g, error %.2g, tolerance %.2g; GSL %.17g, %s)",
                 gq_rule_name(RULES[r]), CASES[k].f, a, b, p ? "float" : "double", res.result, exact,
                 res.result - exact, tol, ref.value, outcome.verdict == GQ_CHECK_PASSED ? "passed" : outcome.message);
        }
    gq_integrand_free(f);
  }
}

/* 1/(1+|x|) has no integral over [0, inf): the result is huge (the value
 * next to the infinite end is about 2^53) and the check is never a pass. */
static void slow_decay(gq_context *ctx)
{
  gq_integrand *f = parse1("1/(1+abs(x))");
  const double limits[][2] = {{0, INFINITY}, {-INFINITY, INFINITY}, {-INFINITY, 5}};
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < 3; r++) {
      gq_rule_result res;
      const int status = gq_integrate_rule(ctx, f, RULES[r], limits[k][0], limits[k][1], 1000, GQ_PRECISION_DOUBLE,
                                           &res);
      gq_reference ref;
      double tol;
      gq_check_outcome outcome = {GQ_CHECK_PASSED, 0, ""};
      if (status == GQ_SUCCESS)
        gq_check_rule(f, limits[k][0], limits[k][1], &res, GQ_PRECISION_DOUBLE, &ref, &tol, &outcome);
      tap_ok((status == GQ_EDOM || (status == GQ_SUCCESS && res.result > 1e6)) &&
                 outcome.verdict != GQ_CHECK_PASSED,
             "1/(1+|x|) over [%g, %g] %s: not a pass (%.3g, %s)", limits[k][0], limits[k][1],
             gq_rule_name(RULES[r]), res.result, status == GQ_SUCCESS ? outcome.message : gq_last_error());
    }
  gq_integrand_free(f);
}

static void bad_limits(gq_context *ctx)
{
  gq_integrand *f = parse1("exp(-x^2)");
  const double limits[][2] = {{NAN, INFINITY}, {0, NAN},      {-INFINITY, NAN},
                              {INFINITY, INFINITY}, {-INFINITY, -INFINITY}};
  for (int k = 0; k < 5; k++) {
    gq_rule_result res;
    gq_reference ref;
    const int status = gq_integrate_rule(ctx, f, GQ_RULE_SIMPSON, limits[k][0], limits[k][1], 100,
                                         GQ_PRECISION_DOUBLE, &res);
    const int rs = gq_integrate_reference(f, limits[k][0], limits[k][1], &ref);
    tap_ok(status == GQ_EINVAL && rs == GQ_EINVAL && isnan(res.result), "[%g, %g]: GQ_EINVAL (%s)",
           limits[k][0], limits[k][1], gq_last_error());
  }
  gq_integrand_free(f);
}

/* "f is not finite" says where, in x: a finite endpoint, an interior point
 * (t = 1/2 is x = 1 on [0, inf), x = -1 on (-inf, 0]), and an infinite end
 * where f(x) x^2 has no limit (inf * 0 = NaN far out). */
static void nonfinite(gq_context *ctx)
{
  static const struct {
    const char *f;
    double a, b, x;
    const char *says;
  } cases[] = {
    {"exp(-x)/sqrt(x)", 0, INFINITY, 0, "endpoint a = 0"},
    {"exp(-x)/sqrt(x)", INFINITY, 0, 0, "endpoint a = 0"},
    {"exp(x)/sqrt(-x)", -INFINITY, 0, 0, "endpoint a = 0"},
    {"exp(-x)/(x-1)", 0, INFINITY, 1, "1 of the 999 interior points; the first is x = 1"},
    {"exp(x)/(x+1)", -INFINITY, 0, -1, "1 of the 999 interior points; the first is x = -1"},
    {"exp(x^2)*exp(-2*x^2)", 0, INFINITY, INFINITY, "does not tend to a finite limit as x -> Inf"},
    {"exp(x^2)*exp(-2*x^2)", -INFINITY, INFINITY, -INFINITY, "does not tend to a finite limit as x -> -Inf"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    gq_integrand *f = parse1(cases[k].f);
    gq_rule_result res;
    const int status = gq_integrate_rule(ctx, f, GQ_RULE_TRAPEZOID, cases[k].a, cases[k].b, 1000,
                                         GQ_PRECISION_DOUBLE, &res);
    tap_ok(status == GQ_EDOM && res.nonfinite_x == cases[k].x && strstr(gq_last_error(), cases[k].says),
           "%s over [%g, %g]: GQ_EDOM at x = %g (%s)", cases[k].f, cases[k].a, cases[k].b, res.nonfinite_x,
           gq_last_error());
    gq_integrand_free(f);
  }
}

/* The GPU against the CPU: the same f(x(t)) x'(t) at the same t_i, so the
 * rule values agree within 2 ulp plus what the device's functions may
 * differ by at the points (t_rules' bound). */
static void gpu_vs_cpu(gq_context *gpu, gq_context *cpu)
{
  for (int k = 0; k < NCASES; k++) {
    gq_integrand *f = parse1(CASES[k].f);
    for (int r = 0; r < 3; r++) {
      const uint64_t n = 1000004;
      gq_rule_result g, c;
      const int gs = gq_integrate_rule(gpu, f, RULES[r], CASES[k].a, CASES[k].b, n, GQ_PRECISION_DOUBLE, &g);
      const int cs = gq_integrate_rule(cpu, f, RULES[r], CASES[k].a, CASES[k].b, n, GQ_PRECISION_DOUBLE, &c);
      const double ulp = nextafter(fabs(c.result), INFINITY) - fabs(c.result);
      const double tol = 2 * ulp + 2 * DBL_EPSILON * fabs(CASES[k].exact) / sqrt((double)n);
      tap_ok(gs == GQ_SUCCESS && cs == GQ_SUCCESS && fabs(g.result - c.result) <= tol &&
                 fabs(g.coarse - c.coarse) <= 4 * tol,
             "%s %s over [%g, %g]: GPU %.17g CPU %.17g (%.2g ulp)", gq_rule_name(RULES[r]), CASES[k].f,
             CASES[k].a, CASES[k].b, g.result, c.result, fabs(g.result - c.result) / ulp);
    }
    gq_integrand_free(f);
  }
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  exact_values(ctx);
  slow_decay(ctx);
  bad_limits(ctx);
  nonfinite(ctx);
  if (gpu) {
    gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
    gpu_vs_cpu(ctx, cpu);
    gq_context_free(cpu);
  }
  gq_context_free(ctx);
  return tap_done();
}
