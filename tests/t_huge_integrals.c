/* t_huge_integrals.c — integrals that fit in a double although a sum of the
 * integrand's values does not (issue 13 item 12: 1e308 + x on [0, 1] was
 * refused): the trapezoid rule integrates 2^-k f and scales back, every
 * built-in and expression alike; an integral that truly overflows is still
 * refused. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/internal.h"
#include "tap.h"

/* The rule's estimate (the GSL reference overflows on its own: see
 * reference.c) against the exact integral. */
static void fits(gq_context *ctx, const gq_integrand *f, const char *what, double a, double b,
                 uint64_t n, double exact, double rel)
{
  gq_trapezoid_result r;
  const int st = gq_integrate_trapezoid(ctx, f, a, b, n, GQ_PRECISION_DOUBLE, &r);
  if (!tap_ok(st == GQ_SUCCESS && isfinite(r.abserr) && fabs(r.result - exact) <= rel * fabs(exact),
              "%s on [%g, %g], n = %llu: T = %.17g, exact %.17g, error estimate %.3g", what, a, b,
              (unsigned long long)n, r.result, exact, r.abserr))
    diag("status %d: %s", st, gq_last_error());
}

static void expression_fits(gq_context *ctx, const char *text, double a, double b, uint64_t n,
                            double exact, double rel)
{
  gq_integrand *f = NULL;
  if (!tap_ok(gq_integrand_parse(text, NULL, 0, 1, &f, NULL) == GQ_SUCCESS, "%s parses", text))
    return;
  fits(ctx, f, text, a, b, n, exact, rel);
  gq_integrand_free(f);
}

static void overflows(gq_context *ctx, const char *text, double a, double b, uint64_t n)
{
  gq_integrand *f = NULL;
  gq_trapezoid_result r;
  gq_integrand_parse(text, NULL, 0, 1, &f, NULL);
  const int st = gq_integrate_trapezoid(ctx, f, a, b, n, GQ_PRECISION_DOUBLE, &r);
  tap_ok(st == GQ_EDOM && strstr(gq_last_error(), "overflows a double") && r.nonfinite_count == 0,
         "%s on [%g, %g], n = %llu, overflows and says so: %s", text, a, b, (unsigned long long)n,
         gq_last_error());
  gq_integrand_free(f);
}

int main(void)
{
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  const uint64_t ns[] = {1, 2, 3, 1000, 1001, 1000000};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    /* Linear: the trapezoid rule is exact up to rounding. */
    expression_fits(ctx, "1e308+x", 0, 1, ns[i], 1e308 + 0.5, 1e-15);
    expression_fits(ctx, "1.7e308*x", 0, 1, ns[i], 0.85e308, 1e-15);
    expression_fits(ctx, "-1e308+x", 1, 0, ns[i], 1e308 - 0.5, 1e-15);
    expression_fits(ctx, "8e307*(x+1)", -1, 1, ns[i], 1.6e308, 1e-15);
  }
  /* A built-in, by way of the expression of its formula. */
  const double top = 709.7;
  fits(ctx, gq_integrand_builtin("exp"), "the built-in exp", 0, top, 1000000, expm1(top), 1e-6);
  expression_fits(ctx, "exp(x)", 0, top, 1000000, expm1(top), 1e-6);
  /* A power-of-two factor split off the expression still scales back. */
  expression_fits(ctx, "2^1000*(2^23+x)", 0, 1, 1000, ldexp(0x1p23 + 0.5, 1000), 1e-15);
  overflows(ctx, "1e308+x", -1, 1.5, 1000);
  overflows(ctx, "1e308*x^0", 0, 2, 1);
  overflows(ctx, "1.7e308", -1, 1, 7);

  /* What the integrand 2^-k f is. */
  gq_integrand *f = NULL, *small = NULL;
  gq_integrand_parse("1e308+x", NULL, 0, 1, &f, NULL);
  tap_ok(gq_integrand_scaled(f, 20, &small) == GQ_SUCCESS && gq_integrand_eval(small, 0.5) == ldexp(1e308, -20),
         "gq_integrand_scaled: 2^-20 (1e308 + x) at 0.5 is 2^-20 * 1e308");
  tap_ok(small && strcmp(gq_integrand_formula(small), gq_integrand_formula(f)) == 0 &&
             strchr(small->canonical, '|') != NULL,
         "gq_integrand_scaled: the same formula, a JIT key no expression has (%s)",
         small ? small->canonical : "-");
  gq_integrand_free(small);
  small = (gq_integrand *)1;
  tap_ok(gq_integrand_scaled(NULL, 20, &small) == GQ_EINVAL && gq_integrand_scaled(f, 0, &small) == GQ_EINVAL &&
             small == NULL && gq_integrand_scaled(f, 20, NULL) == GQ_EINVAL,
         "gq_integrand_scaled: NULL arguments and k < 1 are GQ_EINVAL");
  gq_integrand_free(f);
  gq_context_free(ctx);
  return tap_done();
}
