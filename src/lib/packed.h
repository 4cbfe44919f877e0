/* packed.h — many one-dimensional grid sums of one expression in one launch
 * (issue 23): the problems of a batch or a sweep whose single runs would
 * each launch the same small grid.
 *
 * gq_packed_prepare computes, in one launch per chunk, the grid sums that
 * each problem's rule will ask for (rules.c: the interior points 1 .. n-1
 * of its own a and h); gq_packed_select then names the problem about to
 * run, and gq_shared_grid_sum takes its sums from the pack instead of
 * launching (gq_packed_take) when — and only when — the request is exactly
 * the one packed: the same expression module and parameter values (an
 * integrand parsed again from the same text and values is recognised),
 * precision, a, h and indices.  Any other request (the rescaled retry of an
 * overflowing rule, the count of non-finite points, a problem that was not
 * packed) runs as it always did.
 * The packed kernel walks each problem's points as its own launch would
 * (engine/batch_kernel.cuh), so every result is bitwise the single run's.
 * On the CPU the pack runs the sums of problems of one part (below 64 Ki
 * points: one thread each when alone) side by side, one problem a thread. */
#ifndef GQ_PACKED_H
#define GQ_PACKED_H

#include "internal.h"

/* What the backend packs: count problems over the same interior indices. */
typedef struct {
  gq_grid_sum grid;      /* the first's: its f's module serves every problem */
  size_t count;
  const double *ah;      /* problem i's a and h at ah[2 i], ah[2 i + 1]     */
  const double *params;  /* problem i's nparams GPU parameter values        */
  int nparams;
} gq_grid_batch;

/* The backend's packed launch(es): sums[i] for problem i, info->ms their
 * device time; *packed 0 (and nothing computed) when the problems' single
 * launches would not each be one block per tile (kernels/grid_batch.cu). */
int gq_cuda_grid_sum_batch(struct gq_cuda_state *st, const gq_grid_batch *b, gq_csum (*sums)[GQ_GRID_KEYS],
                           gq_grid_info *info, int *packed);

/* For tests without a GPU (CUDA builds): NVRTC compiles f's batch module
 * for sm_<cc>; *cubin_size its size. */
int gq_jit_batch_compile_only(const gq_integrand *f, int precision, int small, int cc, size_t *cubin_size);

typedef struct gq_packed gq_packed;

/* Pack the problems f[i] over [a[i], b[i]] with n intervals (a
 * Newton-Cotes rule in one dimension, as gq_rule_line would run them):
 * those that can be packed are computed now; the others are left to run
 * alone.  *out is NULL when nothing could be packed (a deterministic
 * context, a context shared over MPI ranks, fewer than two expressions of
 * one module with finite limits, grids too large to pack on the GPU): the
 * problems then simply run alone.
 * GQ_SUCCESS, or a failure status of the launch. */
int gq_packed_prepare(gq_context *ctx, const gq_integrand *const *f, const double *a, const double *b, uint64_t n,
                      gq_precision precision, size_t count, gq_packed **out);
/* The problem about to run (its index in the prepared arrays), or none
 * (pk NULL). */
void gq_packed_select(gq_context *ctx, gq_packed *pk, size_t i);
void gq_packed_free(gq_packed *pk);
/* For gq_shared_grid_sum: 1 with the selected problem's sums when p is the
 * packed request, else 0. */
int gq_packed_take(gq_context *ctx, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info);

#endif
