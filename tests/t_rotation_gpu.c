/* t_rotation_gpu.c — the fast grid sums' rotation of sines, cosines and
 * exponentials (kernels/engine/grid_rot_source.cuh) on the GPU.  Each case runs with the
 * rotation (the default) and again with GPUQUAD_GRID_ROTATION=0 (CUDA's sin and
 * cos point by point), and on the CPU backend (glibc's): the results agree
 * within a bound of the per-point error, which a wrong table, a wrong slope
 * or a tile on the wrong path would break by orders of magnitude.  Cases:
 * every Newton-Cotes rule, partial tiles, arguments through 0 (where tiles
 * take the point-by-point path), huge arguments, shared and several terms,
 * more terms than the table holds, a pole on a grid point (the rerun with
 * CUDA's functions: the same sums and counts as without rotation), float
 * (never rotated: the same bits), and packed batches of both launch shapes
 * (every problem bitwise its single call).  Exits 77 without a GPU. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "tap.h"

static gq_integrand *parse(const char *text, const char *def)
{
  gq_integrand *f = NULL;
  const char *defs[1] = {def};
  if (gq_integrand_parse(text, def ? defs : NULL, def ? 1 : 0, 1, &f, NULL) != GQ_SUCCESS)
    return NULL;
  return f;
}

static int rule_run(gq_context *ctx, const gq_integrand *f, gq_rule rule, double a, double b, uint64_t n,
                    gq_precision p, int rotate, gq_rule_result *r)
{
  if (rotate)
    unsetenv("GPUQUAD_GRID_ROTATION");
  else
    setenv("GPUQUAD_GRID_ROTATION", "0", 1);
  const int st = gq_integrate_rule(ctx, f, rule, a, b, n, p, r);
  unsetenv("GPUQUAD_GRID_ROTATION");
  return st;
}

static int differs = 0; /* cases whose rotated bits are not the point-by-point ones */

/* One case: rotated against point by point and against the CPU.  fmax
 * bounds |f| over [a, b] and thmax the arguments' magnitude: each value
 * errs by a few units of 2^-53 of fmax absolute, and each argument's
 * rounding (2^-53 thmax) moves it by as much again times fmax, on both
 * paths, so the integrals differ by at most (b - a) fmax (16 + 4 thmax)
 * 2^-53. */
static void check(gq_context *gpu, gq_context *cpu, const char *text, const char *def, gq_rule rule, double a,
                  double b, uint64_t n, double fmax, double thmax)
{
  gq_integrand *f = parse(text, def);
  gq_rule_result rot, pt, host;
  if (!tap_ok(f != NULL, "parse %s (%s)", text, def ? def : "no parameter"))
    return;
  const int s1 = rule_run(gpu, f, rule, a, b, n, GQ_PRECISION_DOUBLE, 1, &rot);
  const int s2 = rule_run(gpu, f, rule, a, b, n, GQ_PRECISION_DOUBLE, 0, &pt);
  const int s3 = rule_run(cpu, f, rule, a, b, n, GQ_PRECISION_DOUBLE, 1, &host);
  const double tol = fabs(b - a) * fmax * (16.0 + 4.0 * thmax) * DBL_EPSILON / 2;
  differs += memcmp(&rot.result, &pt.result, sizeof rot.result) != 0;
  tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && fabs(rot.result - pt.result) <= tol,
         "%s %s, %s on [%g, %g], n = %llu: rotated %.17g, point by point %.17g (|d| %.2g, bound %.2g)", text,
         def ? def : "", gq_rule_name(rule), a, b, (unsigned long long)n, rot.result, pt.result,
         fabs(rot.result - pt.result), tol);
  tap_ok(s3 == GQ_SUCCESS && fabs(rot.result - host.result) <= tol + 1e-14 * fabs(host.result),
         "%s %s, %s: rotated %.17g, CPU %.17g", text, def ? def : "", gq_rule_name(rule), rot.result, host.result);
  gq_integrand_free(f);
}

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  gq_context *gpu = gq_context_create(0), *cpu = gq_context_create(GQ_DEVICE_CPU);
  const double pi = 3.14159265358979323846;

  /* the sweep's integrand (issue 23) at low and high frequency, whole and
   * partial tiles, every Newton-Cotes rule */
  const char *ks[] = {"k=1", "k=3", "k=1000", "k=10000"};
  const double kv[] = {1, 3, 1000, 10000};
  for (int i = 0; i < 4; i++) {
    check(gpu, cpu, "sin(k*x)/(1+x)", ks[i], GQ_RULE_TRAPEZOID, 0, pi, 100000, 1, kv[i] * pi);
    check(gpu, cpu, "sin(k*x)/(1+x)", ks[i], GQ_RULE_TRAPEZOID, 0, pi, 1000003, 1, kv[i] * pi);
  }
  check(gpu, cpu, "sin(k*x)/(1+x)", "k=1000", GQ_RULE_SIMPSON, 0, pi, 1000000, 1, 1000 * pi);
  check(gpu, cpu, "sin(k*x)/(1+x)", "k=1000", GQ_RULE_BOOLE, 0, pi, 1000000, 1, 1000 * pi);
  /* arguments through 0, both signs of the slope, an offset */
  check(gpu, cpu, "exp(-x*x)*cos(3*x)", NULL, GQ_RULE_TRAPEZOID, -2, 2, 1000003, 1, 6);
  check(gpu, cpu, "sin(x)/x", NULL, GQ_RULE_TRAPEZOID, -20, 20, 1000001, 1, 20);
  check(gpu, cpu, "cos(-7*x + 2)*x", NULL, GQ_RULE_SIMPSON, -5, 5, 2000000, 5, 37);
  /* shared and several terms, sin and cos of one argument, a term that is
   * not affine beside them, more distinct arguments than the table holds */
  check(gpu, cpu, "sin(3*x)*cos(3*x) + cos(-x/2 + 1) + sin(2*(x + 1)) - sin(x^2) + cos(2*x - x/4)", NULL,
        GQ_RULE_TRAPEZOID, 0, 10, 1000000, 5, 30);
  check(gpu, cpu, "sin(x)*sin(2*x)*sin(3*x)*sin(4*x)*sin(5*x)", NULL, GQ_RULE_TRAPEZOID, 0, 3, 1000000, 1, 15);
  /* huge arguments: CUDA's sincos takes its slow path for the bases */
  check(gpu, cpu, "sin(1e6*x + 0.5)", NULL, GQ_RULE_TRAPEZOID, 0, 1, 10000000, 1, 1e6);
  check(gpu, cpu, "cos(3e9*x)", NULL, GQ_RULE_TRAPEZOID, 1, 2, 1000000, 1, 6e9);
  /* exponentials: damped oscillations, growth, and arguments beyond the
   * range where the factors stay normal (those tiles go point by point) */
  check(gpu, cpu, "exp(-x)*sin(5*x)", NULL, GQ_RULE_TRAPEZOID, 0, 20, 1000000, 1, 100);
  check(gpu, cpu, "exp(3*x - 2)", NULL, GQ_RULE_SIMPSON, -1, 2, 1000002, 55, 4);
  check(gpu, cpu, "exp(-k*x)", "k=1000", GQ_RULE_TRAPEZOID, 0, 1, 1000000, 1, 1000);
  check(gpu, cpu, "exp(-x/2)*cos(x)*exp(x/3)/(1 + x^2)", NULL, GQ_RULE_BOOLE, -30, 30, 2000000, 2, 30);
  tap_ok(differs > 0, "the rotation was in effect: %d case(s) with other bits than point by point", differs);
  /* exp overflows inside [0, 800]: not finite either way, the same count */
  {
    gq_integrand *f = parse("exp(x)", NULL);
    gq_rule_result rot, pt;
    const int s1 = rule_run(gpu, f, GQ_RULE_TRAPEZOID, 0, 800, 100000, GQ_PRECISION_DOUBLE, 1, &rot);
    const int s2 = rule_run(gpu, f, GQ_RULE_TRAPEZOID, 0, 800, 100000, GQ_PRECISION_DOUBLE, 0, &pt);
    tap_ok(s1 == GQ_EDOM && s2 == GQ_EDOM && rot.nonfinite_count == pt.nonfinite_count && rot.nonfinite_count > 0 &&
               rot.nonfinite_x == pt.nonfinite_x,
           "exp(x) on [0, 800]: status %d/%d, %llu points not finite from x = %g", s1, s2,
           (unsigned long long)rot.nonfinite_count, rot.nonfinite_x);
    gq_integrand_free(f);
  }

  /* a pole on a grid point: the fast sum is not finite, the rerun with
   * CUDA's functions settles it as without rotation */
  {
    gq_integrand *f = parse("sin(5*x)/(x - 1)", NULL);
    gq_rule_result rot, pt;
    const int s1 = rule_run(gpu, f, GQ_RULE_TRAPEZOID, 0, 2, 1000, GQ_PRECISION_DOUBLE, 1, &rot);
    const int s2 = rule_run(gpu, f, GQ_RULE_TRAPEZOID, 0, 2, 1000, GQ_PRECISION_DOUBLE, 0, &pt);
    tap_ok(s1 == GQ_EDOM && s2 == GQ_EDOM && rot.nonfinite_count == pt.nonfinite_count && rot.nonfinite_count == 1 &&
               rot.nonfinite_x == 1.0 && memcmp(&rot.result, &pt.result, sizeof rot.result) == 0,
           "pole at x = 1: status %d/%d, %llu point(s) at %g, result %g", s1, s2,
           (unsigned long long)rot.nonfinite_count, rot.nonfinite_x, rot.result);
    gq_integrand_free(f);
  }
  /* float is never rotated: the same bits either way */
  {
    gq_integrand *f = parse("sin(k*x)/(1+x)", "k=77");
    gq_rule_result r1, r2;
    const int s1 = rule_run(gpu, f, GQ_RULE_TRAPEZOID, 0, pi, 1000000, GQ_PRECISION_FLOAT, 1, &r1);
    const int s2 = rule_run(gpu, f, GQ_RULE_TRAPEZOID, 0, pi, 1000000, GQ_PRECISION_FLOAT, 0, &r2);
    tap_ok(s1 == GQ_SUCCESS && s2 == GQ_SUCCESS && memcmp(&r1.result, &r2.result, sizeof r1.result) == 0,
           "float: %.9g both ways", r1.result);
    gq_integrand_free(f);
  }

  /* packed batches of both launch shapes (one tile and several): every
   * problem bitwise its single call, with slopes from the parameters */
  const uint64_t sizes[] = {4000, 100000};
  for (int s = 0; s < 2; s++) {
    enum { COUNT = 300 };
    const char *names[] = {"k", "c"};
    double sets[2 * COUNT];
    for (int i = 0; i < COUNT; i++) {
      sets[2 * i] = 1.0 + 37.0 * i;
      sets[2 * i + 1] = 1.0 + i / 64.0;
    }
    gq_box box = {.dims = 1, .a = {0.0}, .b = {pi}, .n = {sizes[s]}};
    gq_rule_spec spec = {GQ_RULE_TRAPEZOID, 0};
    static gq_rule_result results[COUNT];
    static int statuses[COUNT];
    const int st = gq_integrate_box_batch(gpu, "sin(k*x)/(c+x) + cos(k*x/2)", names, 2, sets, COUNT, spec, &box,
                                          GQ_PRECISION_DOUBLE, results, statuses);
    int same = 0, tried = 0;
    for (int i = 0; i < COUNT; i += 7) {
      char d0[64], d1[64];
      snprintf(d0, sizeof d0, "k=%.17g", sets[2 * i]);
      snprintf(d1, sizeof d1, "c=%.17g", sets[2 * i + 1]);
      const char *defs[2] = {d0, d1};
      gq_integrand *f = NULL;
      gq_rule_result alone;
      tried++;
      if (gq_integrand_parse("sin(k*x)/(c+x) + cos(k*x/2)", defs, 2, 1, &f, NULL) == GQ_SUCCESS &&
          gq_integrate_box(gpu, f, spec, &box, GQ_PRECISION_DOUBLE, &alone) == GQ_SUCCESS &&
          statuses[i] == GQ_SUCCESS && memcmp(&alone.result, &results[i].result, sizeof alone.result) == 0 &&
          memcmp(&alone.abserr, &results[i].abserr, sizeof alone.abserr) == 0)
        same++;
      gq_integrand_free(f);
    }
    tap_ok(st == GQ_SUCCESS && same == tried, "packed batch of %d problems of %llu intervals: %d of %d sampled bitwise "
                                              "their single calls",
           COUNT, (unsigned long long)sizes[s], same, tried);
  }
  gq_context_free(gpu);
  gq_context_free(cpu);
  return tap_done();
}
