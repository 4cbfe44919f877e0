/* t_stats_fast_gpu.c — the GPU statistics' fast pass (kernels/accumulators.cuh,
 * StatsThread: one shift for the whole launch, every TwoSum a Fast2Sum
 * after a compare, 2 dh dl summed apart, GQ_STATS_SETS sets of sums merged
 * at the end, StatsLite partials without gq_stats_acc's rescales in the
 * trees) against the CPU backend, on data chosen against each of those: a
 * first value (the shift) far from the rest, a large offset, an offset
 * beyond GQ_SCALE_LIMIT whose squares still fit (where the trees of
 * gq_stats_acc rescaled), signs and magnitudes that swap the operands of
 * every Fast2Sum, a first value that is NaN or whose square overflows (the
 * fast pass must fail and the classifying pass take over), tiny data, a
 * constant.  Doubles and floats, aligned and with a misaligned head.  The
 * two backends sum exact double-double moments, so the mean, the sum, the
 * variances and L1 agree to an ulp and the extremes and counts exactly.
 * Exits 77 (skipped) where there is no CUDA device. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "reduce_ref.h"

static gq_context *gpu, *cpu;

enum { OUTLIER_FIRST, OFFSET, HUGE_OFFSET, SWAPS, NAN_FIRST, HUGE_FIRST, TINY, CONSTANT, PATTERNS };
static const char *const pattern_name[PATTERNS] = {"outlier first", "offset 1e9", "offset 1e130", "swapping signs",
                                                   "NaN first",     "1e155 first", "tiny",
                                                   "constant"};

static double value(int pattern, size_t i, double normal)
{
  switch (pattern) {
  case OUTLIER_FIRST: return i == 0 ? 1e6 : normal;
  case OFFSET: return 1e9 + normal;
  case HUGE_OFFSET: return 1e130 + 1e127 * normal; /* beyond float: all Inf there, on both backends */
  case SWAPS: return ((i & 1) ? -1.0 : 1.0) * ldexp(1.0 + (double)(i % 97) / 97.0, (int)(i % 61) - 30);
  case NAN_FIRST: return i == 0 ? NAN : normal;
  case HUGE_FIRST: return i == 0 ? 1e155 : normal; /* its square overflows, the variance fits */
  case TINY: return i == 0 ? 1.0 : 1e-300 * normal;
  default: return 3.0;
  }
}

/* Equal, or both NaN (no finite value, no sample variance for n = 1). */
static int same_value(double a, double b, double ulps) { return (isnan(a) && isnan(b)) || within_ulps(a, b, ulps); }

static void run_case(int pattern, size_t n, size_t offset, int is_float)
{
  const size_t esize = is_float ? sizeof(float) : sizeof(double), cap = n + offset;
  double *normal = malloc(cap * sizeof *normal);
  void *host = malloc(cap * esize);
  gq_generate(cpu, GQ_GEN_NORMAL, cap, 31, normal);
  for (size_t i = 0; i < cap; i++) {
    const double v = value(pattern, i - (i >= offset ? offset : 0), normal[i]);
    if (is_float)
      ((float *)host)[i] = (float)v;
    else
      ((double *)host)[i] = v;
  }
  void *dev;
  gq_alloc(gpu, cap * esize, &dev);
  gq_copy_to(gpu, dev, host, cap * esize);
  const void *d = (const char *)dev + offset * esize, *h = (const char *)host + offset * esize;
  /* NaN and Inf left out (GQ_NAN_OMIT), so that the moments of the finite
   * values are compared where a NaN or an Inf came first too. */
  gq_stats_acc ga, ca;
  gq_stats_acc_init(&ga);
  gq_stats_acc_init(&ca);
  int sg = is_float ? gq_stats_accumulate_f(gpu, &ga, n, d) : gq_stats_accumulate(gpu, &ga, n, d);
  int sc = is_float ? gq_stats_accumulate_f(cpu, &ca, n, h) : gq_stats_accumulate(cpu, &ca, n, h);
  gq_stats_result g, c;
  POISON(g);
  POISON(c);
  if (sg == GQ_SUCCESS)
    sg = gq_stats_finish(&ga, GQ_NAN_OMIT, &g);
  if (sc == GQ_SUCCESS)
    sc = gq_stats_finish(&ca, GQ_NAN_OMIT, &c);
  tap_ok(sg == sc && (sg != GQ_SUCCESS || (g.total == c.total && g.n == c.n && g.nan_count == c.nan_count &&
             g.inf_count == c.inf_count && same_value(g.min, c.min, 0) && same_value(g.max, c.max, 0) &&
             g.argmin == c.argmin && g.argmax == c.argmax && same_value(g.mean, c.mean, 1) &&
             same_value(g.sum, c.sum, 1) && same_value(g.l1, c.l1, 1) &&
             same_value(g.var_sample, c.var_sample, 1) && same_value(g.var_population, c.var_population, 1) &&
             (pattern != CONSTANT || (g.var_population == 0.0 && g.mean == 3.0)))),
         "%s %s n=%zu +%zu: GPU and CPU stats agree (status %d / %d, mean %.17g / %.17g, var %.17g / %.17g, l1 %.17g / %.17g, "
         "n %llu / %llu)",
         is_float ? "float" : "double", pattern_name[pattern], n, offset, sg, sc, g.mean, c.mean, g.var_sample,
         c.var_sample, g.l1, c.l1, (unsigned long long)g.n, (unsigned long long)c.n);
  gq_free(gpu, dev);
  free(normal);
  free(host);
}

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  gpu = gq_context_create(0);
  cpu = gq_context_create(GQ_DEVICE_CPU);
  if (!tap_ok(gpu != NULL && cpu != NULL, "contexts: %s", gpu ? gq_context_device_name(gpu) : gq_last_error()))
    return tap_done();
  const size_t sizes[] = {1, 2, 17, 4099, 1000003, ((size_t)1 << 22) + 5};
  for (int pattern = 0; pattern < PATTERNS; pattern++)
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
      for (int f = 0; f < 2; f++)
        for (size_t offset = 0; offset < 2; offset++)
          run_case(pattern, sizes[k], offset, f);
  gq_context_free(gpu);
  gq_context_free(cpu);
  return tap_done();
}
