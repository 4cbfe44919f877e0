/* vegas_share.c — one VEGAS+ pass divided among the ranks of a share
 * (gpuquad.h, gq_context_set_share; share.c does the same for the rules and
 * plain Monte Carlo).
 *
 * Rank r takes a contiguous range of the pass's blocks: on the CPU the parts
 * of gq_cpu_vegas_parts (the hypercube ranges one process's threads take),
 * on a GPU one block of hypercubes per rank.  Its hypercubes' sums and its
 * blocks' training cells go into a partial laid out for the whole pass, and
 * the combine step, merging in rank order, copies each rank's ranges in, so
 * that every rank ends with the whole pass:
 *   - every hypercube's sums as one process computes them (a hypercube's
 *     samples are one rank's, placed by vegas_map.h's stream);
 *   - the blocks' cells, summed afterwards in block order: on the CPU the
 *     order of one process's parts, so that K CPU ranks give one process's
 *     bits; on a GPU each rank's cells are atomic additions in any order, as
 *     one GPU's are.
 * The ranks then take the same decisions (grids, allocation, stopping) on the
 * same numbers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A partial: this header, then sum[hcubes], sum2[hcubes] and blocks x
 * (train, train_weight) cells, of which it holds the ranges below. */
typedef struct {
  uint64_t hcubes, cells, blocks;
  uint64_t h_first, h_count, b_first, b_count;
} layout;

static double *sums(layout *l) { return (double *)(l + 1); }
static double *block_cells(layout *l, uint64_t b) { return sums(l) + 2 * l->hcubes + b * 2 * l->cells; }

/* Joins two ranges, the second following the first (rank order). */
static void extend(uint64_t *first, uint64_t *count, uint64_t other_first, uint64_t other_count)
{
  if (other_count == 0)
    return;
  if (*count == 0)
    *first = other_first;
  *count = other_first + other_count - *first;
}

static void merge_ranges(void *acc, const void *other)
{
  layout *a = acc, *b = (layout *)other; /* b is only read */
  memcpy(sums(a) + b->h_first, sums(b) + b->h_first, b->h_count * sizeof(double));
  memcpy(sums(a) + a->hcubes + b->h_first, sums(b) + b->hcubes + b->h_first, b->h_count * sizeof(double));
  memcpy(block_cells(a, b->b_first), block_cells(b, b->b_first), b->b_count * 2 * b->cells * sizeof(double));
  extend(&a->h_first, &a->h_count, b->h_first, b->h_count);
  extend(&a->b_first, &a->b_count, b->b_first, b->b_count);
}

/* This rank's pass on the CPU: its parts, their cells into their blocks. */
static int cpu_part(const gq_context *ctx, const gq_vegas_pass *p, layout *l, gq_grid_info *info)
{
  const uint32_t parts = gq_cpu_vegas_parts(p->hcubes);
  uint64_t first, count;
  gq_share_range(parts, 1, ctx->share.rank, ctx->share.ranks, &first, &count);
  gq_vegas_pass q = *p;
  q.sum = sums(l);
  q.sum2 = sums(l) + l->hcubes;
  q.part_first = (uint32_t)first;
  q.part_count = (uint32_t)count;
  q.part_cells = block_cells(l, first);
  l->b_first = first;
  l->b_count = count;
  l->h_first = first * p->hcubes / parts;
  l->h_count = (first + count) * p->hcubes / parts - l->h_first;
  return gq_cpu_vegas_pass(&q, info);
}

/* This rank's pass on its GPU: the hypercubes of its share (the others get
 * no samples), its cells into block rank. */
static int cuda_part(const gq_context *ctx, const gq_vegas_pass *p, layout *l, gq_grid_info *info)
{
  uint64_t first, count;
  gq_share_range(p->hcubes, 1, ctx->share.rank, ctx->share.ranks, &first, &count);
  l->h_first = first;
  l->h_count = count;
  l->b_first = (uint64_t)ctx->share.rank;
  l->b_count = 1;
  uint64_t *counts = calloc(2 * (size_t)p->hcubes + 1, sizeof *counts), *first_quad = counts + p->hcubes;
  if (!counts)
    return gq_fail(GQ_ENOMEM, "VEGAS: no memory for this rank's counts of %u hypercubes", p->hcubes);
  memcpy(counts + first, p->counts + first, count * sizeof *counts);
  for (uint32_t h = 0; h < p->hcubes; h++)
    first_quad[h + 1] = first_quad[h] + (counts[h] + 3) / 4;
  gq_vegas_pass q = *p;
  q.counts = counts;
  q.first_quad = first_quad;
  q.sum = sums(l);
  q.sum2 = sums(l) + l->hcubes;
  q.train = block_cells(l, l->b_first);
  q.train_weight = q.train + l->cells;
  const int status = count > 0 ? gq_cuda_vegas_pass(ctx->cuda, &q, info) : GQ_SUCCESS;
  free(counts);
  return status;
}

int gq_vegas_shared_pass(gq_context *ctx, const gq_vegas_pass *p, gq_grid_info *info)
{
  const int cuda = ctx->backend == GQ_BACKEND_CUDA;
  const uint64_t cells = (uint64_t)p->dims * (uint64_t)p->bins;
  const uint64_t blocks = cuda ? (uint64_t)ctx->share.ranks : gq_cpu_vegas_parts(p->hcubes);
  const size_t bytes = sizeof(layout) + (2 * (size_t)p->hcubes + 2 * (size_t)blocks * cells) * sizeof(double);
  layout *l = calloc(1, bytes);
  /* whether every rank has its partial, before any sends one (the partials
   * must be the same size on every rank) */
  int status = l ? GQ_SUCCESS : gq_fail(GQ_ENOMEM, "VEGAS: no memory for a pass's partial of %zu bytes", bytes);
  status = gq_shared_agree(ctx, status);
  if (status != GQ_SUCCESS) {
    free(l);
    return status;
  }
  l->hcubes = p->hcubes;
  l->cells = cells;
  l->blocks = blocks;
  status = cuda ? cuda_part(ctx, p, l, info) : cpu_part(ctx, p, l, info);
  if (status != GQ_SUCCESS)
    l->h_count = l->b_count = 0; /* nothing to merge from here */
  status = gq_shared_combine(ctx, l, bytes, merge_ranges, status);
  if (status != GQ_SUCCESS) {
    free(l);
    return status;
  }
  memcpy(p->sum, sums(l), p->hcubes * sizeof(double));
  memcpy(p->sum2, sums(l) + p->hcubes, p->hcubes * sizeof(double));
  gq_vegas_sum_parts(block_cells(l, 0), block_cells(l, 0) + cells, (uint32_t)blocks, 2 * cells, cells, p->train,
                     p->train_weight);
  free(l);
  return GQ_SUCCESS;
}
