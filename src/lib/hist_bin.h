/* hist_bin.h — the bin of a value, numpy.histogram's computation, shared by
 * the CPU backend (C11) and the CUDA kernels so that both put every value on
 * an edge in the same bin as numpy.
 *
 * numpy (lib/_histograms_impl.py, equal bins): the edges are
 * linspace(lo, hi, K + 1), i.e. e_k = k * step + lo with step = (hi - lo) / K
 * (two roundings, no fused multiply-add) and e_K = hi (a range so narrow that
 * step underflows, where linspace does otherwise, is refused by hist.c); the index is ((x - lo) / (hi - lo)) * K
 * truncated, K taken down to K - 1, then one bin down where x < e_i, else one
 * up where x >= e_{i+1} (not past the last bin).  That correction makes the
 * result the edges' bin, e_i <= x < e_{i+1} (hi in bin K - 1), whenever the
 * first guess is within one bin of it, which any guess a few ulp from the
 * exact (x - lo) K / (hi - lo) is (K <= 2^26).  So the guess here is
 * (x - lo) * (K / (hi - lo)), a multiplication by a scale computed once
 * instead of a division per element (a subroutine of some 20 instructions on
 * the GPU), and the bins are numpy's all the same: the edges decide.  Every
 * operation on the edges is spelled with the _rn intrinsics on the device:
 * nvcc would otherwise contract k * step + lo into an fma and move an edge. */
#ifndef GQ_HIST_BIN_H
#define GQ_HIST_BIN_H

#include <stdint.h>

#include "compensated.h" /* GQ_HD */

#if defined(__CUDA_ARCH__)
#define GQ_HB_ADD(a, b) __dadd_rn(a, b)
#define GQ_HB_SUB(a, b) __dsub_rn(a, b)
#define GQ_HB_MUL(a, b) __dmul_rn(a, b)
#else
#define GQ_HB_ADD(a, b) ((a) + (b))
#define GQ_HB_SUB(a, b) ((a) - (b))
#define GQ_HB_MUL(a, b) ((a) * (b))
#endif

/* One axis: K bins on [lo, hi].  Keys K, K + 1, K + 2 are under, over, NaN. */
typedef struct gq_hist_axis {
  double lo, hi;
  double width;  /* hi - lo, numpy's norm_denom                   */
  double step;   /* (hi - lo) / K, linspace's step                */
  double scale;  /* K / (hi - lo): the first guess's factor       */
  uint32_t bins;
} gq_hist_axis;

enum { GQ_HIST_UNDER = 0, GQ_HIST_OVER = 1, GQ_HIST_NAN = 2, GQ_HIST_EXTRA_KEYS = 3 };

GQ_HD gq_hist_axis gq_hist_axis_make(uint32_t bins, double lo, double hi)
{
  gq_hist_axis a;
  a.lo = lo;
  a.hi = hi;
  a.width = hi - lo;
  a.step = a.width / (double)bins;
  a.scale = (double)bins / a.width;
  a.bins = bins;
  return a;
}

GQ_HD double gq_hist_axis_edge(const gq_hist_axis *a, uint32_t k)
{
  if (k >= a->bins)
    return a->hi;
  return GQ_HB_ADD(GQ_HB_MUL((double)k, a->step), a->lo);
}

/* 0 .. K - 1, or K + GQ_HIST_UNDER / OVER / NAN. */
GQ_HD uint32_t gq_hist_axis_bin(const gq_hist_axis *a, double x)
{
  const uint32_t k = a->bins;
  if (x != x)
    return k + GQ_HIST_NAN;
  if (x < a->lo)
    return k + GQ_HIST_UNDER;
  if (x > a->hi)
    return k + GQ_HIST_OVER;
  /* lo <= x <= hi: f is in [0, K (1 + 2 eps)], and finite (K / (hi - lo)
   * may be large, but times x - lo <= hi - lo it stays near K) */
  const double f = GQ_HB_MUL(GQ_HB_SUB(x, a->lo), a->scale);
  uint32_t i = (uint32_t)f;
  if (i >= k)
    i = k - 1;
  if (x < gq_hist_axis_edge(a, i))
    i--;
  else if (i != k - 1 && x >= gq_hist_axis_edge(a, i + 1))
    i++;
  return i;
}

/* The key of a 2-D point among kx * ky cells + 3: NaN in either coordinate
 * is NaN; else below either lo is under; else above either hi is over. */
GQ_HD uint32_t gq_hist_key2(const gq_hist_axis *ax, const gq_hist_axis *ay, double x, double y)
{
  const uint32_t cells = ax->bins * ay->bins;
  const uint32_t i = gq_hist_axis_bin(ax, x), j = gq_hist_axis_bin(ay, y);
  if (i == ax->bins + GQ_HIST_NAN || j == ay->bins + GQ_HIST_NAN)
    return cells + GQ_HIST_NAN;
  if (i == ax->bins + GQ_HIST_UNDER || j == ay->bins + GQ_HIST_UNDER)
    return cells + GQ_HIST_UNDER;
  if (i >= ax->bins || j >= ay->bins)
    return cells + GQ_HIST_OVER;
  return i * ay->bins + j;
}

/* A bin's sum plus v as TwoSum: the rounded sum, and its exact error added
 * to *err.  Where the sum is not finite (an infinite value, or an overflow)
 * TwoSum's error is NaN; the sum itself then carries the result, so the
 * error is left as it is and an infinity stays an infinity, as a plain sum
 * would give it. */
GQ_HD double gq_hist_sum_add(double sum, double v, double *err)
{
  double e;
  const double s = gq_two_sum(sum, v, &e);
  if (s - s == 0.0) /* finite */
    *err += e;
  return s;
}

#endif
