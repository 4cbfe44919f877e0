/* bench_jit.c — expressions compiled at run time (NVRTC) against the built-in
 * compiled ahead of time, in the same run: the circle kernel both ways, the
 * compile time cold and from the cache, and ten expressions of varied cost in
 * points per second.  Medians of REPS after warm-up, CUDA events.
 * Usage: bench_jit [REPS]   (needs GPUQUAD_CACHE_DIR pointing at an empty folder) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpuquad.h"

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double time_median(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n, int reps,
                          double *result)
{
  double *t = calloc((size_t)reps, sizeof *t), med;
  gq_trapezoid_result r;
  for (int k = -2; k < reps; k++) {
    if (gq_integrate_trapezoid(ctx, f, a, b, n, GQ_PRECISION_DOUBLE, &r) != GQ_SUCCESS) {
      fprintf(stderr, "bench_jit: %s\n", gq_last_error());
      exit(1);
    }
    if (k >= 0)
      t[k] = r.kernel_ms;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  med = t[reps / 2];
  free(t);
  *result = r.result;
  return med;
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 20;
  if (reps < 1 || reps > 1000)
    return 2;
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "bench_jit: %s\n", gq_last_error());
    return 77;
  }
  printf("device: %s; median of %d after warm-up\n", gq_context_device_name(ctx), reps);

  /* compile times: cold (no cache), then a new context loading from the cache */
  gq_integrand *circle = NULL;
  gq_integrand_parse("4*sqrt(1-x^2)", NULL, 0, 1, &circle, NULL);
  gq_trapezoid_result r;
  gq_context *cold = gq_context_create(0);
  gq_context_set_jit_cache(cold, 0);
  gq_integrate_trapezoid(cold, circle, 0, 1, 1000, GQ_PRECISION_DOUBLE, &r);
  printf("NVRTC compile, cache off:        %8.1f ms\n", r.compile_ms);
  gq_context_free(cold);
  gq_context *first = gq_context_create(0);
  gq_integrate_trapezoid(first, circle, 0, 1, 1000, GQ_PRECISION_DOUBLE, &r);
  printf("first use, cache %s:            %8.1f ms\n", r.jit == GQ_JIT_HIT ? "hit " : "miss", r.compile_ms);
  gq_context_free(first);
  gq_context *again = gq_context_create(0);
  gq_integrate_trapezoid(again, circle, 0, 1, 1000, GQ_PRECISION_DOUBLE, &r);
  printf("new context, cache %s:          %8.1f ms\n", r.jit == GQ_JIT_HIT ? "hit " : "miss", r.compile_ms);
  gq_context_free(again);

  /* circle: built-in (ahead of time) vs expression (NVRTC) */
  double v_aot, v_jit;
  const double aot = time_median(ctx, gq_integrand_builtin("circle"), 0, 1, 1000000000, reps, &v_aot);
  const double jit = time_median(ctx, circle, 0, 1, 1000000000, reps, &v_jit);
  printf("circle n=1e9, built-in:          %8.4f ms  %.17g\n", aot, v_aot);
  printf("circle n=1e9, JIT 4*sqrt(1-x^2): %8.4f ms  %.17g  (%.1f%% of built-in)\n", jit, v_jit,
         100.0 * jit / aot);
  gq_integrand_free(circle);

  const struct {
    const char *text;
    double a, b;
  } cases[] = {
    {"x^5 - 3*x^3 + 2*x - 1", -1, 2},
    {"4/(1+x^2)", 0, 1},
    {"x*x", 0, 1},
    {"sqrt(1-x^2)", 0, 1},
    {"exp(-x*x)", -3, 3},
    {"exp(-x*x)*cos(3*x)", -2, 2},
    {"sin(x)*cos(x)", 0, 3.14159265358979},
    {"log1p(x)/(1+x)", 0, 1},
    {"if(x < 0.5, sin(x), erf(x))", 0, 1},
    {"pow(x, 2.5) + atan(x)", 0, 1},
    {"tgamma(1+x)", 0, 1},
  };
  printf("%-32s %10s %14s\n", "expression (n = 1e9)", "median ms", "points/s");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    gq_integrand_parse(cases[i].text, NULL, 0, 1, &f, NULL);
    double v;
    const double ms = time_median(ctx, f, cases[i].a, cases[i].b, 1000000000, reps, &v);
    printf("%-32s %10.4f %14.3e\n", cases[i].text, ms, 1e9 / (ms * 1e-3));
    gq_integrand_free(f);
  }
  gq_context_free(ctx);
  return 0;
}
