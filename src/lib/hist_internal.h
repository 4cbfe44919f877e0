/* hist_internal.h — what the histogram's API (hist.c) hands its backends
 * (cpu/hist.c, kernels/hist/hist.cu): one pass over a chunk into zeroed
 * host totals of keys = cells + 3 entries (under, over, NaN last). */
#ifndef GQ_HIST_INTERNAL_H
#define GQ_HIST_INTERNAL_H

#include "hist_bin.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int dims;
  gq_hist_axis ax, ay;
  uint32_t keys;
  int sum;         /* gq_hist_kind: none, plain, compensated */
  size_t n;        /* >= 1 */
  const double *x, *y, *values;
  int method;      /* gq_hist_method asked for */
} gq_hist_problem;

typedef struct {
  uint64_t *counts;    /* keys                                         */
  double *sums, *errs; /* keys each with sums (errs: compensated), else NULL */
  int method;          /* what ran                                     */
  double ms;
} gq_hist_out;

int gq_cpu_hist(const gq_hist_problem *p, gq_hist_out *out);
int gq_cuda_hist(struct gq_cuda_state *st, const gq_hist_problem *p, gq_hist_out *out);
/* The method GQ_HIST_AUTO runs on this device. */
int gq_cuda_hist_method_for(struct gq_cuda_state *st, uint32_t keys, int sum);

#ifdef __cplusplus
}
#endif
#endif
