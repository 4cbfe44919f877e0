/* bench_trapezoid.c — gpuquad's trapezoid reduction against Thrust, in the
 * same run: medians of REPS repetitions after warm-up, CUDA events.
 * Usage: bench_trapezoid [N] [REPS]   (default 1e9 intervals, 20 repetitions) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuquad.h"
#include "peers.h"

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void report(const char *name, double *t, int reps, long long n, double result)
{
  const double lo = t[0], med = median(t, reps);
  (void)lo;
  printf("%-34s %10.4f ms  (min %.4f, max %.4f)  %8.1f Gpoints/s  err vs pi %+.3e\n", name, med, t[0],
         t[reps - 1], (double)(n + 1) / (med * 1e6), result - 3.14159265358979323846);
}

int main(int argc, char **argv)
{
  const long long n = argc > 1 ? atoll(argv[1]) : 1000000000LL;
  const int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 2 || reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: bench_trapezoid [N >= 2] [1 <= REPS <= 1000]\n");
    return 2;
  }
  double *t = calloc((size_t)reps, sizeof *t);
  gq_context *ctx = gq_context_create(0);
  if (!ctx || !t) {
    fprintf(stderr, "bench_trapezoid: %s\n", gq_last_error());
    return 77;
  }
  printf("device: %s, %d multiprocessors; n = %lld intervals; median of %d after warm-up\n",
         gq_context_device_name(ctx), gq_context_threads(ctx), n, reps);
  const gq_integrand *f = gq_integrand_builtin("circle");
  const char *names[2] = {"gpuquad circle double", "gpuquad circle float-eval"};
  for (int p = 0; p < 2; p++) {
    gq_trapezoid_result r;
    for (int k = -2; k < reps; k++) {
      if (gq_integrate_trapezoid(ctx, f, 0.0, 1.0, (uint64_t)n, (gq_precision)p, &r) != GQ_SUCCESS) {
        fprintf(stderr, "bench_trapezoid: %s\n", gq_last_error());
        return 1;
      }
      if (k >= 0)
        t[k] = r.kernel_ms;
    }
    report(names[p], t, reps, n, r.result);
  }
  double result;
  if (peer_thrust_circle(n, reps, t, &result) != 0) {
    fprintf(stderr, "bench_trapezoid: Thrust failed\n");
    return 1;
  }
  report("thrust::transform_reduce double", t, reps, n, result);
  gq_context_free(ctx);
  free(t);
  return 0;
}
