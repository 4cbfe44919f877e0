/* t_samples.c — gq_integrate_samples: scipy's numbers (scipy 1.17.1,
 * scipy.integrate.trapezoid and simpson, printed with %.17g) on small
 * inputs, repeated abscissae included; exactness (the trapezoid on lines,
 * Simpson on parabolas, any spacing, both parities); every size class
 * (2, 3, 4, 5, 2^k +- 1, 10^6 + 3) against the long double reference term by
 * term (check/samples.c), increasing and decreasing x, doubles and floats;
 * poisoned outputs; the refusals.  On the CPU backend; `t_samples gpu`
 * (tests/samples.gpu) runs the same on the CUDA backend, exit 77 without a
 * device, and compares it with the CPU's. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/check/check.h"
#include "../src/lib/poison.h"
#include "tap.h"
#include "tap_context.h"

static gq_context *cpu; /* the CPU's context, for the comparison on the GPU */

/* n values (double, or narrowed to float) copied into the context's memory. */
static void *put(gq_context *ctx, const double *v, size_t n, int is_float)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double);
  void *host = malloc(n * esize), *dev = NULL;
  for (size_t i = 0; i < n; i++) {
    if (is_float)
      ((float *)host)[i] = (float)v[i];
    else
      ((double *)host)[i] = v[i];
  }
  if (gq_alloc(ctx, n * esize, &dev) != GQ_SUCCESS || gq_copy_to(ctx, dev, host, n * esize) != GQ_SUCCESS) {
    printf("# cannot place %zu values: %s\n", n, gq_last_error());
    exit(99);
  }
  free(host);
  return dev;
}

static void poison(gq_samples_result *r)
{
  const uint64_t p = GQ_POISON;
  for (size_t k = 0; k < sizeof *r / sizeof p; k++)
    memcpy((char *)r + k * sizeof p, &p, sizeof p);
}

static int poisoned(const void *field)
{
  uint64_t w;
  memcpy(&w, field, sizeof w);
  return w == GQ_POISON;
}

/* The integral of y (and x, NULL: spacing dx) on ctx; every field written. */
static int integrate(gq_context *ctx, const double *y, const double *x, size_t n, double dx, gq_rule rule,
                     int is_float, gq_samples_result *r)
{
  void *dy = put(ctx, y, n, is_float), *dx_ = x ? put(ctx, x, n, is_float) : NULL;
  poison(r);
  const int status = gq_integrate_samples(ctx, dy, dx_, n, dx, rule, is_float, r);
  if (poisoned(&r->value) || poisoned(&r->abs_sum) || poisoned(&r->n) || poisoned(&r->first_bad))
    tap_ok(0, "n = %zu: a field of the result was left unwritten", n);
  gq_free(ctx, dy);
  gq_free(ctx, dx_);
  return status;
}

static const char *rule_name(gq_rule rule) { return rule == GQ_RULE_SIMPSON ? "simpson" : "trapezoid"; }

/* ---- scipy's numbers ------------------------------------------------------ */
static void scipy_values(gq_context *ctx)
{
  static const double y[] = {1, 3, 2, 5, 4}, x[] = {0, 0.5, 1.5, 2, 3.5}, xdown[] = {3.5, 2, 1.5, 0.5, 0};
  /* per n = 2..5: trapezoid(y, x), simpson(y, x), trapezoid(y, dx=0.25),
   * simpson(y, dx=0.25), simpson(y, x reversed) */
  static const double want[4][5] = {
    {1, 1, 0.5, 0.5, -1},
    {3.5, 4.125, 1.125, 1.25, -3.75},
    {5.25, 5.7777777777777777, 2, 2.041666666666667, -5.7777777777777777},
    {12, 14.569444444444443, 3.125, 3.4166666666666665, -11.597222222222221},
  };
  for (size_t n = 2; n <= 5; n++) {
    const double *w = want[n - 2];
    /* the reversed abscissae of the first n samples */
    const double *xr = xdown + (5 - n);
    const struct {
      const double *x;
      double dx;
      gq_rule rule;
      double want;
      const char *what;
    } cases[] = {
      {x, 0, GQ_RULE_TRAPEZOID, w[0], "trapezoid(y, x)"},
      {x, 0, GQ_RULE_SIMPSON, w[1], "simpson(y, x)"},
      {NULL, 0.25, GQ_RULE_TRAPEZOID, w[2], "trapezoid(y, dx=0.25)"},
      {NULL, 0.25, GQ_RULE_SIMPSON, w[3], "simpson(y, dx=0.25)"},
      {xr, 0, GQ_RULE_SIMPSON, w[4], "simpson(y, x decreasing)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      gq_samples_result r;
      const int s = integrate(ctx, y, cases[k].x, n, cases[k].dx, cases[k].rule, 0, &r);
      tap_ok(s == GQ_SUCCESS && fabs(r.value - cases[k].want) <= 4 * DBL_EPSILON * fabs(cases[k].want),
             "n = %zu: %s = %.17g (scipy %.17g)", n, cases[k].what, r.value, cases[k].want);
    }
  }
  /* repeated abscissae: scipy's zero divisions leave 0, not NaN */
  static const double yr[] = {1, 2, 4, 3, 1, 2}, xrep[] = {0, 1, 1, 2, 2, 3};
  const struct {
    size_t n;
    gq_rule rule;
    double want;
  } rep[] = {{6, GQ_RULE_TRAPEZOID, 6.5}, {6, GQ_RULE_SIMPSON, 3.9999999999999996},
             {5, GQ_RULE_SIMPSON, 3.333333333333333}, {5, GQ_RULE_TRAPEZOID, 5}};
  for (size_t k = 0; k < sizeof rep / sizeof rep[0]; k++) {
    gq_samples_result r;
    const int s = integrate(ctx, yr, xrep, rep[k].n, 0, rep[k].rule, 0, &r);
    tap_ok(s == GQ_SUCCESS && fabs(r.value - rep[k].want) <= 4 * DBL_EPSILON * fabs(rep[k].want),
           "repeated x, n = %zu: %s = %.17g (scipy %.17g)", rep[k].n, rule_name(rep[k].rule), r.value, rep[k].want);
  }
  /* scipy takes any dx: negative flips the sign, 0 gives 0 */
  gq_samples_result r;
  int s = integrate(ctx, y, NULL, 5, -0.5, GQ_RULE_SIMPSON, 0, &r);
  tap_ok(s == GQ_SUCCESS && fabs(r.value + 6.833333333333333) <= 4 * DBL_EPSILON * 7,
         "simpson(y, dx=-0.5) = %.17g (scipy -6.833333333333333)", r.value);
  s = integrate(ctx, y, NULL, 4, 0.0, GQ_RULE_SIMPSON, 0, &r);
  tap_ok(s == GQ_SUCCESS && r.value == 0.0, "simpson(y, dx=0) = %g (scipy 0)", r.value);
}

/* ---- exactness ----------------------------------------------------------- */
/* y = 1 + 2x - 3x^2 (simpson) or 1 + 2x (trapezoid) at unequal x in [0, 2]:
 * both rules integrate their degree exactly at any spacing (Cartwright's
 * correction too), so the result is the antiderivative's to rounding. */
static void exactness(gq_context *ctx)
{
  enum { N_MAX = 10 };
  for (size_t n = 3; n <= N_MAX; n++)
    for (int rule = 0; rule < 2; rule++) {
      double x[N_MAX], y[N_MAX];
      for (size_t i = 0; i < n; i++) {
        const double t = (double)i / (double)(n - 1);
        x[i] = 2.0 * t * t * (3.0 - 2.0 * t) * 0.5 + t; /* smooth, increasing, uneven */
        y[i] = 1.0 + 2.0 * x[i] - (rule ? 3.0 * x[i] * x[i] : 0.0);
      }
      const double b = x[n - 1], exact = b + b * b - (rule ? b * b * b : 0.0);
      gq_samples_result r;
      const int s = integrate(ctx, y, x, n, 0, rule ? GQ_RULE_SIMPSON : GQ_RULE_TRAPEZOID, 0, &r);
      tap_ok(s == GQ_SUCCESS && fabs(r.value - exact) <= 32 * DBL_EPSILON * (r.abs_sum + fabs(exact)),
             "%s exact on degree %d, n = %zu, uneven x: %.17g vs %.17g", rule ? "simpson" : "trapezoid", rule ? 2 : 1,
             n, r.value, exact);
    }
}

/* ---- every size against the reference ----------------------------------- */
static double uniform01(uint64_t *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) * 0x1p-53;
}

static void sizes(gq_context *ctx, int gpu)
{
  const size_t list[] = {2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 65535, 65537, 1000003};
  for (size_t s = 0; s < sizeof list / sizeof list[0]; s++) {
    const size_t n = list[s];
    double *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x), *xd = malloc(n * sizeof *xd);
    uint64_t state = n;
    double at = -1.0;
    for (size_t i = 0; i < n; i++) {
      at += 0.5 + uniform01(&state); /* uneven spacing */
      x[i] = at;
      xd[n - 1 - i] = -at;
      y[i] = sin(at) + 0.25 * uniform01(&state);
    }
    for (int is_float = 0; is_float < 2; is_float++) {
      /* the reference reads what the library reads: the floats themselves */
      float *yf = malloc(n * sizeof *yf), *xf = malloc(n * sizeof *xf), *xdf = malloc(n * sizeof *xdf);
      for (size_t i = 0; i < n; i++) {
        yf[i] = (float)y[i];
        xf[i] = (float)x[i];
        xdf[i] = (float)xd[i];
      }
      for (int rule = 0; rule < 2; rule++)
        for (int spacing = 0; spacing < 3; spacing++) { /* dx, x increasing, x decreasing */
          const gq_rule R = rule ? GQ_RULE_SIMPSON : GQ_RULE_TRAPEZOID;
          const double *xs = spacing == 0 ? NULL : spacing == 1 ? x : xd;
          const void *hx = spacing == 0 ? NULL : is_float ? (const void *)(spacing == 1 ? xf : xdf) : (const void *)xs;
          const double dx = 0.3;
          gq_samples_result r;
          const int st = integrate(ctx, y, xs, n, dx, R, is_float, &r);
          gq_ref_samples ref;
          gq_check_outcome out;
          gq_check_samples(is_float ? (const void *)yf : (const void *)y, hx, n, dx, R, is_float, r.value, &ref, &out);
          const char *sp = spacing == 0 ? "dx" : spacing == 1 ? "x up" : "x down";
          tap_ok(st == GQ_SUCCESS && out.verdict == GQ_CHECK_PASSED && r.n == n && r.first_bad == GQ_NO_INDEX,
                 "n = %zu %s %s %s: %.17g, reference %.17g (tolerance %.3g)", n, is_float ? "f32" : "f64",
                 rule_name(R), sp, r.value, ref.value, ref.tol);
          if (gpu) { /* the CPU backend's result, within the same tolerance */
            gq_samples_result c;
            integrate(cpu, y, xs, n, dx, R, is_float, &c);
            tap_ok(fabs(c.value - r.value) <= ref.tol, "n = %zu %s %s %s: gpu %.17g, cpu %.17g", n,
                   is_float ? "f32" : "f64", rule_name(R), sp, r.value, c.value);
          }
        }
      free(yf);
      free(xf);
      free(xdf);
    }
    free(y);
    free(x);
    free(xd);
  }
}

/* ---- refusals and non-finite samples --------------------------------------- */
static void refusals(gq_context *ctx)
{
  static const double y[] = {1, 2, 3, 4, 5, 6}, x[] = {0, 1, 2, 3, 4, 5};
  gq_samples_result r;
  tap_ok(integrate(ctx, y, NULL, 1, 1.0, GQ_RULE_TRAPEZOID, 0, &r) == GQ_EINVAL && isnan(r.value),
         "one sample: GQ_EINVAL (scipy gives 0), value NaN: %s", gq_last_error());
  tap_ok(integrate(ctx, y, NULL, 1, 1.0, GQ_RULE_SIMPSON, 0, &r) == GQ_EINVAL, "simpson of one sample: GQ_EINVAL");
  tap_ok(integrate(ctx, y, NULL, 6, 1.0, GQ_RULE_BOOLE, 0, &r) == GQ_EINVAL, "Boole: GQ_EINVAL: %s",
         gq_last_error());
  tap_ok(integrate(ctx, y, NULL, 6, INFINITY, GQ_RULE_TRAPEZOID, 0, &r) == GQ_EINVAL, "dx = inf: GQ_EINVAL");
  tap_ok(integrate(ctx, y, NULL, 6, NAN, GQ_RULE_SIMPSON, 0, &r) == GQ_EINVAL, "dx = NaN: GQ_EINVAL");
  tap_ok(gq_integrate_samples(ctx, NULL, NULL, 6, 1.0, GQ_RULE_TRAPEZOID, 0, &r) == GQ_EINVAL, "y NULL: GQ_EINVAL");
  tap_ok(gq_integrate_samples(ctx, y, NULL, 6, 1.0, GQ_RULE_TRAPEZOID, 0, NULL) == GQ_EINVAL, "out NULL: GQ_EINVAL");
  for (int rule = 0; rule < 2; rule++) {
    const gq_rule R = rule ? GQ_RULE_SIMPSON : GQ_RULE_TRAPEZOID;
    for (size_t bad = 0; bad < 6; bad++) {
      double xb[6], yb[6];
      memcpy(xb, x, sizeof xb);
      memcpy(yb, y, sizeof yb);
      xb[bad] = bad % 2 ? INFINITY : NAN;
      tap_ok(integrate(ctx, y, xb, 6, 0, R, 0, &r) == GQ_EINVAL, "%s: x[%zu] = %g: GQ_EINVAL: %s", rule_name(R), bad,
             xb[bad], gq_last_error());
      yb[bad] = bad % 2 ? -INFINITY : NAN;
      if (bad + 1 < 6)
        yb[bad + 1] = NAN; /* the first of two is named */
      for (int with_x = 0; with_x < 2; with_x++) {
        const int s = integrate(ctx, yb, with_x ? x : NULL, 6, 1.0, R, 0, &r);
        tap_ok(s == GQ_EDOM && r.first_bad == bad && !isfinite(r.value), "%s%s: y[%zu] = %g: GQ_EDOM, first %llu: %s",
               rule_name(R), with_x ? " with x" : "", bad, yb[bad], (unsigned long long)r.first_bad, gq_last_error());
      }
    }
  }
  /* finite samples whose integral overflows: +-inf, as scipy's */
  static const double huge[] = {1e308, 1.7e308, 1.7e308, 1e308};
  const int s = integrate(ctx, huge, NULL, 4, 1.0, GQ_RULE_TRAPEZOID, 0, &r);
  tap_ok(s == GQ_SUCCESS && r.value == INFINITY, "an overflowing integral: +inf, GQ_SUCCESS (%g)", r.value);
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();
  cpu = gpu ? gq_context_create(GQ_DEVICE_CPU) : ctx;
  scipy_values(ctx);
  exactness(ctx);
  sizes(ctx, gpu);
  refusals(ctx);
  if (gpu)
    gq_context_free(cpu);
  gq_context_free(ctx);
  return tap_done();
}
