/* cpu/hist.c — the CPU backend of the histogram: each OpenMP thread counts
 * (and sums) a static share of the elements into private bins, and the
 * private bins are merged in thread order.  The keys come from hist_bin.h,
 * the GPU's computation, so the counts equal the GPU's bit for bit.  Sums are
 * compensated (TwoSum per element, TwoSum merges) whatever the kind: the
 * plain kind folds the compensation in at the end, the compensated kind
 * keeps it apart as the GPU does. */
#include "config.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../hist_internal.h"

/* Private bins of all threads together stay below this: a huge K runs on
 * fewer threads rather than exhaust memory. */
#define GQ_CPU_HIST_PRIVATE_BYTES ((size_t)256 << 20)

static uint32_t key_at(const gq_hist_problem *p, size_t i)
{
  return p->dims == 1 ? gq_hist_axis_bin(&p->ax, p->x[i]) : gq_hist_key2(&p->ax, &p->ay, p->x[i], p->y[i]);
}

int gq_cpu_hist(const gq_hist_problem *p, gq_hist_out *out)
{
  const size_t keys = p->keys;
  const int values = p->sum != GQ_HIST_COUNTS;
  const size_t per_thread = keys * (sizeof(uint64_t) + (values ? 2 * sizeof(double) : 0));
  size_t team = (size_t)gq_cpu_threads();
  if (team * per_thread > GQ_CPU_HIST_PRIVATE_BYTES)
    team = GQ_CPU_HIST_PRIVATE_BYTES / per_thread > 0 ? GQ_CPU_HIST_PRIVATE_BYTES / per_thread : 1;
  if (team > p->n)
    team = p->n;
  unsigned char *private_bins = calloc(team, per_thread);
  if (!private_bins)
    return gq_fail(GQ_ENOMEM, "histogram: out of memory for %zu private bins per thread", keys);
  const double t0 = gq_wall_ms();
#pragma omp parallel num_threads((int)team) if (team > 1)
  {
#ifdef _OPENMP
    const size_t t = (size_t)omp_get_thread_num(), threads = (size_t)omp_get_num_threads();
#else
    const size_t t = 0, threads = 1;
#endif
    uint64_t *counts = (uint64_t *)(private_bins + t * per_thread);
    double *sums = (double *)(counts + keys), *errs = sums + keys;
    const size_t first = p->n / threads * t + (t < p->n % threads ? t : p->n % threads);
    const size_t last = first + p->n / threads + (t < p->n % threads);
    for (size_t i = first; i < last; i++) {
      const uint32_t k = key_at(p, i);
      counts[k]++;
      if (values)
        sums[k] = gq_hist_sum_add(sums[k], p->values[i], &errs[k]);
    }
  }
  for (size_t t = 0; t < team; t++) {
    const uint64_t *counts = (const uint64_t *)(private_bins + t * per_thread);
    const double *sums = (const double *)(counts + keys), *errs = sums + keys;
    for (size_t k = 0; k < keys; k++) {
      out->counts[k] += counts[k];
      if (values) {
        double err = (out->errs ? out->errs[k] : 0.0) + errs[k];
        const double sum = gq_hist_sum_add(out->sums[k], sums[k], &err);
        if (out->errs) {
          out->sums[k] = sum;
          out->errs[k] = err;
        } else {
          out->sums[k] = sum - sum == 0.0 ? sum + err : sum; /* the plain kind: one double */
        }
      }
    }
  }
  free(private_bins);
  out->ms = gq_wall_ms() - t0;
  out->method = p->method;
  return GQ_SUCCESS;
}
