/* grid_sum.c — the CPU backend's reduction engine for grid sources.
 *
 * Source x map x accumulator, as on the GPU: the source is the grid index
 * range, the map a built-in integrand evaluated over a block of points into an
 * L1-resident buffer (one tight loop per integrand, vectorised with
 * `omp simd`), and the accumulator LANES independent compensated sums (TwoSum
 * per element, so the lanes vectorise and the sum stays within 1-2 ulp of
 * exact).  OpenMP threads take contiguous runs of blocks (static schedule) and
 * their partials are merged in thread order, so a run is reproducible for a
 * given thread count.
 *
 * The hot functions are cloned for x86-64-v3 (AVX2 + FMA, chosen at load time by CPU features) and the baseline; the
 * baseline clone computes fma() in software, which is correct but slower.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <tgmath.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../internal.h"
#include "lib/expr/expr.h"
#include "clones.h"

enum {
  BLOCK = 2048, /* points per block: the buffer (16 KiB) stays in L1 */
  LANES = 8     /* independent accumulators: two AVX2 vectors        */
};


typedef void block_fn(double a, double h, double i0, int count, double *out);

/* One evaluator per built-in and precision: out[k] = f(fma(i0 + k, h, a)). */
#define R(c) ((__typeof__(x))(c))
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc)                     \
  GQ_CLONES static void block_d_##ID(double a, double h, double i0, int count,  \
                                     double *restrict out)                      \
  {                                                                             \
    _Pragma("omp simd") for (int k = 0; k < count; k++)                         \
    {                                                                           \
      const double x = fma(i0 + (double)k, h, a);                               \
      out[k] = fx;                                                              \
    }                                                                           \
  }                                                                             \
  GQ_CLONES static void block_f_##ID(double a, double h, double i0, int count,  \
                                     double *restrict out)                      \
  {                                                                             \
    _Pragma("omp simd") for (int k = 0; k < count; k++)                         \
    {                                                                           \
      const float x = (float)fma(i0 + (double)k, h, a);                         \
      out[k] = (double)(fx);                                                    \
    }                                                                           \
  }
#include "../integrands.def"
#undef GQ_BUILTIN
#undef R

static block_fn *const blocks_double[GQ_F_COUNT] = {
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc) block_d_##ID,
#include "../integrands.def"
#undef GQ_BUILTIN
};
static block_fn *const blocks_float[GQ_F_COUNT] = {
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc) block_f_##ID,
#include "../integrands.def"
#undef GQ_BUILTIN
};

typedef struct {
  double s[LANES], c[LANES];
} lane_sums;

/* Lane l takes v[k] for k % LANES == l; TwoSum written out so it vectorises. */
GQ_CLONES static void accumulate(lane_sums *restrict acc, const double *restrict v, int count)
{
  int k = 0;
  for (; k + LANES <= count; k += LANES) {
#pragma omp simd
    for (int l = 0; l < LANES; l++) {
      const double s = acc->s[l] + v[k + l];
      const double bp = s - acc->s[l];
      const double ap = s - bp;
      acc->c[l] += (acc->s[l] - ap) + (v[k + l] - bp);
      acc->s[l] = s;
    }
  }
  for (; k < count; k++) {
    gq_csum t = {acc->s[k % LANES], acc->c[k % LANES]};
    gq_csum_add(&t, v[k]);
    acc->s[k % LANES] = t.s;
    acc->c[k % LANES] = t.c;
  }
}

/* x_k = fma(i0 + k, h, a), the grid as every backend computes it. */
GQ_CLONES static void grid_points(double a, double h, double i0, int count, double *restrict x)
{
#pragma omp simd
  for (int k = 0; k < count; k++)
    x[k] = fma(i0 + (double)k, h, a);
}

/* One thread's evaluator: a built-in's block function, or an expression's
 * bytecode over the block (scratch is per thread). */
typedef struct {
  const gq_grid_sum *p;
  block_fn *builtin;
  double *out;   /* the block's values: on the heap, not on a worker's stack,
                    which OMP_STACKSIZE may make as small as 16 KiB */
  double *x, *scratch;
  float *scratch_f, *out_f;
} evaluator;

static int evaluator_open(evaluator *ev, const gq_grid_sum *p)
{
  memset(ev, 0, sizeof *ev);
  ev->p = p;
  ev->out = aligned_alloc(64, BLOCK * sizeof *ev->out);
  if (!ev->out)
    return GQ_ENOMEM;
  if (p->f->id >= 0) {
    ev->builtin = (p->precision == GQ_PRECISION_FLOAT ? blocks_float : blocks_double)[p->f->id];
    return GQ_SUCCESS;
  }
  const size_t regs = gq_expr_block_scratch(p->f->g) + 1;
  ev->x = malloc(BLOCK * sizeof *ev->x);
  if (p->precision == GQ_PRECISION_FLOAT) {
    ev->scratch_f = malloc(regs * sizeof *ev->scratch_f);
    ev->out_f = malloc(BLOCK * sizeof *ev->out_f);
  } else {
    ev->scratch = malloc(regs * sizeof *ev->scratch);
  }
  const int ok = ev->x && (ev->scratch || (ev->scratch_f && ev->out_f));
  return ok ? GQ_SUCCESS : GQ_ENOMEM;
}

static void evaluator_close(evaluator *ev)
{
  free(ev->out);
  free(ev->x);
  free(ev->scratch);
  free(ev->scratch_f);
  free(ev->out_f);
}

/* out[k] = g(x_{i0+k}), k < count <= BLOCK */
static void evaluate(evaluator *ev, uint64_t i0, int count, double *out)
{
  const gq_grid_sum *p = ev->p;
  if (ev->builtin) {
    ev->builtin(p->a, p->h, (double)i0, count, out);
    return;
  }
  grid_points(p->a, p->h, (double)i0, count, ev->x);
  const double *vars[GQ_EXPR_MAX_DIMS] = {ev->x};
  if (p->precision == GQ_PRECISION_FLOAT) {
    gq_expr_eval_block_f(p->f->g, (size_t)count, vars, ev->out_f, ev->scratch_f);
    for (int k = 0; k < count; k++)
      out[k] = (double)ev->out_f[k];
  } else {
    gq_expr_eval_block(p->f->g, (size_t)count, vars, out, ev->scratch);
  }
}

/* Block blk of the count points from p->first: evaluated into out; returns
 * how many points it holds (BLOCK, or fewer for the last). */
static int evaluate_block(evaluator *ev, uint64_t blk, uint64_t count, double *out)
{
  const int cnt = (int)(count - blk * BLOCK < BLOCK ? count - blk * BLOCK : BLOCK);
  evaluate(ev, ev->p->first + blk * BLOCK, cnt, out);
  return cnt;
}

int gq_cpu_grid_sum(const gq_context *ctx, const gq_grid_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  (void)ctx;
  if (p->f->id >= GQ_F_COUNT)
    return gq_fail(GQ_EINVAL, "unknown built-in integrand %d", p->f->id);
  const uint64_t count = p->last - p->first + 1;
  const uint64_t nblocks = (count + BLOCK - 1) / BLOCK;
  const int nthreads = gq_cpu_threads();
  gq_csum (*partial)[2] = calloc((size_t)nthreads, sizeof *partial);
  if (!partial)
    return gq_fail(GQ_ENOMEM, "cannot allocate %d partial sums", nthreads);

  int failed = 0;
  const double t0 = gq_wall_ms();
#pragma omp parallel num_threads(nthreads) reduction(| : failed)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    evaluator ev;
    failed = evaluator_open(&ev, p) != GQ_SUCCESS;
    lane_sums acc = {{0}, {0}};
#pragma omp for schedule(static)
    for (uint64_t blk = 0; blk < nblocks; blk++) {
      if (failed)
        continue;
      const int cnt = evaluate_block(&ev, blk, count, ev.out);
      accumulate(&acc, ev.out, cnt);
    }
    evaluator_close(&ev);
    /* Blocks start at first + multiples of BLOCK (even), so lane l always held
     * indices of parity (first + l) % 2. */
    gq_csum by_parity[2] = {gq_csum_zero(), gq_csum_zero()};
    for (int l = 0; l < LANES; l++) {
      gq_csum lane = {acc.s[l], acc.c[l]};
      gq_csum_merge(&by_parity[(p->first + (uint64_t)l) & 1], lane);
    }
    partial[tid][0] = by_parity[0];
    partial[tid][1] = by_parity[1];
  }
  if (failed) {
    free(partial);
    return gq_fail(GQ_ENOMEM, "cannot allocate the block evaluator's buffers");
  }
  sums[0] = sums[1] = gq_csum_zero();
  for (int t = 0; t < nthreads; t++) {
    gq_csum_merge(&sums[0], partial[t][0]);
    gq_csum_merge(&sums[1], partial[t][1]);
  }
  if (info) {
    info->ms = gq_wall_ms() - t0;
    info->compile_ms = 0.0;
    info->jit = GQ_JIT_NONE;
  }
  free(partial);
  return GQ_SUCCESS;
}

int gq_cpu_grid_nonfinite(const gq_context *ctx, const gq_grid_sum *p, uint64_t *count_out,
                          uint64_t *first_out)
{
  (void)ctx;
  const uint64_t count = p->last - p->first + 1;
  const uint64_t nblocks = (count + BLOCK - 1) / BLOCK;
  uint64_t bad = 0, first = UINT64_MAX;
  int failed = 0;
#pragma omp parallel num_threads(gq_cpu_threads()) reduction(+ : bad) reduction(min : first) reduction(| : failed)
  {
    evaluator ev;
    failed = evaluator_open(&ev, p) != GQ_SUCCESS;
    const double *buf = ev.out;
#pragma omp for schedule(static)
    for (uint64_t blk = 0; blk < nblocks; blk++) {
      if (failed)
        continue;
      const uint64_t i0 = p->first + blk * BLOCK;
      const int cnt = evaluate_block(&ev, blk, count, ev.out);
      for (int k = 0; k < cnt; k++)
        if (!isfinite(buf[k])) {
          bad++;
          if (i0 + (uint64_t)k < first)
            first = i0 + (uint64_t)k;
        }
    }
    evaluator_close(&ev);
  }
  if (failed)
    return gq_fail(GQ_ENOMEM, "cannot allocate the block evaluator's buffers");
  *count_out = bad;
  *first_out = first;
  return GQ_SUCCESS;
}
