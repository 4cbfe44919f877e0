// grid.cuh — a rule's grid sum as an engine problem, for the built-in
// integrands (grid_sum.cu, compiled ahead of time) and expressions (jit.cu,
// NVRTC): the grid source (engine/grid_source.cuh) x the integrand x KEYS
// compensated sums by index class (TileCsum) x the Atomic level; and the
// count of points where the integrand is not finite (NonfiniteThread x the
// last-block level), run after a sum came out NaN or Inf.
#ifndef GQ_GRID_CUH
#define GQ_GRID_CUH

#include "cuda_state.cuh"
#include "engine/policy.cuh"
#include "../src/lib/exact_sum.h"

namespace gq {

// Index classes of a grid sum: key k holds the points whose index is
// congruent to k modulo GRID_KEYS (internal.h; what a rule weighs).
constexpr int GRID_KEYS = GQ_GRID_KEYS;

// The kernels of a grid problem: its sum (fast or exact functions) and its
// scan, for the launch shape Grid (policy.cuh).
int grid_sum_launch(gq_cuda_state *st, const void *kernel, int block, int items, const gq_grid_sum *p,
                    gq_csum sums[GRID_KEYS], double *ms);
// The deterministic sum (exact_tile.cuh: TileExact x ExactWords, exact
// functions): each key's exact sum into p->exact (share.c rounds it).
int grid_exact_launch(gq_cuda_state *st, const void *kernel, int block, int items, const gq_grid_sum *p,
                      double *ms);
// A built-in integrand's deterministic sum (grid_exact.cu, compiled
// without FMA contraction): grid_exact_launch of its exact kernel.
int builtin_exact_sum(gq_cuda_state *st, const gq_grid_sum *p, gq_grid_info *info);
// One exact sum's words as read back (GQ_SUPERACC_WORDS of them) and the
// sum of its non-finite terms, as the host keeps them (exact_sum.h).
void exact_words_take(const unsigned long long *words, double nonfinite, gq_exact_sum *out);
// Blocks of a deterministic launch over `terms` terms: the resident grid,
// or the one asked for (`asked`, 0: none) or forced by a test
// (gq_cuda_exact_force_shape), but never fewer than keep a block's shared
// words below 2^29 terms (each term adds below 2^32 to a signed 64-bit
// word).
extern unsigned exact_forced_blocks;
unsigned exact_grid(gq_cuda_state *st, const void *kernel, int block, unsigned long long tiles,
                    unsigned long long terms, unsigned asked = 0);
int grid_nonfinite_launch(gq_cuda_state *st, const void *kernel, int block, int items, const gq_grid_sum *p,
                          uint64_t *count, uint64_t *first);

// Whether a grid of `points` points takes Rows' small shape (policy.cuh):
// at most one tile of the large one.
template <class Rows> constexpr bool grid_small(unsigned long long points)
{
  return points <= (unsigned long long)Rows::Grid::BLOCK * Rows::Grid::ITEMS;
}

// The sums of a grid whose map gave NaN or Inf somewhere.
inline bool sums_finite(const gq_csum sums[GRID_KEYS])
{
  double total = 0.0;
  for (int k = 0; k < GRID_KEYS; k++)
    total += gq_csum_value(sums[k]);
  return total - total == 0.0;
}

} // namespace gq
#endif
