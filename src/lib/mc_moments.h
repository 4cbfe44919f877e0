/* mc_moments.h — the Monte Carlo accumulator: shifted sums of a sample
 * y_1..y_n, shared by the CPU backend (C11) and the CUDA kernels.
 *
 *   s1 = sum (y_i - K),   s2 = sum (y_i - K)^2,   K a shift fixed per run
 *
 * mean = K + s1/n and (n-1) var = s2 - s1^2/n.  The textbook one-pass form
 * (K = 0) cancels catastrophically when the mean is large against the spread;
 * with K near the mean (gpuquad takes the mean of a short pilot run of the
 * same stream) s1 is small and nothing cancels.  Because every partial shares
 * K, Chan's pairwise merge of (n, mean, M2) reduces to adding s1 and s2, so
 * partials merge by plain (compensated) addition in any tree, and no division
 * is paid per sample as Welford's update would.  Both sums are compensated
 * (compensated.h), so a run of 2^63 samples loses nothing to the accumulation.
 */
#ifndef GQ_MC_MOMENTS_H
#define GQ_MC_MOMENTS_H

#include "compensated.h"

typedef struct gq_mc_moments {
  gq_csum s1; /* sum of (y - K)   */
  gq_csum s2; /* sum of (y - K)^2 */
} gq_mc_moments;

GQ_HD gq_mc_moments gq_mc_moments_zero(void)
{
  gq_mc_moments m = {{0.0, 0.0}, {0.0, 0.0}};
  return m;
}

/* Add a group of already shifted values, summed locally: d = sum (y - K),
 * q = sum (y - K)^2 over the group (pairwise, a few terms). */
GQ_HD void gq_mc_moments_add(gq_mc_moments *m, double d, double q)
{
  gq_csum_add(&m->s1, d);
  gq_csum_add(&m->s2, q);
}

GQ_HD void gq_mc_moments_merge(gq_mc_moments *m, gq_mc_moments other)
{
  gq_csum_merge(&m->s1, other.s1);
  gq_csum_merge(&m->s2, other.s2);
}

#endif /* GQ_MC_MOMENTS_H */
