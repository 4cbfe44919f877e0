/* bench_expr.c — points per second on one core: block evaluator (double,
 * float), scalar evaluator, and a hand-written C loop of the same
 * expression.  Prints numbers; asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"

#define N 4096  /* points per call: what a CPU backend thread would pass */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double sink;

/* Hand-written baselines; noinline so the compiler cannot hoist them. */
__attribute__((noinline)) static void hand_circle(const double *x, double *out, size_t n)
{
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = 4 * sqrt(1 - x[i] * x[i]);
}
__attribute__((noinline)) static void hand_gauss_cos(const double *x, double *out, size_t n)
{
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = exp(-x[i] * x[i]) * cos(3 * x[i]);
}

#define TIME(label, body)                                                  \
  do {                                                                     \
    long reps = 0;                                                         \
    double t0 = now(), t;                                                  \
    do {                                                                   \
      for (int r = 0; r < 50; r++) { body; }                               \
      reps += 50;                                                          \
    } while ((t = now() - t0) < 0.5);                                      \
    printf("  %-12s %8.1f Mpoints/s\n", label, reps * (double)N / t / 1e6); \
  } while (0)

int main(void)
{
  static double x[N], out[N];
  static float outf[N];
  const double *vars[1] = {x};
  const char *texts[2] = {"4*sqrt(1-x^2)", "exp(-x*x)*cos(3*x)"};
  void (*hand[2])(const double *, double *, size_t) = {hand_circle, hand_gauss_cos};
  for (int i = 0; i < N; i++) x[i] = (i + 0.5) / N;
  for (int k = 0; k < 2; k++) {
    gq_expr *e;
    gq_expr_parse(texts[k], NULL, 1, &e, NULL);
    double *scratch = malloc(gq_expr_block_scratch(e) * sizeof *scratch);
    float *scratchf = malloc(gq_expr_block_scratch(e) * sizeof *scratchf);
    printf("%s\n", texts[k]);
    TIME("hand C loop", hand[k](x, out, N); sink += out[r]);
    TIME("block", gq_expr_eval_block(e, N, vars, out, scratch); sink += out[r]);
    TIME("block float", gq_expr_eval_block_f(e, N, vars, outf, scratchf); sink += outf[r]);
    TIME("scalar", for (int i = 0; i < N; i++) out[i] = gq_expr_eval(e, &x[i]); sink += out[r]);
    free(scratch);
    free(scratchf);
    gq_expr_free(e);
  }
  return sink == 42.0;  /* keep results alive */
}
