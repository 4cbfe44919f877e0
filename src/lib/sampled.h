/* sampled.h — the integral of sampled data (gq_integrate_samples): the terms
 * of scipy.integrate.trapezoid and scipy.integrate.simpson (scipy >= 1.11),
 * written once for the CPU backend, the CUDA kernels and the host
 * reference, and the problem the backends are handed.
 *
 * Every formula keeps scipy's order of operations and its zero divisions
 * (np.true_divide(..., where=den != 0) leaves 0), so that repeated abscissae
 * give scipy's numbers, not NaN.  Products go through GQ_MUL: nvcc would
 * otherwise contract them with the next addition into an FMA (the CPU is
 * compiled with -ffp-contract=off), and the two backends would differ in
 * the last bits of a term.
 */
#ifndef GQ_SAMPLED_H
#define GQ_SAMPLED_H

#include <stddef.h>
#include <stdint.h>

#include "gpuquad.h"     /* gq_sum_acc */
#include "compensated.h" /* GQ_HD */

#if defined(__CUDA_ARCH__)
#define GQ_MUL(a, b) __dmul_rn((a), (b))
#else
#define GQ_MUL(a, b) ((a) * (b))
#endif

/* np.true_divide(num, den, where=den != 0), out zero-filled. */
GQ_HD double gq_sampled_div(double num, double den) { return den != 0.0 ? num / den : 0.0; }

/* Trapezoid, one interval: (x1 - x0) (y0 + y1) / 2, numpy's
 * d * (y[1:] + y[:-1]) / 2.0. */
GQ_HD double gq_trapezoid_term(double x0, double x1, double y0, double y1)
{
  return GQ_MUL(x1 - x0, y0 + y1) / 2.0;
}

/* Simpson, one panel of equal spacing, without its factor dx/3:
 * y0 + 4 y1 + y2 (scipy's _basic_simpson with x None). */
GQ_HD double gq_simpson_term_uniform(double y0, double y1, double y2)
{
  return (y0 + GQ_MUL(4.0, y1)) + y2;
}

/* Simpson, one panel x0 < x1 < x2 of any spacing (scipy's _basic_simpson
 * with x): the parabola through the three points integrated over the panel,
 *   (h0 + h1)/6 (y0 (2 - h1/h0) + y1 (h0 + h1)^2/(h0 h1) + y2 (2 - h0/h1)). */
GQ_HD double gq_simpson_term(double x0, double x1, double x2, double y0, double y1, double y2)
{
  const double h0 = x1 - x0, h1 = x2 - x1;
  const double hsum = h0 + h1, hprod = GQ_MUL(h0, h1);
  const double h0divh1 = gq_sampled_div(h0, h1);
  const double w0 = 2.0 - gq_sampled_div(1.0, h0divh1);
  const double w1 = GQ_MUL(hsum, gq_sampled_div(hsum, hprod));
  const double w2 = 2.0 - h0divh1;
  return GQ_MUL(hsum / 6.0, (GQ_MUL(y0, w0) + GQ_MUL(y1, w1)) + GQ_MUL(y2, w2));
}

/* Simpson on an even number of samples: the last interval [x_{n-2}, x_{n-1}]
 * by Cartwright's correction (scipy >= 1.11), from the last three samples
 * y0, y1, y2 and the last two spacings h0, h1 (dx, dx when uniform):
 *   alpha y2 + beta y1 - eta y0,
 *   alpha = (2 h1^2 + 3 h0 h1) / (6 (h1 + h0)),
 *   beta  = (h1^2 + 3 h0 h1) / (6 h0),
 *   eta   = h1^3 / (6 h0 (h0 + h1)). */
GQ_HD double gq_simpson_last_interval(double h0, double h1, double y0, double y1, double y2)
{
  const double h1sq = GQ_MUL(h1, h1), h0h1 = GQ_MUL(h0, h1);
  const double alpha = gq_sampled_div(GQ_MUL(2.0, h1sq) + GQ_MUL(3.0, h0h1), GQ_MUL(6.0, h1 + h0));
  const double beta = gq_sampled_div(h1sq + GQ_MUL(3.0, h0h1), GQ_MUL(6.0, h0));
  const double eta = gq_sampled_div(GQ_MUL(h1sq, h1), GQ_MUL(GQ_MUL(6.0, h0), h0 + h1));
  return (GQ_MUL(alpha, y2) + GQ_MUL(beta, y1)) - GQ_MUL(eta, y0);
}

/* The terms a backend sums (compensated, gq_sum_acc): panel k of
 *   trapezoid (x given)  the interval (x_k, x_{k+1}):   panels = n - 1
 *   simpson              the panel (x_2k, x_2k+2), x given or not (then the
 *                        term lacks its factor dx/3):   panels = (n - 1) / 2
 *                        (for an even n the last interval is not a panel: the
 *                        library adds its correction)
 * Uniform trapezoid is no stencil: it is the plain sum of y (reduce.c's
 * GQ_REDUCE_SUM) with the ends corrected by the library. */
typedef struct {
  int simpson;      /* 0: trapezoid, 1: simpson                                  */
  int is_float;     /* y and x: float, else double                              */
  int classify;     /* the rerun: count non-finite terms, add the finite scaled */
  uint64_t panels;
  const void *y, *x; /* x NULL: equal spacing (simpson only)                    */
} gq_sampled_problem;

/* One pass over the panels into *out (cpu/sampled.c; kernels/samples.cu, or
 * no_cuda.c's refusal). */
struct gq_cuda_state;
#ifdef __cplusplus
extern "C" {
#endif
int gq_cpu_sampled_sum(const gq_sampled_problem *p, gq_sum_acc *out);
int gq_cuda_sampled_sum(struct gq_cuda_state *st, const gq_sampled_problem *p, gq_sum_acc *out);
#ifdef __cplusplus
}
#endif

#endif /* GQ_SAMPLED_H */
