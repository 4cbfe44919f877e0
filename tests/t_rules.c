/* t_rules.c — the Newton-Cotes rules through gq_integrate_rule: exactness on
 * polynomials (degree d exact, d + 1 not), n validation, Simpson and Boole
 * against GSL and the antiderivatives, reversed limits, and the result
 * against the rule's sum of the same f(x_i) computed here in double-double
 * (2 ulp).  On the CPU backend; `t_rules gpu` (tests/rules.gpu) runs the
 * same on the CUDA backend, exit 77 without a device, and compares the two
 * backends. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/check/check.h"
#include "exact_sum.h"
#include "tap.h"
#include "tap_context.h"

static const gq_rule RULES[] = {GQ_RULE_TRAPEZOID, GQ_RULE_SIMPSON, GQ_RULE_BOOLE};
static const uint64_t MULTIPLE[] = {1, 2, 4};

static size_t builtins(void)
{
  size_t k = 0;
  while (gq_integrand_builtin_at(k))
    k++;
  return k;
}

static gq_integrand *parse1(const char *text)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, 1, &f, NULL) != GQ_SUCCESS)
    printf("# cannot parse %s: %s\n", text, gq_last_error());
  return f;
}

/* The rule's weight of point i of n (before the factor h num / den) and
 * that factor, written out from the rules' definitions, not from rules.c's
 * class table. */
static double weight(gq_rule rule, uint64_t i, uint64_t n)
{
  const int end = i == 0 || i == n;
  switch (rule) {
  case GQ_RULE_TRAPEZOID: return end ? 0.5 : 1.0;
  case GQ_RULE_SIMPSON: return end ? 1.0 : i % 2 ? 4.0 : 2.0;
  default: return end ? 7.0 : i % 2 ? 32.0 : i % 4 == 2 ? 12.0 : 14.0;
  }
}
static long double factor(gq_rule rule)
{
  return rule == GQ_RULE_TRAPEZOID ? 1.0L : rule == GQ_RULE_SIMPSON ? 1.0L / 3.0L : 2.0L / 45.0L;
}

/* The rule's sum of the host's f(x_i), x_i = fma(i, h, a) (x_n = b): the
 * weighted terms exactly (fma) in double-double, scaled in long double. */
static double host_rule(const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n)
{
  const double h = (b - a) / (double)n;
  dd s = {0, 0};
  for (uint64_t i = 0; i <= n; i++) {
    const double x = i == 0 ? a : i == n ? b : fma((double)i, h, a);
    const double v = gq_integrand_eval(f, x), w = weight(rule, i, n), p = w * v;
    s = dd_add(s, p);
    s = dd_add(s, fma(w, v, -p));
  }
  return (double)((long double)h * factor(rule) * ((long double)s.hi + (long double)s.lo));
}

static void validation(gq_context *ctx)
{
  gq_rule r;
  tap_ok(gq_rule_parse("simpson", &r) == GQ_SUCCESS && r == GQ_RULE_SIMPSON &&
             gq_rule_parse("boole", &r) == GQ_SUCCESS && r == GQ_RULE_BOOLE &&
             gq_rule_parse("trapezoid", &r) == GQ_SUCCESS && r == GQ_RULE_TRAPEZOID,
         "the three names parse");
  tap_ok(gq_rule_parse("gauss-legendre", &r) == GQ_SUCCESS && r == GQ_RULE_GAUSS_LEGENDRE &&
             gq_rule_parse("gauss", &r) == GQ_EINVAL && strstr(gq_last_error(), "simpson, boole or gauss-legendre"),
         "gauss-legendre is a rule, gauss is none: %s", gq_last_error());
  tap_ok(gq_rule_parse(NULL, &r) == GQ_EINVAL && gq_rule_parse("boole", NULL) == GQ_EINVAL, "NULL arguments");
  tap_ok(gq_rule_name((gq_rule)4) == NULL && gq_rule_degree((gq_rule)-1) == -1 &&
             gq_rule_degree(GQ_RULE_GAUSS_LEGENDRE) == 2 * gq_rule_default_nodes() - 1 &&
             strcmp(gq_rule_name(GQ_RULE_BOOLE), "boole") == 0 && gq_rule_degree(GQ_RULE_SIMPSON) == 3,
         "names and degrees; none for a value that is no rule");
  const struct {
    gq_rule rule;
    uint64_t n;
    const char *message; /* NULL: valid */
  } cases[] = {
    {GQ_RULE_SIMPSON, 1001, "simpson needs an even n; nearest: 1000 or 1002"},
    {GQ_RULE_SIMPSON, 1, "simpson needs an even n; nearest: 2"},
    {GQ_RULE_SIMPSON, 2, NULL},
    {GQ_RULE_BOOLE, 2, "boole needs an n that is a multiple of 4; nearest: 4"},
    {GQ_RULE_BOOLE, 1002, "boole needs an n that is a multiple of 4; nearest: 1000 or 1004"},
    {GQ_RULE_BOOLE, 1003, "boole needs an n that is a multiple of 4; nearest: 1000 or 1004"},
    {GQ_RULE_BOOLE, GQ_TRAPEZOID_MAX_N - 1, "nearest: 9007199254740988 or 9007199254740992"},
    {GQ_RULE_BOOLE, 4, NULL},
    {GQ_RULE_TRAPEZOID, 7, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const int st = gq_rule_check_n(cases[k].rule, cases[k].n);
    tap_ok(cases[k].message ? st == GQ_EINVAL && strstr(gq_last_error(), cases[k].message) : st == GQ_SUCCESS,
           "%s n=%llu: %s", gq_rule_name(cases[k].rule), (unsigned long long)cases[k].n,
           cases[k].message ? gq_last_error() : "valid");
  }
  const gq_integrand *sin_f = gq_integrand_builtin("sin");
  gq_rule_result res;
  tap_ok(gq_integrate_rule(ctx, sin_f, GQ_RULE_SIMPSON, 0, 1, 1001, GQ_PRECISION_DOUBLE, &res) == GQ_EINVAL &&
             isnan(res.result) && strstr(gq_last_error(), "nearest: 1000 or 1002"),
         "gq_integrate_rule refuses simpson on 1001 intervals: %s", gq_last_error());
  tap_ok(gq_integrate_rule(ctx, sin_f, (gq_rule)7, 0, 1, 8, GQ_PRECISION_DOUBLE, &res) == GQ_EINVAL &&
             gq_integrate_rule(NULL, sin_f, GQ_RULE_BOOLE, 0, 1, 8, GQ_PRECISION_DOUBLE, &res) == GQ_EINVAL &&
             gq_integrate_rule(ctx, sin_f, GQ_RULE_BOOLE, 0, 1, 0, GQ_PRECISION_DOUBLE, &res) == GQ_EINVAL,
         "an unknown rule, a NULL context, n = 0");
}

/* x^d on [-1, 3] (h a power of two: every x_i exact): degree <= the rule's
 * to rounding, the next degree visibly not; reversed limits negate. */
static void exactness(gq_context *ctx)
{
  for (size_t r = 0; r < 3; r++) {
    const gq_rule rule = RULES[r];
    const int degree = gq_rule_degree(rule);
    for (int d = 0; d <= degree + 1; d++) {
      char text[32];
      snprintf(text, sizeof text, "x^%d", d);
      gq_integrand *f = parse1(text);
      const double exact = (pow(3.0, d + 1) - pow(-1.0, d + 1)) / (d + 1);
      const double scale = (pow(3.0, d + 1) + 1.0) / (d + 1); /* integral of |x^d| */
      for (uint64_t n = MULTIPLE[r]; n <= 16; n *= 2) {
        gq_rule_result fwd, rev;
        const int s1 = gq_integrate_rule(ctx, f, rule, -1, 3, n, GQ_PRECISION_DOUBLE, &fwd);
        const int s2 = gq_integrate_rule(ctx, f, rule, 3, -1, n, GQ_PRECISION_DOUBLE, &rev);
        const double err = fabs(fwd.result - exact), err_rev = fabs(rev.result + exact);
        if (d <= degree)
          tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && err <= 8 * DBL_EPSILON * scale &&
                     err_rev <= 8 * DBL_EPSILON * scale,
                 "%s exact on %s, n=%llu: %.17g and reversed %.17g vs %.17g", gq_rule_name(rule), text,
                 (unsigned long long)n, fwd.result, rev.result, exact);
        else if (n <= 2 * MULTIPLE[r])
          tap_ok(s1 == GQ_SUCCESS && err > 1e-4 * scale && err_rev > 1e-4 * scale,
                 "%s not exact on %s, n=%llu: off by %.3g", gq_rule_name(rule), text, (unsigned long long)n, err);
      }
      gq_integrand_free(f);
    }
  }
}

/* Simpson and Boole against GSL: the built-ins on their limits and reversed,
 * and expressions; Simpson on n % 4 == 2 too (its estimate from T(2h)). */
static void against_gsl(gq_context *ctx)
{
  const struct {
    const char *text;
    double a, b;
  } exprs[] = {
    {"exp(-x*x)*cos(3*x)", 0, 2}, {"1/(1+x^2)", -3, 5}, {"log(1+x)", 0, 4}, {"sqrt(x)", 0, 2}, {"x*sin(10*x)", -1, 2},
  };
  const size_t nb = builtins(), ne = sizeof exprs / sizeof exprs[0];
  const uint64_t ns[] = {1000, 1002, 100000};
  for (size_t k = 0; k < nb + ne; k++) {
    gq_integrand *owned = NULL;
    const gq_integrand *f;
    double a, b;
    if (k < nb) {
      f = gq_integrand_builtin_at(k);
      gq_integrand_limits(f, &a, &b);
    } else {
      f = owned = parse1(exprs[k - nb].text);
      a = exprs[k - nb].a, b = exprs[k - nb].b;
    }
    for (size_t r = 1; r < 3; r++)
      for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
        for (int reversed = 0; reversed < 2; reversed++) {
          const uint64_t n = ns[j];
          if (n % MULTIPLE[r])
            continue;
          const double lo = reversed ? b : a, hi = reversed ? a : b;
          gq_rule_result res;
          gq_reference ref;
          double tol;
          gq_check_outcome out;
          const int st = gq_integrate_rule(ctx, f, RULES[r], lo, hi, n, GQ_PRECISION_DOUBLE, &res);
          const int cs = gq_check_rule(f, lo, hi, &res, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
          tap_ok(st == GQ_SUCCESS && cs == GQ_SUCCESS && out.verdict == GQ_CHECK_PASSED && res.rule == (int)RULES[r],
                 "%s %s on [%g, %g] n=%llu: %.17g vs %.17g (%s), diff %.3g, tol %.3g, est %.3g (%s) %s",
                 gq_rule_name(RULES[r]), gq_integrand_formula(f), lo, hi, (unsigned long long)n, res.result,
                 ref.value, ref.method == GQ_REFERENCE_EXACT ? "exact" : "qags", res.result - ref.value, tol,
                 res.abserr, res.error_formula, out.message);
        }
    gq_integrand_free(owned);
  }
  /* float evaluation (the sum still in double): the check's tolerance is
   * float's rounding */
  for (size_t k = 0; k < nb; k++)
    for (size_t r = 1; r < 3; r++) {
      const gq_integrand *f = gq_integrand_builtin_at(k);
      double a, b, tol;
      gq_integrand_limits(f, &a, &b);
      gq_rule_result res;
      gq_reference ref;
      gq_check_outcome out;
      const int st = gq_integrate_rule(ctx, f, RULES[r], a, b, 1000, GQ_PRECISION_FLOAT, &res);
      gq_check_rule(f, a, b, &res, GQ_PRECISION_FLOAT, &ref, &tol, &out);
      tap_ok(st == GQ_SUCCESS && out.verdict == GQ_CHECK_PASSED, "%s %s float n=1000: %.9g vs %.9g, tol %.3g %s",
             gq_rule_name(RULES[r]), gq_integrand_name(f), res.result, ref.value, tol, out.message);
    }
  /* A check that must fail: a narrow peak between the grid points, which
   * both the rule and its coarser rule miss. */
  gq_integrand *f = parse1("exp(-1000*(x-0.37)^2)");
  gq_rule_result res;
  gq_reference ref;
  double tol;
  gq_check_outcome out;
  for (size_t r = 1; r < 3; r++) {
    gq_integrate_rule(ctx, f, RULES[r], 0, 1, 8, GQ_PRECISION_DOUBLE, &res);
    gq_check_rule(f, 0, 1, &res, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
    tap_ok(out.verdict == GQ_CHECK_FAILED && strstr(out.message, "exceeds the tolerance"),
           "%s misses a narrow peak with n = 8: %.3g vs %.3g fails (%s)", gq_rule_name(RULES[r]), res.result,
           ref.value, out.message);
  }
  /* On smooth f the estimate is the error's size (Richardson: asymptotically
   * equal for the trapezoid and S(h) on n % 4 == 0, above it for Boole). */
  const char *smooth[] = {"gauss", "exp", "sin", "atan"};
  for (size_t k = 0; k < 4; k++)
    for (size_t r = 0; r < 3; r++) {
      const gq_integrand *g = gq_integrand_builtin(smooth[k]);
      double a, b;
      gq_integrand_limits(g, &a, &b);
      gq_integrate_rule(ctx, g, RULES[r], a, b, 64, GQ_PRECISION_DOUBLE, &res);
      gq_integrate_reference(g, a, b, &ref);
      const double err = fabs(res.result - ref.value);
      tap_ok(err <= 2 * res.abserr + 4 * DBL_EPSILON * ref.l1norm && res.abserr <= 1e-2 * ref.l1norm,
             "%s %s n=64: error %.3g within the estimate %.3g (%s)", gq_rule_name(RULES[r]), smooth[k], err,
             res.abserr, res.error_formula);
    }
  gq_integrand_free(f);
}

/* The 2-ulp property: the backend's result against the rule's sum of the
 * host's f(x_i).  The CPU evaluates the built-ins as the host does; the GPU
 * only where f(x_i) is exact on both (x*x on a grid of h = 2^-k). */
static void two_ulp(gq_context *ctx, int gpu)
{
  const uint64_t ns[] = {4, 8, 12, 1000, 2052, 65536, 1000004};
  const size_t nb = builtins();
  for (size_t k = gpu ? nb : 0; k <= nb; k++) {
    gq_integrand *owned = NULL;
    const gq_integrand *f;
    double a = 0, b = 1;
    if (k < nb) {
      f = gq_integrand_builtin_at(k);
      gq_integrand_limits(f, &a, &b);
    } else {
      f = owned = parse1("x*x");
    }
    for (size_t r = 0; r < 3; r++)
      for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
        const uint64_t n = k == nb ? (uint64_t)1 << (3 * j + 2) : ns[j];
        gq_rule_result res;
        const int st = gq_integrate_rule(ctx, f, RULES[r], a, b, n, GQ_PRECISION_DOUBLE, &res);
        const double want = host_rule(f, RULES[r], a, b, n);
        tap_ok(st == GQ_SUCCESS && fabs(res.result - want) <= 2 * ulp_of(want),
               "%s %s n=%llu: %.17g, host %.17g (%.2g ulp)", gq_rule_name(RULES[r]), gq_integrand_formula(f),
               (unsigned long long)n, res.result, want, fabs(res.result - want) / ulp_of(want));
      }
    gq_integrand_free(owned);
  }
}

/* The GPU against the CPU: the same rule values within 2 ulp plus what the
 * device's functions may differ by at the points (an ulp of some f(x_i),
 * which the sum carries). */
static void gpu_vs_cpu(gq_context *gpu, gq_context *cpu)
{
  const uint64_t ns[] = {4, 1000, 2052, 1000004, 16777216};
  for (size_t k = 0; k < builtins(); k++) {
    const gq_integrand *f = gq_integrand_builtin_at(k);
    double a, b;
    gq_integrand_limits(f, &a, &b);
    for (size_t r = 0; r < 3; r++)
      for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
        gq_rule_result g, c;
        const int gs = gq_integrate_rule(gpu, f, RULES[r], a, b, ns[j], GQ_PRECISION_DOUBLE, &g);
        const int cs = gq_integrate_rule(cpu, f, RULES[r], a, b, ns[j], GQ_PRECISION_DOUBLE, &c);
        gq_reference ref;
        gq_integrate_reference(f, a, b, &ref);
        const double tol = 2 * ulp_of(c.result) + 2 * DBL_EPSILON * ref.l1norm / sqrt((double)ns[j]);
        tap_ok(gs == GQ_SUCCESS && cs == GQ_SUCCESS && fabs(g.result - c.result) <= tol &&
                   fabs(g.coarse - c.coarse) <= 4 * tol,
               "%s %s n=%llu: GPU %.17g CPU %.17g (%.2g ulp)", gq_rule_name(RULES[r]), gq_integrand_name(f),
               (unsigned long long)ns[j], g.result, c.result, fabs(g.result - c.result) / ulp_of(c.result));
      }
  }
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  validation(ctx);
  exactness(ctx);
  against_gsl(ctx);
  two_ulp(ctx, gpu);
  {
    /* the trapezoid wrapper is the rule, bit for bit */
    const gq_integrand *f = gq_integrand_builtin("runge");
    gq_rule_result r1;
    gq_trapezoid_result r2;
    gq_integrate_rule(ctx, f, GQ_RULE_TRAPEZOID, -1, 1, 999, GQ_PRECISION_DOUBLE, &r1);
    gq_integrate_trapezoid(ctx, f, -1, 1, 999, GQ_PRECISION_DOUBLE, &r2);
    tap_ok(r1.result == r2.result && r1.coarse == r2.coarse && r2.rule == GQ_RULE_TRAPEZOID &&
               strcmp(r2.error_formula, "|T(h) - T(2h)|/3") == 0,
           "gq_integrate_trapezoid is the trapezoid rule: %.17g", r2.result);
  }
  if (gpu) {
    gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
    gpu_vs_cpu(ctx, cpu);
    gq_context_free(cpu);
  }
  gq_context_free(ctx);
  return tap_done();
}
