/* bench_cpu_trapezoid.c — the CPU backend against the loop a user would write:
 *   #pragma omp parallel for reduction(+:s)  over 4*sqrt(1-x*x), at -O3,
 * in the same run; medians of REPS, and the difference between the two.
 * Usage: bench_cpu_trapezoid [N] [REPS]   (default 1e9 intervals, 3 repetitions) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuquad.h"

static double now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The peer, compiled at -O3 whatever CFLAGS say. */
__attribute__((optimize("O3"))) static double plain_loop(long long n)
{
  const double h = 1.0 / (double)n;
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (long long i = 1; i < n; i++) {
    const double x = (double)i * h;
    s += 4.0 * sqrt(1.0 - x * x);
  }
  return h * (s + 0.5 * 4.0);
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  const long long n = argc > 1 ? atoll(argv[1]) : 1000000000LL;
  const int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 2 || reps < 1 || reps > 100) {
    fprintf(stderr, "usage: bench_cpu_trapezoid [N >= 2] [1 <= REPS <= 100]\n");
    return 2;
  }
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  const gq_integrand *f = gq_integrand_builtin("circle");
  double *tp = calloc((size_t)reps, sizeof *tp), *tg = calloc((size_t)reps, sizeof *tg);
  double plain = 0, ours = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    plain = plain_loop(n);
    tp[r] = now_ms() - t0;
    gq_trapezoid_result res;
    t0 = now_ms();
    gq_integrate_trapezoid(ctx, f, 0.0, 1.0, (uint64_t)n, GQ_PRECISION_DOUBLE, &res);
    tg[r] = now_ms() - t0;
    ours = res.result;
  }
  qsort(tp, (size_t)reps, sizeof *tp, cmp);
  qsort(tg, (size_t)reps, sizeof *tg, cmp);
  const double ulp = nextafter(M_PI, 4.0) - M_PI;
  printf("%s, n = %lld, median of %d\n", gq_context_device_name(ctx), n, reps);
  printf("plain omp reduction -O3   %9.1f ms   %.17g   (pi %+.3e)\n", tp[reps / 2], plain, plain - M_PI);
  printf("gpuquad cpu backend       %9.1f ms   %.17g   (pi %+.3e)\n", tg[reps / 2], ours, ours - M_PI);
  printf("difference plain - gpuquad: %.0f ulp\n", (plain - ours) / ulp);
  gq_context_free(ctx);
  free(tp);
  free(tg);
  return 0;
}
