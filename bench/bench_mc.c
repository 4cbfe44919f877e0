/* bench_mc.c — gpuquad mc: fused Philox-in-the-reduction against the cuRAND
 * host-API path (generate into a device buffer, then the same reduction), n
 * samples of sqrt(1 - u^2), u uniform on (0, 1), in double.  Each is verified
 * (mean within 5 standard errors of pi/4) before it is timed; times are CUDA
 * events around the sampling (medians of REPS after two warm-ups).
 *   bench_mc [log2_n=28] [reps=20] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/gpuquad.h"

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  const int log2n = argc > 1 ? atoi(argv[1]) : 28;
  const int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (log2n < 2 || log2n > 40 || reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: bench_mc [log2_n 2..40] [reps]\n");
    return 2;
  }
  gq_context *ctx = gq_context_create(0);
  if (!ctx) {
    fprintf(stderr, "bench_mc: %s\n", gq_last_error());
    return 77;
  }
  gq_integrand *f = NULL;
  if (gq_integrand_parse("sqrt(1-x^2)", NULL, 0, 1, &f, NULL) != GQ_SUCCESS)
    return 99;
  printf("# %s, n = 2^%d samples of sqrt(1-u^2), double, median of %d\n", gq_context_device_name(ctx), log2n, reps);
  printf("%-10s %10s %10s %10s %16s %14s %8s\n", "method", "median_ms", "min_ms", "max_ms", "samples_per_ms", "mean",
         "z_pi/4");
  const char *names[2] = {"fused", "host-api"};
  double medians[2] = {NAN, NAN};
  double *t = malloc(reps * sizeof *t);
  for (int m = 0; m < 2; m++) {
    gq_mc_options o;
    gq_mc_options_init(&o);
    o.n = UINT64_C(1) << log2n;
    o.seed = 2026;
    o.method = (gq_mc_method)m;
    gq_mc_result r;
    for (int k = 0; k < 2; k++)
      if (gq_mc_mean(ctx, f, &o, &r) != GQ_SUCCESS) {
        fprintf(stderr, "bench_mc %s: %s\n", names[m], gq_last_error());
        return 1;
      }
    const double z = (r.mean - 0.78539816339744831) / r.se;
    if (fabs(z) > 5) {
      fprintf(stderr, "bench_mc %s: wrong result %.17g (z = %.1f)\n", names[m], r.mean, z);
      return 1;
    }
    for (int k = 0; k < reps; k++) {
      gq_mc_mean(ctx, f, &o, &r);
      t[k] = r.kernel_ms;
    }
    qsort(t, reps, sizeof *t, cmp);
    medians[m] = t[reps / 2];
    printf("%-10s %10.4f %10.4f %10.4f %16.4g %14.10f %8.2f\n", names[m], medians[m], t[0], t[reps - 1],
           (double)o.n / medians[m], r.mean, z);
  }
  printf("# fused / host-api speed-up: %.2fx (goal >= 4x; the brief's host-API number: 2.71 ms on an H200)\n",
         medians[1] / medians[0]);
  free(t);
  gq_integrand_free(f);
  gq_context_free(ctx);
  return 0;
}
