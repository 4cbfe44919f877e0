/* t_jit_compile.c — NVRTC compiles the generated kernel of expressions of
 * every kind, double and float, for sm_90 (and the first for sm_80), and of
 * the changes of variables of infinite limits.  NVRTC needs no GPU, so
 * this runs wherever CUDA was configured. */
#include "config.h"

#include "../src/lib/internal.h"
#include "tap.h"

int main(void)
{
  const char *exprs[] = {
    "4*sqrt(1-x^2)", "exp(-x*x)*cos(3*x)", "4/(1+x^2)", "x^5 - 3*x^3 + 2*x - 1",
    "if(x < 0.5, sin(x), cos(x))", "atan2(x, 1) + hypot(x, 2) + pow(x, 2.5) + min(x, 0.3) + max(x, 0.1)",
    "tgamma(x + 1) + lgamma(x + 2) + erf(x) + erfc(x) + cbrt(x) + abs(x - 0.5)",
    "log(x + 1) + log2(x + 1) + log10(x + 1) + log1p(x) + exp2(x) + expm1(x)",
    "sinh(x) + cosh(x) + tanh(x) + asinh(x) + acosh(x + 1) + atanh(x / 2)",
    "floor(x * 10) + ceil(x * 10) + (x >= 0.25) + (x != 0.3) + tan(x) + asin(x) + acos(x)",
    "7",
    /* sines and cosines the fast grid sums rotate (grid_rot_source.cuh):
     * shared arguments, both functions of one, a product, a quotient, a
     * negation, more distinct arguments than the table holds, and others
     * that are not affine beside them */
    "sin(3*x)*cos(3*x) + cos(-x/2 + 1) + sin(2*(x + 1)) - sin(x^2)",
    "sin(x)*sin(2*x)*sin(3*x)*sin(4*x)*sin(5*x) + cos(pi*x)",
    "if(x < 0.5, sin(x) / x, cos(sqrt(2)*x - 3)) + sin(exp(x))",
    "exp(-x)*sin(5*x) + exp(3*x - 2)/(1 + x*x)",
  };
  const int ccs[] = {80, 90};
  for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(exprs[i], NULL, 0, 1, &f, NULL) == GQ_SUCCESS, "parse %s", exprs[i]))
      continue;
    for (int p = 0; p < 2; p++)
      for (size_t c = i == 0 ? 0 : 1; c < sizeof ccs / sizeof ccs[0]; c++) { /* sm_80 once */
        size_t size = 0;
        const int st = gq_jit_compile_only(f, p, ccs[c], &size);
        tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_%d %s: %s (%zu-byte cubin)%s%s", ccs[c],
               p ? "float" : "double", exprs[i], size, st ? ": " : "", st ? gq_last_error() : "");
      }
    gq_integrand_free(f);
  }
  /* The integrands of infinite limits (rules.c's changes of variables), of a
   * built-in and of an expression: f(phi(t)) phi'(t) under a guard. */
  static const char *const changes[][3] = {
    {"x/((1-x)*(1+x))", "(1+x^2)/((1-x)*(1+x))^2", "abs(x)<1"},
    {"2+x/(1-x)", "1/(1-x)^2", "x<1"},
    {"-x/(1-x)", "1/(1-x)^2", "x<1"},
  };
  gq_integrand *expr = NULL;
  gq_integrand_parse("x*exp(-x^2)/(1+x^2)", NULL, 0, 1, &expr, NULL);
  const gq_integrand *sources[] = {gq_integrand_builtin("gauss"), expr};
  for (size_t i = 0; i < 3; i++)
    for (size_t s = 0; s < 2; s++) {
      gq_integrand *g = NULL;
      if (!tap_ok(gq_integrand_changed(sources[s], changes[i][0], changes[i][1], changes[i][2], &g) ==
                      GQ_SUCCESS, "change x = %s in %s", changes[i][0], gq_integrand_formula(sources[s])))
        continue;
      for (int p = 0; p < 2; p++) {
        size_t size = 0;
        const int st = gq_jit_compile_only(g, p, 90, &size);
        tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 %s: x = %s in %s (%zu-byte cubin)%s%s",
               p ? "float" : "double", changes[i][0], gq_integrand_formula(sources[s]), size, st ? ": " : "",
               st ? gq_last_error() : "");
      }
      gq_integrand_free(g);
    }
  gq_integrand_free(expr);
  return tap_done();
}
