/* t_product.c — rules over boxes (gq_integrate_box): product grids in 1 to 6
 * dimensions for every rule, exact on polynomials up to the rule's degree in
 * each variable and not one degree higher; Gauss-Legendre on the Gaussian
 * over [-3, 3]^3 (relative error <= 1e-14 with 100^3 points); reversed and
 * infinite limits; validation of dims, n, nodes and variables; where f is
 * not finite; the same bits from run to run.  On the CPU backend; `t_product
 * gpu` (tests/product.gpu) runs the same on the CUDA backend, exit 77
 * without a device. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/gauss.h"
#include "exact_sum.h"
#include "tap.h"
#include "tap_context.h"

static gq_integrand *parse(const char *text, int dims)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, dims, &f, NULL) != GQ_SUCCESS)
    printf("# cannot parse %s: %s\n", text, gq_last_error());
  return f;
}

static gq_box make_box(int dims, uint64_t n)
{
  gq_box box = {dims, {0}, {0}, {0}};
  for (int d = 0; d < dims; d++) {
    box.a[d] = -0.5 - 0.125 * d;
    box.b[d] = 1.0 + 0.25 * d;
    box.n[d] = n;
  }
  return box;
}

/* prod_d (3/4 + x_d^p) over the box, exactly (long double). */
static long double poly_exact(const gq_box *box, int p)
{
  long double v = 1.0L;
  for (int d = 0; d < box->dims; d++) {
    const long double a = box->a[d], b = box->b[d];
    v *= 0.75L * (b - a) + (powl(b, p + 1) - powl(a, p + 1)) / (p + 1);
  }
  return v;
}

static gq_integrand *poly(int dims, int p)
{
  char text[512];
  size_t at = 0;
  for (int d = 0; d < dims; d++)
    at += (size_t)snprintf(text + at, sizeof text - at, "%s(0.75+x%d^%d)", d ? "*" : "", d + 1, p);
  return parse(text, dims);
}

/* Degree deg exact (to rounding) in every dimension, deg + 1 not. */
static void exactness(gq_context *ctx, gq_rule_spec spec, int deg, int dims, uint64_t n)
{
  for (int p = deg; p <= deg + 1; p++) {
    gq_integrand *f = poly(dims, p);
    gq_box box = make_box(dims, n);
    gq_rule_result r;
    const int status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r);
    const long double exact = poly_exact(&box, p);
    const double rel = (double)fabsl((r.result - exact) / exact);
    /* the terms are positive: rounding stays within a few ulp per point's
     * weight products and f */
    const double tol = 64.0 * DBL_EPSILON * (dims + 2);
    if (p == deg)
      tap_ok(status == GQ_SUCCESS && rel <= tol, "%s:%d %d-D x^%d: exact (relative error %.3g <= %.3g)",
             gq_rule_name(spec.rule), spec.nodes, dims, p, rel, tol);
    else
      tap_ok(status == GQ_SUCCESS && rel > 1e3 * tol && r.difference > 0.0,
             "%s:%d %d-D x^%d: not exact (relative error %.3g), estimate %.3g", gq_rule_name(spec.rule), spec.nodes,
             dims, p, rel, r.abserr);
    gq_integrand_free(f);
  }
}

int main(int argc, char **argv)
{
  int gpu;
  gq_context *ctx = tap_context(argc, argv, &gpu);
  if (!ctx)
    return tap_done();

  /* exactness: every rule, 1 to 6 dimensions */
  const struct {
    gq_rule rule;
    int nodes, degree;
    uint64_t n;
  } rules[] = {
    {GQ_RULE_TRAPEZOID, 0, 1, 4}, {GQ_RULE_SIMPSON, 0, 3, 4}, {GQ_RULE_BOOLE, 0, 5, 4},
    {GQ_RULE_GAUSS_LEGENDRE, 2, 3, 2}, {GQ_RULE_GAUSS_LEGENDRE, 3, 5, 1}, {GQ_RULE_GAUSS_LEGENDRE, 5, 9, 1},
    {GQ_RULE_GAUSS_LEGENDRE, 8, 15, 1},
  };
  for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
    for (int dims = 1; dims <= GQ_MAX_DIM; dims++) {
      const gq_rule_spec spec = {rules[k].rule, rules[k].nodes};
      if (rules[k].rule == GQ_RULE_GAUSS_LEGENDRE && rules[k].nodes == 8 && dims > 5)
        continue; /* 8^6 points times two polynomials: the 5-D case says it */
      exactness(ctx, spec, rules[k].degree, dims, rules[k].n);
    }

  /* 1-D Gauss-Legendre: the rule's sum of f at the same points, computed
   * here in double-double with exact products (fma), to 2 ulp; on the GPU
   * exp may differ from the host's by an ulp, which adds 2 eps of the
   * terms' sum */
  {
    const double a = 0.3, b = 2.1;
    const uint64_t n = 1000;
    const int K = 7;
    gq_integrand *f = parse("exp(x)", 1);
    gq_box box = {1, {a}, {b}, {n}};
    const gq_rule_spec spec = {GQ_RULE_GAUSS_LEGENDRE, K};
    gq_rule_result r;
    const int status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r);
    double x[GQ_GL_MAX_NODES], w[GQ_GL_MAX_NODES];
    gq_gauss_legendre(K, x, w, NULL);
    const double H = (b - a) / (double)n;
    dd sum = {0, 0};
    double abs_sum = 0.0;
    for (uint64_t q = 0; q < n; q++)
      for (int k = 0; k < K; k++) {
        const double node = (double)((long double)a + (long double)H * (1.0L + (long double)x[k]) / 2.0L);
        const double v = exp(fma((double)q, H, node)), t = w[k] * v;
        sum = dd_add(dd_add(sum, t), fma(w[k], v, -t));
        abs_sum += fabs(t);
      }
    const double ref = (double)(((long double)sum.hi + (long double)sum.lo) * ((long double)H / 2.0L));
    const double ulp = nextafter(fabs(ref), INFINITY) - fabs(ref);
    const double tol = 2.0 * ulp + (gpu ? 2.0 * DBL_EPSILON * abs_sum * H / 2.0 : 0.0);
    tap_ok(status == GQ_SUCCESS && fabs(r.result - ref) <= tol,
           "gauss-legendre:7, 1000 panels of exp on [0.3, 2.1]: %.17g, the rule's exact sum %.17g (%.2g ulp)",
           r.result, ref, fabs(r.result - ref) / ulp);
    gq_integrand_free(f);
  }

  /* Gauss-Legendre on exp(-|x|^2) over [-3, 3]^3, 100^3 points */
  {
    gq_integrand *f = parse("exp(-(x1^2+x2^2+x3^2))", 3);
    gq_box box = {3, {-3, -3, -3}, {3, 3, 3}, {10, 10, 10}};
    const gq_rule_spec spec = {GQ_RULE_GAUSS_LEGENDRE, 10};
    gq_rule_result r;
    const int status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r);
    const long double one = 1.7724538509055160273L * erfl(3.0L), exact = one * one * one;
    const double rel = (double)fabsl((r.result - exact) / exact);
    tap_ok(status == GQ_SUCCESS && rel <= 1e-14 && r.points == 1e6,
           "gauss-legendre:10, 10 panels, Gaussian on [-3,3]^3: relative error %.3g <= 1e-14 (%g points)", rel,
           r.points);
    /* the same bits again (fixed merge order on both backends) */
    gq_rule_result again;
    gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &again);
    tap_ok(memcmp(&again.result, &r.result, sizeof r.result) == 0, "the same bits on a second run");
    gq_integrand_free(f);
  }

  /* reversed limits negate, axis by axis */
  {
    gq_integrand *f = parse("exp(x1)*cos(x2)", 2);
    gq_box box = {2, {0, 0}, {1, 1}, {64, 64}};
    const gq_rule_spec spec = {GQ_RULE_SIMPSON, 0};
    gq_rule_result r, rev;
    gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r);
    box.a[1] = 1;
    box.b[1] = 0;
    gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &rev);
    const double exact = (exp(1.0) - 1.0) * sin(1.0);
    tap_ok(fabs(r.result - exact) <= 4 * r.difference + 1e-15 && rev.result == -r.result,
           "simpson 2-D: %.17g (exact %.17g), reversed axis 2 gives %.17g", r.result, exact, rev.result);
    gq_integrand_free(f);
  }

  /* infinite limits: the plane, a half-plane, mixed with a finite axis */
  {
    gq_integrand *f = parse("exp(-x^2-y^2)", 2);
    const double pi = 3.14159265358979323846;
    const struct {
      double a0, b0, a1, b1, exact;
      gq_rule rule;
    } cases[] = {
      {-INFINITY, INFINITY, -INFINITY, INFINITY, pi, GQ_RULE_GAUSS_LEGENDRE},
      {0, INFINITY, -INFINITY, INFINITY, pi / 2, GQ_RULE_GAUSS_LEGENDRE},
      {INFINITY, 0, -INFINITY, INFINITY, -pi / 2, GQ_RULE_GAUSS_LEGENDRE},
      {-INFINITY, INFINITY, 0, 1, pi / 2 * erf(1.0), GQ_RULE_SIMPSON},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      gq_box box = {2, {cases[k].a0, cases[k].a1}, {cases[k].b0, cases[k].b1}, {200, 200}};
      const gq_rule_spec spec = {cases[k].rule, 0};
      gq_rule_result r;
      const int status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r);
      tap_ok(status == GQ_SUCCESS && fabs(r.result - cases[k].exact) <= 1e-9 && *r.change,
             "%s on [%g,%g] x [%g,%g]: %.17g (exact %.17g)", gq_rule_name(cases[k].rule), cases[k].a0, cases[k].b0,
             cases[k].a1, cases[k].b1, r.result, cases[k].exact);
    }
    gq_integrand_free(f);
  }

  /* validation */
  {
    gq_integrand *f2 = parse("x1*x2", 2), *f4 = parse("x4", 4);
    gq_box box = make_box(2, 8);
    gq_rule_result r;
    gq_rule_spec spec = {GQ_RULE_SIMPSON, 0};
    box.n[1] = 7;
    tap_ok(gq_integrate_box(ctx, f2, spec, &box, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL &&
               strstr(gq_last_error(), "axis 2") && strstr(gq_last_error(), "6 or 8"),
           "simpson with an odd n on axis 2: %s", gq_last_error());
    box.n[1] = 8;
    spec.rule = GQ_RULE_GAUSS_LEGENDRE;
    spec.nodes = 65;
    tap_ok(gq_integrate_box(ctx, f2, spec, &box, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL, "65 nodes: %s",
           gq_last_error());
    spec.nodes = 1;
    tap_ok(gq_integrate_box(ctx, f2, spec, &box, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL, "1 node: %s",
           gq_last_error());
    spec.nodes = 0;
    gq_box b3 = make_box(3, 4);
    tap_ok(gq_integrate_box(ctx, f4, spec, &b3, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL &&
               strstr(gq_last_error(), "x4"),
           "x4 in a 3-D box: %s", gq_last_error());
    gq_box ok2 = make_box(2, 4);
    tap_ok(gq_integrate_box(NULL, f2, spec, &ok2, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL &&
               gq_integrate_box(ctx, NULL, spec, &ok2, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL &&
               gq_integrate_box(ctx, f2, spec, NULL, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL &&
               gq_integrate_box(ctx, f2, spec, &ok2, GQ_PRECISION_DOUBLE, NULL) == GQ_EINVAL &&
               gq_integrate_box(ctx, f2, spec, &ok2, (gq_precision)7, &r) == GQ_EINVAL,
           "NULL arguments and an unknown precision: GQ_EINVAL");
    const gq_rule_spec bad_rule = {(gq_rule)9, 0};
    tap_ok(gq_integrate_box(ctx, f2, bad_rule, &ok2, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL && isnan(r.result),
           "an unknown rule: %s", gq_last_error());
    gq_box b0 = make_box(2, 4);
    b0.dims = 0;
    tap_ok(gq_integrate_box(ctx, f2, spec, &b0, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL, "0 dimensions: %s",
           gq_last_error());
    b0.dims = 7;
    tap_ok(gq_integrate_box(ctx, f2, spec, &b0, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL, "7 dimensions: %s",
           gq_last_error());
    gq_box bn = make_box(2, 4);
    bn.a[0] = NAN;
    tap_ok(gq_integrate_box(ctx, f2, spec, &bn, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL && isnan(r.result),
           "a NaN limit: %s", gq_last_error());
    gq_box big = make_box(6, 1u << 9); /* 4096^6 Gauss-Legendre points of 8 nodes */
    tap_ok(gq_integrate_box(ctx, f2, spec, &big, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL &&
               strstr(gq_last_error(), "2^53"),
           "more than 2^53 points: %s", gq_last_error());
    gq_box one = make_box(2, 1);
    spec.rule = GQ_RULE_TRAPEZOID;
    tap_ok(gq_integrate_box(ctx, f2, spec, &one, GQ_PRECISION_DOUBLE, &r) == GQ_EINVAL, "trapezoid n = 1 in 2-D: %s",
           gq_last_error());
    gq_integrand_free(f2);
    gq_integrand_free(f4);
  }

  /* where f is not finite: a Newton-Cotes grid evaluates the corner */
  {
    gq_integrand *f = parse("1/(x+y)", 2);
    gq_box box = {2, {0, 0}, {1, 1}, {10, 10}};
    gq_rule_result r;
    const gq_rule_spec nc = {GQ_RULE_TRAPEZOID, 0}, gl = {GQ_RULE_GAUSS_LEGENDRE, 0};
    tap_ok(gq_integrate_box(ctx, f, nc, &box, GQ_PRECISION_DOUBLE, &r) == GQ_EDOM && r.nonfinite_count == 1 &&
               r.nonfinite_x == 0.0,
           "1/(x+y) on a grid with the corner: GQ_EDOM, %llu point(s), %s", (unsigned long long)r.nonfinite_count,
           gq_last_error());
    /* the exact value is 2 ln 2; Gauss-Legendre never touches the corner
     * (and converges slowly there: 1e-3 with 80^2 points) */
    const int status = gq_integrate_box(ctx, f, gl, &box, GQ_PRECISION_DOUBLE, &r);
    tap_ok(status == GQ_SUCCESS && fabs(r.result - 2.0 * log(2.0)) < 2e-3 && r.nonfinite_count == 0,
           "gauss-legendre: %.17g (2 ln 2 = %.17g)", r.result, 2.0 * log(2.0));
    gq_integrand_free(f);
  }

  /* float: f in float, sums in double */
  {
    gq_integrand *f = parse("x*y*z", 3);
    gq_box box = {3, {0, 0, 0}, {1, 2, 3}, {4, 4, 4}};
    const gq_rule_spec spec = {GQ_RULE_GAUSS_LEGENDRE, 4};
    gq_rule_result r;
    const int status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_FLOAT, &r);
    tap_ok(status == GQ_SUCCESS && fabs(r.result - 4.5) <= 1e-5, "float x*y*z on [0,1]x[0,2]x[0,3]: %.9g (4.5)",
           r.result);
    gq_integrand_free(f);
  }

  gq_context_free(ctx);
  return tap_done();
}
