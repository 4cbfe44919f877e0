/* bench_rules.c — the rules over boxes on the GPU, timed as torchquad's
 * anchors are (issue 15): Simpson and Boole in 1-D with 10^8 + 1 points, the
 * trapezoid and Simpson in 3-D with 501^3 points, Gauss-Legendre in 3-D with
 * 100^3 points (10 panels of 10 nodes per axis), each for two integrands: the
 * Gaussian exp(-|x|^2) on [-3, 3]^D (FP64-bound: exp) and a cheap polynomial
 * (1 + |x|^2), so that the rule's own cost shows.  Median kernel time
 * (CUDA events, the library's kernel_ms) of REPS calls after one warm-up
 * (which also compiles the expression).  Prints one line per problem:
 *   rule dims points integrand median_ms gpoints_per_s relative_error
 * Usage: bench_rules [REPS]   (default 9) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuquad.h"

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 9;
  if (reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: bench_rules [1 <= REPS <= 1000]\n");
    return 2;
  }
  if (gq_cuda_device_count() == 0) {
    fprintf(stderr, "bench_rules: no CUDA device\n");
    return 77;
  }
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "bench_rules: %s\n", gq_last_error());
    return 3;
  }
  const struct {
    const char *name;
    gq_rule rule;
    int nodes, dims;
    uint64_t n;
  } problems[] = {
    {"simpson", GQ_RULE_SIMPSON, 0, 1, 100000000},
    {"boole", GQ_RULE_BOOLE, 0, 1, 100000000},
    {"trapezoid", GQ_RULE_TRAPEZOID, 0, 3, 500},
    {"simpson", GQ_RULE_SIMPSON, 0, 3, 500},
    {"gauss-legendre:10", GQ_RULE_GAUSS_LEGENDRE, 10, 3, 10},
  };
  const char *const texts[2][2] = {{"exp(-x1^2)", "1+x1^2"},
                                   {"exp(-(x1^2+x2^2+x3^2))", "1+x1^2+x2^2+x3^2"}};
  const double sqrt_pi_erf3 = 1.7724538509055160 * erf(3.0);
  printf("%-18s %4s %12s %-26s %10s %10s %10s\n", "rule", "dims", "points", "integrand", "median_ms", "Gpts/s",
         "rel_error");
  for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++)
    for (int g = 0; g < 2; g++) {
      const int D = problems[k].dims;
      const char *text = texts[D == 3][g];
      gq_integrand *f = NULL;
      if (gq_integrand_parse(text, NULL, 0, D, &f, NULL) != GQ_SUCCESS) {
        fprintf(stderr, "bench_rules: %s: %s\n", text, gq_last_error());
        return 3;
      }
      gq_box box = {D, {0}, {0}, {0}};
      for (int d = 0; d < D; d++) {
        box.a[d] = -3.0;
        box.b[d] = 3.0;
        box.n[d] = problems[k].n;
      }
      const gq_rule_spec spec = {problems[k].rule, problems[k].nodes};
      gq_rule_result r;
      double *t = malloc((size_t)reps * sizeof *t);
      int status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r); /* warm-up, JIT */
      for (int i = 0; status == GQ_SUCCESS && i < reps; i++) {
        status = gq_integrate_box(ctx, f, spec, &box, GQ_PRECISION_DOUBLE, &r);
        t[i] = r.kernel_ms;
      }
      if (status != GQ_SUCCESS) {
        fprintf(stderr, "bench_rules: %s %d-D: %s\n", problems[k].name, D, gq_last_error());
        return 3;
      }
      qsort(t, (size_t)reps, sizeof *t, cmp);
      const double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
      /* exact: the Gaussian's (sqrt(pi) erf(3))^D; the polynomial's 6^D (1 + 3 D) */
      const double exact = g == 0 ? pow(sqrt_pi_erf3, D) : pow(6.0, D) * (1.0 + 3.0 * D);
      printf("%-18s %4d %12.0f %-26s %10.4f %10.2f %10.2e\n", problems[k].name, D, r.points, text, med,
             r.points / (med * 1e6), fabs(r.result - exact) / exact);
      free(t);
      gq_integrand_free(f);
    }
  gq_context_free(ctx);
  return 0;
}
