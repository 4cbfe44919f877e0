/* exact_sum.h — one exact partial sum of a deterministic grid, box or Monte
 * Carlo batch (issue 20, 21): what a backend leaves for share.c under
 * --deterministic instead of a rounded double-double, so that the ranks'
 * partials merge exactly and are rounded once, after the merge.
 *
 * The finite terms go into the exact accumulator (superacc.h), the others
 * into a plain double: NaN and infinities sum to the same value in any
 * order, so the non-finite sum needs no more to be independent of the
 * partition.  The CPU adds terms here one at a time (cpu/driver.c,
 * cpu/product.c); the GPU's ExactWords level (kernels/engine/exact_tile.cuh)
 * hands back the same words, which kernels/grid_sum.cu copies in; share.c
 * merges and rounds. */
#ifndef GQ_EXACT_SUM_H
#define GQ_EXACT_SUM_H

#include "superacc.h"

typedef struct gq_exact_sum {
  gq_superacc acc;  /* the finite terms, exactly */
  double nonfinite; /* the sum of the terms that are NaN or infinite */
} gq_exact_sum;

static inline void gq_exact_sum_zero(gq_exact_sum *s)
{
  gq_superacc_zero(&s->acc);
  s->nonfinite = 0.0;
}

/* t, exactly where it is finite. */
static inline void gq_exact_sum_add(gq_exact_sum *s, double t)
{
  if (!(t - t == 0.0))
    s->nonfinite += t;
  else
    gq_superacc_add(&s->acc, t);
}

/* a += b: integer addition of the words, so any merge order gives the same
 * value. */
static inline void gq_exact_sum_merge(gq_exact_sum *a, const gq_exact_sum *b)
{
  gq_superacc_merge(&a->acc, &b->acc);
  a->nonfinite += b->nonfinite;
}

#endif /* GQ_EXACT_SUM_H */
