/* vegas_alloc.h — what VEGAS+ makes of one hypercube's sums between passes,
 * shared by the host (vegas.c, for the CPU backend) and the device
 * (kernels/vegas/alloc.cu, for the CUDA backend, where the hypercubes' sums
 * stay): its mean and variance, sigma^beta, and its samples in the next pass.
 * The same formulas on both sides; only the order in which the hypercubes'
 * terms are summed differs (a sequence on the host, a tree and a scan on the
 * device), so the last bits of the pass's estimate and, rarely, one sample of
 * the allocation may differ between backends, as the sums themselves do. */
#ifndef GQ_VEGAS_ALLOC_H
#define GQ_VEGAS_ALLOC_H

#include <math.h>

#include "philox.h" /* GQ_PHILOX_HD: host and device */

/* A variance per hypercube needs two samples; the allocation gives each at
 * least this many. */
#define GQ_VEGAS_MIN_PER_HCUBE 2

/* Mean and variance (of one sample) of g J in a hypercube of n >= 2 samples
 * with sums sum and sum2. */
GQ_PHILOX_HD void gq_vegas_hcube_moments(double sum, double sum2, double n, double *mean, double *variance)
{
  const double m = sum / n;
  *mean = m;
  *variance = fmax(0.0, (sum2 - sum * m) / (n - 1.0));
}

/* sigma^beta from the variance sigma^2: the default beta = 3/4 by square
 * roots, v^(3/8) = (v^(1/8))^3, several times faster than pow over the
 * tens of thousands of hypercubes of a pass. */
GQ_PHILOX_HD double gq_vegas_spread_power(double variance, double beta)
{
  if (beta == 0.75) {
    const double eighth = sqrt(sqrt(sqrt(variance)));
    return eighth * eighth * eighth;
  }
  return pow(variance, 0.5 * beta);
}

/* The allocation is computed in integers, so that it depends on the
 * hypercubes' spreads alone and not on the order in which a backend sums
 * them: each sigma^beta becomes a weight of 40 bits
 * relative to the largest (exact: a correctly rounded division, a power of
 * two, a truncation), the weights' running sums are exact, and hypercube h
 * gets the spare samples between floor(spare W_{h-1} / W) and
 * floor(spare W_h / W).  A hypercube whose spread is below 2^-40 of the
 * largest gets the minimum only, as it would to within a sample.  With at
 * most 2^16 hypercubes the weights' total stays below 2^56, and with at most
 * 2^44 samples a pass the products below 2^100 (a 128-bit product). */
#define GQ_VEGAS_WEIGHT_SCALE 1099511627776.0 /* 2^40 */

GQ_PHILOX_HD unsigned long long gq_vegas_weight(double spread, double spread_max)
{
  return (unsigned long long)(spread / spread_max * GQ_VEGAS_WEIGHT_SCALE);
}

/* floor(spare * upto / total), upto <= total, total > 0. */
GQ_PHILOX_HD unsigned long long gq_vegas_spare_upto(unsigned long long spare, unsigned long long upto,
                                                    unsigned long long total)
{
  return (unsigned long long)((unsigned __int128)spare * upto / total);
}

/* Whether the spreads allow the proportional rule: their largest finite and
 * positive (else every hypercube gets the same, the remainder one each to
 * the first). */
GQ_PHILOX_HD int gq_vegas_proportional(double spread_max) { return spread_max > 0.0 && isfinite(spread_max); }

/* A spread as reallocate's maximum sees it: one that is not finite makes
 * the maximum infinite, and so the allocation even. */
GQ_PHILOX_HD double gq_vegas_spread_for_max(double spread) { return isfinite(spread) ? spread : INFINITY; }

#endif /* GQ_VEGAS_ALLOC_H */
