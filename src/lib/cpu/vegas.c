/* cpu/vegas.c — one VEGAS+ pass on the CPU (gq_vegas_pass, internal.h).
 *
 * The hypercubes are cut into at most PARTS contiguous ranges, run by the
 * OpenMP team in any order; each range sums its hypercubes' samples in
 * sample order and keeps its own training bins, merged in range order, so
 * the result does not depend on the number of threads.  Samples are placed
 * by vegas_map.h (as on the GPU), a quad of four at a time per Philox call,
 * into blocks of BLOCK points that the expression's bytecode evaluates
 * together. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "../vegas_map.h"
#include "lib/expr/expr.h"

enum { PARTS = 64, BLOCK = 256 };

typedef struct {
  double *x[GQ_MC_MAX_DIMS];
  int *bin[GQ_MC_MAX_DIMS];
  double jacobian[BLOCK], out[BLOCK];
  float out_f[BLOCK];
  uint32_t owner[BLOCK]; /* the hypercube of each point */
  double *scratch;
  float *scratch_f;
  double *train, *train_weight; /* this range's dims x bins */
  int fill;
} block;

static int block_open(block *b, const gq_vegas_pass *p)
{
  memset(b, 0, sizeof *b);
  const size_t regs = gq_expr_block_scratch(p->f->g) + 1;
  int ok = (b->scratch = malloc(regs * sizeof *b->scratch)) != NULL;
  ok &= (b->scratch_f = malloc(regs * sizeof *b->scratch_f)) != NULL;
  for (int d = 0; d < p->dims; d++) {
    ok &= (b->x[d] = malloc(BLOCK * sizeof *b->x[d])) != NULL;
    ok &= (b->bin[d] = malloc(BLOCK * sizeof *b->bin[d])) != NULL;
  }
  return ok;
}

static void block_close(block *b, const gq_vegas_pass *p)
{
  free(b->scratch);
  free(b->scratch_f);
  for (int d = 0; d < p->dims; d++) {
    free(b->x[d]);
    free(b->bin[d]);
  }
}

/* g J at the block's points, into the hypercubes' sums (in point order) and
 * the range's training bins. */
static void block_flush(block *b, const gq_vegas_pass *p)
{
  const double *vars[GQ_EXPR_MAX_DIMS] = {0};
  for (int d = 0; d < p->dims; d++)
    vars[d] = b->x[d];
  if (p->precision == GQ_PRECISION_FLOAT) {
    gq_expr_eval_block_f(p->f->g, (size_t)b->fill, vars, b->out_f, b->scratch_f);
    for (int i = 0; i < b->fill; i++)
      b->out[i] = (double)b->out_f[i];
  } else {
    gq_expr_eval_block(p->f->g, (size_t)b->fill, vars, b->out, b->scratch);
  }
  for (int i = 0; i < b->fill; i++) {
    const uint32_t h = b->owner[i];
    const double v = b->out[i] * b->jacobian[i], v2 = v * v, weight = v2 / (double)p->counts[h];
    p->sum[h] += v;
    p->sum2[h] += v2;
    for (int d = 0; d < p->dims; d++) {
      const size_t c = (size_t)d * p->bins + b->bin[d][i];
      b->train[c] += weight;
      b->train_weight[c] += 1.0 / (double)p->counts[h];
    }
  }
  b->fill = 0;
}

/* Hypercubes [lo, hi): their samples, a Philox quad at a time. */
static void run_range(block *b, const gq_vegas_pass *p, uint32_t lo, uint32_t hi)
{
  for (uint32_t h = lo; h < hi; h++) {
    unsigned int cell[GQ_MC_MAX_DIMS];
    uint32_t rest = h;
    for (int d = 0; d < p->dims; d++) {
      cell[d] = rest % (uint32_t)p->strata;
      rest /= (uint32_t)p->strata;
    }
    const uint64_t n = p->counts[h];
    for (uint64_t k = 0; k < n; k += 4) {
      if (b->fill > BLOCK - 4)
        block_flush(b, p);
      const int lanes = n - k < 4 ? (int)(n - k) : 4;
      for (int l = 0; l < lanes; l++) {
        b->jacobian[b->fill + l] = 1.0;
        b->owner[b->fill + l] = h;
      }
      for (int d = 0; d < p->dims; d++) {
        const gq_philox4 r = gq_vegas_quad(p->seed, p->pass, h, k / 4, d);
        const double *edges = p->edges + (size_t)d * (p->bins + 1);
        for (int l = 0; l < lanes; l++) {
          const int i = b->fill + l;
          const double x = gq_vegas_map(edges, p->bins, p->strata, cell[d], r.v[l], &b->bin[d][i], &b->jacobian[i]);
          b->x[d][i] = fma(x, p->w[d], p->a[d]);
        }
      }
      b->fill += lanes;
    }
  }
  if (b->fill)
    block_flush(b, p);
}

uint32_t gq_cpu_vegas_parts(uint32_t hcubes) { return hcubes < PARTS ? hcubes : PARTS; }

int gq_cpu_vegas_pass(const gq_vegas_pass *p, gq_grid_info *info)
{
  const double t0 = gq_wall_ms();
  const uint32_t parts = gq_cpu_vegas_parts(p->hcubes);
  /* the parts this call runs: all, or a share's (p->part_cells) */
  const uint32_t first = p->part_cells ? p->part_first : 0, count = p->part_cells ? p->part_count : parts;
  const size_t cells = (size_t)p->dims * (size_t)p->bins;
  double *train = calloc(2 * (size_t)(count ? count : 1) * cells, sizeof *train),
         *weight = train + (size_t)count * cells;
  if (!train)
    return gq_fail(GQ_ENOMEM, "VEGAS: no memory for %u x %zu training bins", count, cells);
  memset(p->sum, 0, p->hcubes * sizeof *p->sum);
  memset(p->sum2, 0, p->hcubes * sizeof *p->sum2);
  const int threads = gq_cpu_threads();
  const int team = (uint32_t)threads < count ? threads : (int)count;
  int failed = 0;
#pragma omp parallel num_threads(team > 1 ? team : 1) if (team > 1) reduction(| : failed)
  {
    block b;
    failed = !block_open(&b, p);
#pragma omp for schedule(dynamic)
    for (uint32_t j = 0; j < count; j++) {
      if (failed)
        continue;
      const uint32_t s = first + j;
      b.train = train + (size_t)j * cells;
      b.train_weight = weight + (size_t)j * cells;
      run_range(&b, p, (uint32_t)((uint64_t)s * p->hcubes / parts), (uint32_t)((uint64_t)(s + 1) * p->hcubes / parts));
    }
    block_close(&b, p);
  }
  if (failed) {
    free(train);
    return gq_fail(GQ_ENOMEM, "VEGAS: no memory for the CPU's point blocks");
  }
  if (p->part_cells) { /* each part's cells, train then weight, for the share's merge */
    for (uint32_t j = 0; j < count; j++) {
      memcpy(p->part_cells + (size_t)j * 2 * cells, train + (size_t)j * cells, cells * sizeof *train);
      memcpy(p->part_cells + ((size_t)j * 2 + 1) * cells, weight + (size_t)j * cells, cells * sizeof *train);
    }
  } else {
    gq_vegas_sum_parts(train, weight, count, cells, cells, p->train, p->train_weight);
  }
  free(train);
  info->ms = gq_wall_ms() - t0;
  info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
  return GQ_SUCCESS;
}

void gq_vegas_sum_parts(const double *train, const double *weight, uint32_t parts, size_t stride, size_t cells,
                        double *train_out, double *weight_out)
{
  for (size_t c = 0; c < cells; c++) {
    double t = 0.0, k = 0.0;
    for (uint32_t s = 0; s < parts; s++) {
      t += train[(size_t)s * stride + c];
      k += weight[(size_t)s * stride + c];
    }
    train_out[c] = t;
    weight_out[c] = k;
  }
}
