/* bench_batch.c — many integrals at once (issue 23), through the library's
 * batch call gq_integrate_box_batch on one GPU context:
 *   sweep   10,000 integrals of sin(k*x)/(1+x) on [0, pi], k = 1 .. 10,000,
 *           10^5 trapezoid intervals each: the device time (sum of the
 *           problems' CUDA-event kernel_ms) and the call's wall time, median
 *           of REPS after a warm-up (which compiles the expression once);
 *           every result checked bitwise against gq_integrate_box alone on a
 *           fresh context for 25 values of k.
 *   large   the sweep's 10^9 points as one integral at k = 5000;
 *   tiny    TINY integrals of 10^3 intervals (k from 1 to 2) against one
 *           integral of TINY * 10^3 intervals (k = 1.5): points per second
 *           of device time, and their ratio (the goal: >= 50%).
 * Prints one line per measurement, then "bitwise: N of N".
 * Usage: bench_batch [REPS [TINY]]   (default 5, 100000) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuquad.h"

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* count integrals of sin(k x)/(1+x), k = 1 .. count, n intervals each:
 * device and wall time of one batch call; GQ status. */
static int run(gq_context *ctx, size_t count, uint64_t n, double first_k, double step, double *values,
               gq_rule_result *results, int *statuses, double *device_ms, double *wall_ms)
{
  const char *names[] = {"k"};
  gq_box box = {.dims = 1, .a = {0.0}, .b = {3.14159265358979323846}, .n = {n}};
  gq_rule_spec spec = {GQ_RULE_TRAPEZOID, 0};
  for (size_t i = 0; i < count; i++)
    values[i] = first_k + step * (double)i;
  const double t0 = now_ms();
  const int status = gq_integrate_box_batch(ctx, "sin(k*x)/(1+x)", names, 1, values, count, spec, &box,
                                            GQ_PRECISION_DOUBLE, results, statuses);
  *wall_ms = now_ms() - t0;
  *device_ms = 0.0;
  for (size_t i = 0; i < count; i++)
    *device_ms += results[i].kernel_ms;
  return status;
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 5;
  const long tiny = argc > 2 ? atol(argv[2]) : 100000;
  if (reps < 1 || reps > 100 || tiny < 1 || tiny > 10000000) {
    fprintf(stderr, "usage: bench_batch [1 <= REPS <= 100 [1 <= TINY <= 10^7]]\n");
    return 2;
  }
  if (gq_cuda_device_count() == 0) {
    fprintf(stderr, "bench_batch: no CUDA device\n");
    return 77;
  }
  gq_context *ctx = gq_context_create(0);
  const size_t most = (size_t)(tiny > 10000 ? tiny : 10000);
  double *values = malloc(most * sizeof *values), dev[100], wall[100];
  gq_rule_result *results = malloc(most * sizeof *results);
  int *statuses = malloc(most * sizeof *statuses);
  if (!ctx || !values || !results || !statuses) {
    fprintf(stderr, "bench_batch: %s\n", ctx ? "out of memory" : gq_last_error());
    return 3;
  }
  printf("device: %s\n", gq_context_device_name(ctx));

  /* the sweep: warm-up (compiles), then REPS timed */
  if (run(ctx, 10, 100000, 1.0, 1.0, values, results, statuses, &dev[0], &wall[0]) != GQ_SUCCESS) {
    fprintf(stderr, "bench_batch: %s\n", gq_last_error());
    return 3;
  }
  printf("warm-up: jit %d in %.1f ms\n", results[0].jit, results[0].compile_ms);
  for (int r = 0; r < reps; r++)
    if (run(ctx, 10000, 100000, 1.0, 1.0, values, results, statuses, &dev[r], &wall[r]) != GQ_SUCCESS) {
      fprintf(stderr, "bench_batch: %s\n", gq_last_error());
      return 3;
    }
  qsort(dev, (size_t)reps, sizeof *dev, cmp);
  qsort(wall, (size_t)reps, sizeof *wall, cmp);
  printf("sweep 10000 x 1e5: device %.3f ms, call %.1f ms (median of %d; %.2f us per problem)\n", dev[reps / 2],
         wall[reps / 2], reps, wall[reps / 2] * 1e3 / 10000);

  /* bitwise: 25 values of k against gq_integrate_box alone, on a fresh context */
  int same = 0, tried = 0;
  gq_context *alone = gq_context_create(0);
  for (int s = 0; alone && s < 25; s++) {
    const size_t i = (size_t)s * 9973 % 10000;
    char def[64];
    snprintf(def, sizeof def, "k=%.17g", values[i]);
    const char *defs[] = {def};
    gq_integrand *f = NULL;
    gq_rule_result one;
    gq_box box = {.dims = 1, .a = {0.0}, .b = {3.14159265358979323846}, .n = {100000}};
    gq_rule_spec spec = {GQ_RULE_TRAPEZOID, 0};
    tried++;
    if (gq_integrand_parse("sin(k*x)/(1+x)", defs, 1, 1, &f, NULL) == GQ_SUCCESS &&
        gq_integrate_box(alone, f, spec, &box, GQ_PRECISION_DOUBLE, &one) == GQ_SUCCESS &&
        memcmp(&one.result, &results[i].result, sizeof one.result) == 0)
      same++;
    else
      printf("differs: k = %g: %.17g alone, %.17g in the batch\n", values[i], one.result, results[i].result);
    gq_integrand_free(f);
  }
  gq_context_free(alone);

  /* the same 10^9 points as one integral, at the sweep's middle k (the
   * cost of sin grows with its argument): the device time the packed
   * launch is measured against */
  for (int r = 0; r < reps; r++)
    if (run(ctx, 1, 1000000000, 5000.0, 1.0, values, results, statuses, &dev[r], &wall[r]) != GQ_SUCCESS) {
      fprintf(stderr, "bench_batch: %s\n", gq_last_error());
      return 3;
    }
  qsort(dev, (size_t)reps, sizeof *dev, cmp);
  printf("one integral of 1e9 intervals at k = 5000: device %.3f ms (median of %d)\n", dev[reps / 2], reps);
  /* tiny problems against one large of as many points, the same integrand
   * cost in both: k from 1 to 2 in the tiny ones, 1.5 in the large one */
  for (int r = 0; r < reps; r++)
    if (run(ctx, (size_t)tiny, 1000, 1.0, 1.0 / (double)tiny, values, results, statuses, &dev[r], &wall[r]) != GQ_SUCCESS) {
      fprintf(stderr, "bench_batch: %s\n", gq_last_error());
      return 3;
    }
  qsort(dev, (size_t)reps, sizeof *dev, cmp);
  qsort(wall, (size_t)reps, sizeof *wall, cmp);
  const double tiny_pps = (double)tiny * 1001.0 / (dev[reps / 2] * 1e-3), tiny_wall = wall[reps / 2];
  for (int r = 0; r < reps; r++)
    if (run(ctx, 1, (uint64_t)tiny * 1000, 1.5, 1.0, values, results, statuses, &dev[r], &wall[r]) != GQ_SUCCESS) {
      fprintf(stderr, "bench_batch: %s\n", gq_last_error());
      return 3;
    }
  qsort(dev, (size_t)reps, sizeof *dev, cmp);
  const double large_pps = ((double)tiny * 1000.0 + 1.0) / (dev[reps / 2] * 1e-3);
  printf("tiny %ld x 1e3: %.3g points/s of device time (call %.1f ms); one of %.3g points: %.3g points/s; "
         "ratio %.1f%%\n", tiny, tiny_pps, tiny_wall, (double)tiny * 1000.0, large_pps, 100.0 * tiny_pps / large_pps);
  printf("bitwise: %d of %d\n", same, tried);
  gq_context_free(ctx);
  free(values);
  free(results);
  free(statuses);
  return same == tried ? 0 : 1;
}
