/* driver.c — the CPU backend's one reduction engine: every CPU command is a
 * source x map x accumulator run by one OpenMP loop.
 *
 *   source       grid i -> fma(i, h, a); one or two host arrays (double or
 *                float, widened per chunk); the Philox stream of d-dimensional
 *                points (philox.h's layout, shared with the GPU)
 *   map          integrand (a built-in's vectorised block, or an expression's
 *                bytecode), product, difference squared, identity
 *   accumulator  compensated sums in LANES lanes (compensated.h), the
 *                reduce_acc.h accumulators (sum, rms, stats; their scaled
 *                adds in the classifying pass), mc_moments.h, the count of
 *                non-finite values; under --deterministic the grid's keyed
 *                sums and the moments exactly (exact_sum.h), term by term:
 *                the same terms as the GPU's, so the same words
 *
 * The parallel loop (drive): the index range is cut into chunks and the
 * chunks into at most MAX_PARTS parts, a function of the problem only — never
 * of the team.  Whichever thread takes a part sums it in index order into the
 * part's own accumulator, and the parts are merged in part order, so a result
 * has the same bits for every thread count and every schedule.  The work per
 * element is chosen by switches per chunk (a chunk is one L1-resident
 * buffer), never per element: the lane loops are `omp simd` loops, TwoSum
 * per element written out so that it vectorises, cloned for x86-64-v3.
 *
 * A problem of one part runs on the calling thread: no team is woken for
 * work smaller than waking it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <tgmath.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../exact_sum.h"
#include "../internal.h"
#include "../philox.h"
#include "../sobol.h"
#include "lib/expr/expr.h"
#include "clones.h"
#include "part_progress.h"

enum {
  CHUNK = 2048,    /* elements per buffer: two buffers of doubles stay in L1      */
  MC_CHUNK = 1024, /* Monte Carlo samples per buffer (a multiple of a Philox quad) */
  LANES = 8,       /* independent accumulators: two AVX2 vectors                 */
  MAX_PARTS = 256  /* partials per run: many per thread for the usual teams     */
};

/* ---- the problem ------------------------------------------------------------ */
typedef enum { SOURCE_GRID, SOURCE_ARRAYS, SOURCE_PHILOX } source_kind;
typedef enum { MAP_INTEGRAND, MAP_PRODUCT, MAP_DIFF_SQUARED, MAP_IDENTITY } map_kind;
typedef enum {
  ACC_KEYED_SUMS,  /* gq_csum per index class mod GQ_GRID_KEYS (what a rule weighs) */
  ACC_NONFINITE,   /* how many values are not finite, and the first index   */
  ACC_SUM,         /* gq_sum_acc                                            */
  ACC_RMS,         /* gq_rms_acc                                            */
  ACC_STATS,       /* gq_stats_acc                                          */
  ACC_MOMENTS,     /* gq_mc_moments                                         */
  ACC_KEYED_EXACT, /* the keyed sums exactly (gq_grid_sum.deterministic)    */
  ACC_MOMENTS_EXACT /* s1 and s2 exactly (gq_mc_batch.deterministic)        */
} acc_kind;

typedef struct {
  source_kind source;
  map_kind map;
  acc_kind acc;
  int classify;                  /* arrays: count and skip non-finite terms, scale */
  uint64_t n;                    /* elements                                       */
  int chunk;                     /* elements per buffer                            */
  uint64_t min_chunks_per_part;  /* below this much work a part is not worth a thread */
  const gq_grid_sum *grid;       /* SOURCE_GRID                                    */
  const gq_array_reduce *arrays; /* SOURCE_ARRAYS                                  */
  const gq_mc_batch *mc;         /* SOURCE_PHILOX                                  */
  const gq_context *progress;    /* told of finished parts (grid sums), or NULL    */
} problem;

typedef struct {
  uint64_t count, first; /* first: UINT64_MAX when count is 0 */
} nonfinite_count;

/* One part's accumulator, merged in part order. */
typedef union {
  gq_csum keyed[GQ_GRID_KEYS];
  nonfinite_count nonfinite;
  gq_reduce_acc reduce;
  gq_mc_moments moments;
  gq_exact_sum *exact; /* the exact kinds: the part's sums (drive's array), or the caller's */
} part_result;

/* ---- per-thread buffers ------------------------------------------------------
 * On the heap, not on a worker's stack, which OMP_STACKSIZE may make as small
 * as 16 KiB. */
typedef struct {
  double *x[GQ_MC_MAX_DIMS], *y; /* the source's values (points, or widened arrays) */
  double *out;                   /* the map's values                               */
  double *scratch;
  float *scratch_f, *out_f;
} workspace;

static const gq_integrand *integrand_of(const problem *p)
{
  return p->source == SOURCE_GRID ? p->grid->f : p->source == SOURCE_PHILOX ? p->mc->f : NULL;
}

static int precision_of(const problem *p)
{
  return p->source == SOURCE_GRID ? p->grid->precision : p->mc->precision;
}

static int workspace_open(workspace *ws, const problem *p)
{
  memset(ws, 0, sizeof *ws);
  const size_t bytes = (size_t)p->chunk * sizeof(double);
  const int dims = p->source == SOURCE_PHILOX ? p->mc->dims : 1;
  int ok = 1;
  if (p->source == SOURCE_ARRAYS) { /* buffers to widen floats into */
    if (p->arrays->is_float)
      ok &= (ws->x[0] = aligned_alloc(64, bytes)) != NULL && (ws->y = aligned_alloc(64, bytes)) != NULL;
    return ok ? GQ_SUCCESS : GQ_ENOMEM;
  }
  ok &= (ws->x[0] = aligned_alloc(64, bytes)) != NULL && (ws->out = aligned_alloc(64, bytes)) != NULL;
  for (int d = 1; d < dims; d++)
    ok &= (ws->x[d] = aligned_alloc(64, bytes)) != NULL;
  const gq_integrand *f = integrand_of(p);
  if (p->source == SOURCE_GRID && f->id >= 0) /* a built-in's block needs no scratch */
    return ok ? GQ_SUCCESS : GQ_ENOMEM;
  const size_t regs = gq_expr_block_scratch(f->g) + 1;
  if (precision_of(p) == GQ_PRECISION_FLOAT) {
    ok &= (ws->scratch_f = malloc(regs * sizeof *ws->scratch_f)) != NULL;
    ok &= (ws->out_f = malloc((size_t)p->chunk * sizeof *ws->out_f)) != NULL;
  } else {
    ok &= (ws->scratch = malloc(regs * sizeof *ws->scratch)) != NULL;
  }
  return ok ? GQ_SUCCESS : GQ_ENOMEM;
}

static void workspace_close(workspace *ws)
{
  for (int d = 0; d < GQ_MC_MAX_DIMS; d++)
    free(ws->x[d]);
  free(ws->y);
  free(ws->out);
  free(ws->scratch);
  free(ws->scratch_f);
  free(ws->out_f);
}

/* ---- sources and the integrand map ------------------------------------------ */
typedef void block_fn(double a, double h, double i0, int count, double *out);

/* A built-in over grid points, source and map fused so that one simd loop
 * computes x and f(x): out[k] = f(fma(i0 + k, h, a)). */
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

/* x_k = fma(i0 + k, h, a), the grid as every backend computes it. */
GQ_CLONES static void grid_points(double a, double h, double i0, int count, double *restrict x)
{
#pragma omp simd
  for (int k = 0; k < count; k++)
    x[k] = fma(i0 + (double)k, h, a);
}

void gq_mc_points(const gq_mc_batch *p, uint64_t first, int count, double *const *x)
{
  if (p->sampler == GQ_SAMPLER_SOBOL) {
    for (int d = 0; d < p->dims; d++) {
      unsigned int word = gq_sobol_word(first, d);
      for (int k = 0; k < count; k++) {
        if (k > 0)
          word = gq_sobol_next(word, first + (uint64_t)k, d);
        x[d][k] = fma(gq_uniform_double(gq_sobol_scramble(word, p->scramble[d])), p->w[d], p->a[d]);
      }
    }
    return;
  }
  const uint64_t q0 = first / 4;
  const int quads = (count + 3) / 4;
  for (int d = 0; d < p->dims; d++) {
    double *xd = x[d];
    for (int j = 0; j < quads; j++) {
      const gq_philox4 r = gq_philox_quad(q0 + (uint64_t)j, (unsigned)d, p->seed);
      double v[4];
      if (p->dist == GQ_MC_NORMAL) {
        gq_box_muller(r.v[0], r.v[1], &v[0], &v[1]);
        gq_box_muller(r.v[2], r.v[3], &v[2], &v[3]);
      } else {
        for (int l = 0; l < 4; l++)
          v[l] = fma(gq_uniform_double(r.v[l]), p->w[d], p->a[d]);
      }
      for (int l = 0; l < 4 && 4 * j + l < count; l++)
        xd[4 * j + l] = v[l];
    }
  }
}

/* The integrand map over ws->x: an expression's bytecode into ws->out. */
static void eval_expr(const problem *p, workspace *ws, int count)
{
  const gq_integrand *f = integrand_of(p);
  const double *vars[GQ_EXPR_MAX_DIMS] = {0};
  for (int d = 0; d < GQ_MC_MAX_DIMS && ws->x[d]; d++)
    vars[d] = ws->x[d];
  if (precision_of(p) == GQ_PRECISION_FLOAT) {
    gq_expr_eval_block_f(f->g, (size_t)count, vars, ws->out_f, ws->scratch_f);
    for (int k = 0; k < count; k++)
      ws->out[k] = (double)ws->out_f[k];
  } else {
    gq_expr_eval_block(f->g, (size_t)count, vars, ws->out, ws->scratch);
  }
}

static void widen(double *restrict out, const float *restrict in, int count)
{
#pragma omp simd
  for (int k = 0; k < count; k++)
    out[k] = (double)in[k];
}

/* Elements [i, i + count) of the source, through the integrand map where
 * there is one: *x (and *y for two arrays) point at count doubles. */
static void source_chunk(const problem *p, workspace *ws, uint64_t i, int count, const double **x,
                         const double **y)
{
  *y = NULL;
  switch (p->source) {
  case SOURCE_GRID: {
    const gq_grid_sum *g = p->grid;
    if (g->f->id >= 0) {
      (g->precision == GQ_PRECISION_FLOAT ? blocks_float : blocks_double)[g->f->id](
          g->a, g->h, (double)(g->first + i), count, ws->out);
    } else {
      grid_points(g->a, g->h, (double)(g->first + i), count, ws->x[0]);
      eval_expr(p, ws, count);
    }
    *x = ws->out;
    return;
  }
  case SOURCE_PHILOX:
    gq_mc_points(p->mc, p->mc->first + i, count, ws->x);
    eval_expr(p, ws, count);
    *x = ws->out;
    return;
  case SOURCE_ARRAYS: {
    const gq_array_reduce *a = p->arrays;
    if (!a->is_float) {
      *x = (const double *)a->x + i;
      *y = a->y ? (const double *)a->y + i : NULL;
      return;
    }
    widen(ws->x[0], (const float *)a->x + i, count);
    *x = ws->x[0];
    if (a->y) {
      widen(ws->y, (const float *)a->y + i, count);
      *y = ws->y;
    }
    return;
  }
  }
}

/* ---- accumulators: lanes for the fast loops --------------------------------- */
typedef struct {
  double s[LANES], c[LANES], abs[LANES], ref[LANES], ref_c[LANES], max[LANES];
} sum_lanes;

typedef struct {
  double shift[LANES], s1[LANES], s1_c[LANES], s2[LANES], s2_c[LANES], abs[LANES], abs_c[LANES];
  double min[LANES], max[LANES];
  uint64_t n[LANES], imin[LANES], imax[LANES];
} stats_lanes;

typedef union {
  sum_lanes sum;
  stats_lanes stats;
  gq_reduce_acc reduce; /* the classifying pass: one scalar accumulator */
  gq_mc_moments moments;
  nonfinite_count nonfinite;
} part_acc;

/* Lane l takes the terms k % LANES == l of a block.  Terms t = a (a grid's
 * values, identity) or a*b (product, with its rounding error fma(a, b, -t));
 * with_abs adds |t| to a lane of its own (gq_sum_acc's L1).  Inlined into
 * one loop per use with b and with_abs constant, so that each vectorises
 * without the branches. */
__attribute__((always_inline)) static inline void
sum_lanes_add(sum_lanes *restrict L, const double *restrict a, const double *restrict b, int count, int with_abs)
{
  int k = 0;
  for (; k + LANES <= count; k += LANES) {
#pragma omp simd
    for (int l = 0; l < LANES; l++) {
      const double t = b ? a[k + l] * b[k + l] : a[k + l];
      const double e = b ? fma(a[k + l], b[k + l], -t) : 0.0;
      const double s = L->s[l] + t, bp = s - L->s[l], ap = s - bp;
      L->c[l] += ((L->s[l] - ap) + (t - bp)) + e;
      L->s[l] = s;
      if (with_abs)
        L->abs[l] += fabs(t);
    }
  }
  for (; k < count; k++) {
    const double t = b ? a[k] * b[k] : a[k];
    gq_csum acc = {L->s[k % LANES], L->c[k % LANES]};
    gq_csum_add(&acc, t);
    L->s[k % LANES] = acc.s;
    L->c[k % LANES] = acc.c + (b ? fma(a[k], b[k], -t) : 0.0);
    if (with_abs)
      L->abs[k % LANES] += fabs(t);
  }
}

GQ_CLONES static void values_block(sum_lanes *restrict L, const double *restrict v, int count)
{
  sum_lanes_add(L, v, NULL, count, 0);
}

GQ_CLONES static void sum_block(sum_lanes *restrict L, const double *restrict a, int count)
{
  sum_lanes_add(L, a, NULL, count, 1);
}

GQ_CLONES static void dot_block(sum_lanes *restrict L, const double *restrict a, const double *restrict b, int count)
{
  sum_lanes_add(L, a, b, count, 1);
}

/* (a - b)^2 compensated, with the square's rounding error; a^2; max |a - b|. */
GQ_CLONES static void rms_block(sum_lanes *restrict L, const double *restrict a, const double *restrict b,
                                int count)
{
  int k = 0;
  for (; k + LANES <= count; k += LANES) {
#pragma omp simd
    for (int l = 0; l < LANES; l++) {
      const double d = a[k + l] - b[k + l], t = d * d, e = fma(d, d, -t);
      const double s = L->s[l] + t, bp = s - L->s[l], ap = s - bp;
      L->c[l] += ((L->s[l] - ap) + (t - bp)) + e;
      L->s[l] = s;
      const double r = a[k + l] * a[k + l], rs = L->ref[l] + r, rb = rs - L->ref[l], ra = rs - rb;
      L->ref_c[l] += ((L->ref[l] - ra) + (r - rb)) + fma(a[k + l], a[k + l], -r);
      L->ref[l] = rs;
      L->max[l] = fabs(d) > L->max[l] ? fabs(d) : L->max[l];
    }
  }
  for (; k < count; k++) {
    const int l = k % LANES;
    const double d = a[k] - b[k], t = d * d;
    gq_csum acc = {L->s[l], L->c[l]};
    gq_csum_add(&acc, t);
    L->s[l] = acc.s;
    L->c[l] = acc.c + fma(d, d, -t);
    gq_csum ref = {L->ref[l], L->ref_c[l]};
    gq_csum_add(&ref, a[k] * a[k]);
    L->ref[l] = ref.s;
    L->ref_c[l] = ref.c + fma(a[k], a[k], -(a[k] * a[k]));
    L->max[l] = fabs(d) > L->max[l] ? fabs(d) : L->max[l];
  }
}

/* Lane l of S as a gq_stats_acc, and back: the tail's scalar adds and the
 * part's merge use reduce_acc.h's own formulas. */
static gq_stats_acc stats_lane(const stats_lanes *S, int l)
{
  gq_stats_acc a;
  gq_stats_acc_zero(&a);
  a.n = S->n[l];
  a.shift = S->shift[l];
  a.s1 = S->s1[l];
  a.s1_err = S->s1_c[l];
  a.s2 = S->s2[l];
  a.s2_err = S->s2_c[l];
  a.abs_sum = S->abs[l];
  a.abs_err = S->abs_c[l];
  a.min = S->min[l];
  a.max = S->max[l];
  a.argmin = S->imin[l];
  a.argmax = S->imax[l];
  return a;
}

static void stats_lane_store(stats_lanes *S, int l, const gq_stats_acc *a)
{
  S->n[l] = a->n;
  S->shift[l] = a->shift;
  S->s1[l] = a->s1;
  S->s1_c[l] = a->s1_err;
  S->s2[l] = a->s2;
  S->s2_c[l] = a->s2_err;
  S->abs[l] = a->abs_sum;
  S->abs_c[l] = a->abs_err;
  S->min[l] = a->min;
  S->max[l] = a->max;
  S->imin[l] = a->argmin;
  S->imax[l] = a->argmax;
}

/* Per element: x - K exactly (TwoSum), its square with the square's error,
 * both into compensated sums: gq_stats_acc_add written out per lane. */
GQ_CLONES static void stats_block(stats_lanes *restrict L, const double *restrict x, int count, uint64_t index)
{
  int k = 0;
  for (; k + LANES <= count; k += LANES) {
#pragma omp simd
    for (int l = 0; l < LANES; l++) {
      const double v = x[k + l], nk = -L->shift[l];
      const uint64_t i = index + (uint64_t)(k + l);
      const double dh = v + nk, db = dh - v, da = dh - db, dl = (v - da) + (nk - db);
      const double t = L->s1[l] + dh, tb = t - L->s1[l], ta = t - tb;
      L->s1_c[l] += ((L->s1[l] - ta) + (dh - tb)) + dl;
      L->s1[l] = t;
      const double p = dh * dh, pe = fma(2.0 * dh, dl, fma(dh, dh, -p));
      const double q = L->s2[l] + p, qb = q - L->s2[l], qa = q - qb;
      L->s2_c[l] += ((L->s2[l] - qa) + (p - qb)) + pe;
      L->s2[l] = q;
      const double av = fabs(v), r = L->abs[l] + av, rb = r - L->abs[l], ra = r - rb;
      L->abs_c[l] += (L->abs[l] - ra) + (av - rb);
      L->abs[l] = r;
      if (v < L->min[l]) {
        L->min[l] = v;
        L->imin[l] = i;
      }
      if (v > L->max[l]) {
        L->max[l] = v;
        L->imax[l] = i;
      }
      L->n[l]++;
    }
  }
  for (; k < count; k++) {
    gq_stats_acc a = stats_lane(L, k % LANES);
    gq_stats_acc_add(&a, x[k], index + (uint64_t)k);
    stats_lane_store(L, k % LANES, &a);
  }
}

/* Groups of four, as the GPU sums a Philox quad before its TwoSum (chunks
 * start at multiples of four samples). */
static void moments_block(gq_mc_moments *m, const double *restrict v, int count, double shift)
{
  for (int k = 0; k < count; k += 4) {
    double d[4] = {0, 0, 0, 0};
    for (int l = 0; l < 4 && k + l < count; l++)
      d[l] = v[k + l] - shift;
    gq_mc_moments_add(m, (d[0] + d[1]) + (d[2] + d[3]), (d[0] * d[0] + d[1] * d[1]) + (d[2] * d[2] + d[3] * d[3]));
  }
}

/* The exact kinds, term by term into the part's result: a grid's values
 * by index class (index: the grid index of v[0]); Monte Carlo's d = y - K
 * as the GPU's QuadExact forms it, d and d^2 exact. */
static void keyed_exact_block(gq_exact_sum *keyed, const double *v, int count, uint64_t index)
{
  for (int k = 0; k < count; k++)
    gq_exact_sum_add(&keyed[(index + (uint64_t)k) % GQ_GRID_KEYS], v[k]);
}

static void moments_exact_block(gq_exact_sum *m, const double *v, int count, double shift)
{
  for (int k = 0; k < count; k++) {
    const double d = v[k] - shift;
    if (!(d - d == 0.0)) {
      m[0].nonfinite += d;
      continue;
    }
    gq_superacc_add(&m[0].acc, d);
    gq_superacc_add_product(&m[1].acc, d, d, 0, 0);
  }
}

static int exact_kind(acc_kind acc) { return acc == ACC_KEYED_EXACT || acc == ACC_MOMENTS_EXACT; }
static int exact_count(const problem *p) { return p->acc == ACC_KEYED_EXACT ? GQ_GRID_KEYS : 2; }

static void nonfinite_block(nonfinite_count *r, const double *v, int count, uint64_t index)
{
  for (int k = 0; k < count; k++)
    if (!isfinite(v[k])) {
      r->count++;
      if (index + (uint64_t)k < r->first)
        r->first = index + (uint64_t)k;
    }
}

/* The classifying pass: reduce_acc.h's scaled adds, one element at a time;
 * every non-finite term is counted and left out. */
static void classify_block(const problem *p, gq_reduce_acc *acc, const double *x, const double *y, int count,
                           uint64_t index)
{
  for (int k = 0; k < count; k++) {
    const double a = x[k];
    if (p->acc == ACC_STATS) {
      if (isfinite(a))
        gq_stats_acc_add_scaled(&acc->stats, a, index + (uint64_t)k);
      else
        gq_stats_acc_add_nonfinite(&acc->stats, a, index + (uint64_t)k);
    } else if (p->acc == ACC_RMS) {
      const double b = y[k], d = a - b;
      if (isnan(d) || isnan(a))
        acc->rms.nan_count++;
      else if (!isfinite(a) || !isfinite(b))
        acc->rms.inf_count++;
      else /* a - b may overflow: scaled */
        gq_rms_acc_add_scaled(&acc->rms, a, b);
    } else {
      const double b = p->map == MAP_PRODUCT ? y[k] : 1.0, t = a * b;
      if (isnan(t))
        acc->sum.nan_count++;
      else if (!isfinite(a) || !isfinite(b))
        *(t > 0 ? &acc->sum.posinf_count : &acc->sum.neginf_count) += 1;
      else if (p->map == MAP_PRODUCT) /* a * b may overflow: scaled */
        gq_sum_acc_add_product_scaled(&acc->sum, a, b);
      else
        gq_sum_acc_add_scaled(&acc->sum, a, 0.0, 0);
    }
  }
}

static void reduce_acc_zero(acc_kind acc, gq_reduce_acc *a)
{
  if (acc == ACC_STATS)
    gq_stats_acc_zero(&a->stats);
  else if (acc == ACC_RMS)
    gq_rms_acc_zero(&a->rms);
  else
    gq_sum_acc_zero(&a->sum);
}

static void reduce_acc_combine(acc_kind acc, gq_reduce_acc *a, const gq_reduce_acc *b)
{
  if (acc == ACC_STATS)
    gq_stats_acc_combine(&a->stats, &b->stats); /* indices are absolute */
  else if (acc == ACC_RMS)
    gq_rms_acc_combine(&a->rms, &b->rms);
  else
    gq_sum_acc_combine(&a->sum, &b->sum);
}

/* The identity of a part's accumulator; the fast stats lanes take their
 * shifts from the part's first values (reduce_acc.h: K is a data point). */
static void part_acc_init(const problem *p, part_acc *A, uint64_t lo, uint64_t hi)
{
  memset(A, 0, sizeof *A);
  if (p->classify) {
    reduce_acc_zero(p->acc, &A->reduce);
    return;
  }
  switch (p->acc) {
  case ACC_NONFINITE: A->nonfinite.first = UINT64_MAX; break;
  case ACC_MOMENTS: A->moments = gq_mc_moments_zero(); break;
  case ACC_STATS: {
    stats_lanes *S = &A->stats;
    const gq_array_reduce *a = p->arrays;
    for (int l = 0; l < LANES; l++) {
      const uint64_t i = lo + (uint64_t)l;
      S->imin[l] = S->imax[l] = GQ_NO_INDEX;
      S->min[l] = INFINITY;
      S->max[l] = -INFINITY;
      S->shift[l] = i >= hi ? 0.0 : a->is_float ? (double)((const float *)a->x)[i] : ((const double *)a->x)[i];
    }
    break;
  }
  default: break; /* the sum lanes start at zero */
  }
}

/* One chunk into the part's accumulator: the switch picks the lane loop. */
static void accumulate(const problem *p, part_acc *A, const double *x, const double *y, int count, uint64_t index)
{
  if (p->classify) {
    classify_block(p, &A->reduce, x, y, count, index);
    return;
  }
  switch (p->acc) {
  case ACC_KEYED_SUMS: values_block(&A->sum, x, count); break;
  case ACC_NONFINITE: nonfinite_block(&A->nonfinite, x, count, p->grid->first + index); break;
  case ACC_SUM:
    if (p->map == MAP_PRODUCT)
      dot_block(&A->sum, x, y, count);
    else
      sum_block(&A->sum, x, count);
    break;
  case ACC_RMS: rms_block(&A->sum, x, y, count); break;
  case ACC_STATS: stats_block(&A->stats, x, count, index); break;
  case ACC_MOMENTS: moments_block(&A->moments, x, count, p->mc->shift); break;
  default: break; /* the exact kinds add to the part's result (run_part) */
  }
}

/* The part's lanes merged, in lane order, into its result. */
static void part_finish(const problem *p, const part_acc *A, uint64_t lo, uint64_t hi, part_result *out)
{
  if (p->classify) {
    out->reduce = A->reduce;
    return;
  }
  const sum_lanes *L = &A->sum;
  switch (p->acc) {
  case ACC_KEYED_SUMS:
    /* Chunks start at lo + multiples of CHUNK (a multiple of LANES and of
     * GQ_GRID_KEYS), so lane l always held grid indices of class
     * (first + lo + l) % GQ_GRID_KEYS. */
    _Static_assert(LANES % GQ_GRID_KEYS == 0 && CHUNK % GQ_GRID_KEYS == 0, "a lane keeps its index class");
    for (int k = 0; k < GQ_GRID_KEYS; k++)
      out->keyed[k] = gq_csum_zero();
    for (int l = 0; l < LANES; l++) {
      const gq_csum lane = {L->s[l], L->c[l]};
      gq_csum_merge(&out->keyed[(p->grid->first + lo + (uint64_t)l) % GQ_GRID_KEYS], lane);
    }
    break;
  case ACC_NONFINITE: out->nonfinite = A->nonfinite; break;
  case ACC_MOMENTS: out->moments = A->moments; break;
  case ACC_SUM:
    gq_sum_acc_zero(&out->reduce.sum);
    for (int l = 0; l < LANES; l++) {
      gq_sum_acc s;
      gq_sum_acc_zero(&s);
      s.sum = L->s[l];
      s.sum_err = L->c[l];
      s.abs_sum = L->abs[l];
      gq_sum_acc_combine(&out->reduce.sum, &s);
    }
    out->reduce.sum.n = hi - lo;
    break;
  case ACC_RMS:
    gq_rms_acc_zero(&out->reduce.rms);
    for (int l = 0; l < LANES; l++) {
      gq_rms_acc r;
      gq_rms_acc_zero(&r);
      r.sq_diff = L->s[l];
      r.sq_diff_err = L->c[l];
      r.sq_ref = L->ref[l];
      r.sq_ref_err = L->ref_c[l];
      r.max_abs = L->max[l];
      gq_rms_acc_combine(&out->reduce.rms, &r);
    }
    out->reduce.rms.n = hi - lo;
    break;
  case ACC_STATS:
    gq_stats_acc_zero(&out->reduce.stats);
    for (int l = 0; l < LANES; l++) {
      gq_stats_acc s = stats_lane(&A->stats, l);
      if (s.n == 0)
        s.argmin = s.argmax = GQ_NO_INDEX;
      gq_stats_acc_combine(&out->reduce.stats, &s);
    }
    break;
  default: break; /* the exact kinds are the result already */
  }
}

/* result = the identity of the problem's accumulator; then merge(result, part). */
static void result_init(const problem *p, part_result *r)
{
  if (exact_kind(p->acc))
    for (int k = 0; k < exact_count(p); k++)
      gq_exact_sum_zero(&r->exact[k]);
  else if (p->acc == ACC_KEYED_SUMS)
    for (int k = 0; k < GQ_GRID_KEYS; k++)
      r->keyed[k] = gq_csum_zero();
  else if (p->acc == ACC_NONFINITE)
    r->nonfinite = (nonfinite_count){0, UINT64_MAX};
  else if (p->acc == ACC_MOMENTS)
    r->moments = gq_mc_moments_zero();
  else
    reduce_acc_zero(p->acc, &r->reduce);
}

static void result_merge(const problem *p, part_result *r, const part_result *part)
{
  if (exact_kind(p->acc)) {
    for (int k = 0; k < exact_count(p); k++)
      gq_exact_sum_merge(&r->exact[k], &part->exact[k]);
  } else if (p->acc == ACC_KEYED_SUMS) {
    for (int k = 0; k < GQ_GRID_KEYS; k++)
      gq_csum_merge(&r->keyed[k], part->keyed[k]);
  } else if (p->acc == ACC_NONFINITE) {
    r->nonfinite.count += part->nonfinite.count;
    if (part->nonfinite.first < r->nonfinite.first)
      r->nonfinite.first = part->nonfinite.first;
  } else if (p->acc == ACC_MOMENTS) {
    gq_mc_moments_merge(&r->moments, part->moments);
  } else {
    reduce_acc_combine(p->acc, &r->reduce, &part->reduce);
  }
}

/* ---- the parallel loop ---------------------------------------------------------- */
/* Elements [lo, hi) of the source, chunk by chunk, into one accumulator. */
static void run_part(const problem *p, workspace *ws, uint64_t lo, uint64_t hi, part_result *out)
{
  part_acc A;
  part_acc_init(p, &A, lo, hi);
  if (exact_kind(p->acc))
    result_init(p, out);
  for (uint64_t i = lo; i < hi; i += (uint64_t)p->chunk) {
    const int count = (int)(hi - i < (uint64_t)p->chunk ? hi - i : (uint64_t)p->chunk);
    const double *x = NULL, *y = NULL;
    source_chunk(p, ws, i, count, &x, &y);
    if (p->acc == ACC_KEYED_EXACT)
      keyed_exact_block(out->exact, x, count, p->grid->first + i);
    else if (p->acc == ACC_MOMENTS_EXACT)
      moments_exact_block(out->exact, x, count, p->mc->shift);
    else
      accumulate(p, &A, x, y, count, i);
  }
  part_finish(p, &A, lo, hi, out);
}

/* The parts of n items in chunks of `chunk`, min_chunks to a part at least:
 * a function of the problem only, never of the team. */
static uint64_t parts_of(uint64_t n, uint64_t chunk, uint64_t min_chunks)
{
  const uint64_t nchunks = (n + chunk - 1) / chunk, want = (nchunks + min_chunks - 1) / min_chunks;
  return want < MAX_PARTS ? want : MAX_PARTS;
}

/* Part s of nparts over nchunks chunks: chunks [s nchunks / nparts,
 * (s + 1) nchunks / nparts), run into *out; its points. */
static uint64_t drive_part(const problem *p, workspace *ws, uint64_t s, uint64_t nparts, uint64_t nchunks,
                           part_result *out)
{
  const uint64_t chunk = (uint64_t)p->chunk;
  const uint64_t lo = s * nchunks / nparts * chunk, end = (s + 1) * nchunks / nparts * chunk;
  const uint64_t hi = end < p->n ? end : p->n;
  run_part(p, ws, lo, hi, out);
  return hi - lo;
}

static int drive(const problem *p, part_result *result, double *ms)
{
  const uint64_t chunk = (uint64_t)p->chunk, nchunks = (p->n + chunk - 1) / chunk;
  const uint64_t nparts = parts_of(p->n, chunk, (uint64_t)p->min_chunks_per_part);
  const int threads = gq_cpu_threads();
  const int team = (uint64_t)threads < nparts ? threads : (int)nparts;
  part_result *partial = malloc((size_t)(nparts ? nparts : 1) * sizeof *partial);
  /* the exact kinds' parts: about 1.1 KiB a sum, apart from the union */
  const int exact = exact_kind(p->acc) ? exact_count(p) : 0;
  gq_exact_sum *parts_exact =
      exact ? malloc((size_t)(nparts ? nparts : 1) * (size_t)exact * sizeof *parts_exact) : NULL;
  if (!partial || (exact && !parts_exact)) {
    free(partial);
    free(parts_exact);
    return gq_fail(GQ_ENOMEM, "cannot allocate %llu partial results", (unsigned long long)nparts);
  }
  for (uint64_t s = 0; exact && s < nparts; s++)
    partial[s].exact = parts_exact + s * (uint64_t)exact;
  const double t0 = gq_wall_ms();
  int failed = 0;
  uint64_t done = 0; /* points of the finished parts (part_progress.h) */
  if (team <= 1) {
    /* One thread: no parallel region.  A region of one inside another (a
     * packed sweep runs its problems side by side, packed.c) still costs
     * libgomp a team's start and end, ~3 futex calls a problem. */
    workspace ws;
    failed = nparts > 0 && workspace_open(&ws, p) != GQ_SUCCESS;
    for (uint64_t s = 0; s < nparts && !failed; s++)
      gq_part_progress_alone(p->progress, &done, drive_part(p, &ws, s, nparts, nchunks, &partial[s]), p->n);
    if (nparts > 0)
      workspace_close(&ws);
  } else {
#pragma omp parallel num_threads(team) reduction(| : failed)
    {
      workspace ws;
      failed = nparts > 0 && workspace_open(&ws, p) != GQ_SUCCESS;
#pragma omp for schedule(dynamic)
      for (uint64_t s = 0; s < nparts; s++)
        if (!failed)
          gq_part_progress(p->progress, &done, drive_part(p, &ws, s, nparts, nchunks, &partial[s]), p->n);
      if (nparts > 0)
        workspace_close(&ws);
    }
  }
  if (failed) {
    free(partial);
    free(parts_exact);
    return gq_fail(GQ_ENOMEM, "cannot allocate the CPU backend's chunk buffers");
  }
  gq_progress(p->progress, p->n, p->n, "points");
  if (exact) /* into the caller's sums (gq_grid_sum.exact, gq_mc_batch.exact) */
    result->exact = p->acc == ACC_KEYED_EXACT ? p->grid->exact : p->mc->exact;
  result_init(p, result);
  for (uint64_t s = 0; s < nparts; s++)
    result_merge(p, result, &partial[s]);
  free(partial);
  free(parts_exact);
  if (ms)
    *ms = gq_wall_ms() - t0;
  return GQ_SUCCESS;
}

/* ---- the commands as problems ----------------------------------------------------- */
static void no_jit(gq_grid_info *info, double ms)
{
  info->ms = ms;
  info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
}

/* 32 chunks (64 Ki points) per part of a grid at least: less is not worth a thread */
enum { GRID_MIN_CHUNKS = 32 };

uint64_t gq_cpu_grid_parts(uint64_t points) { return parts_of(points, CHUNK, GRID_MIN_CHUNKS); }

int gq_cpu_grid_sum(const gq_context *ctx, const gq_grid_sum *g, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  if (g->f->id >= GQ_F_COUNT)
    return gq_fail(GQ_EINVAL, "unknown built-in integrand %d", g->f->id);
  const problem p = {.source = SOURCE_GRID, .map = MAP_INTEGRAND,
                     .acc = g->deterministic ? ACC_KEYED_EXACT : ACC_KEYED_SUMS, .n = g->last - g->first + 1,
                     .chunk = CHUNK, .min_chunks_per_part = GRID_MIN_CHUNKS, .grid = g, .progress = ctx};
  part_result r;
  double ms;
  const int status = drive(&p, &r, &ms);
  if (status != GQ_SUCCESS)
    return status;
  for (int k = 0; k < GQ_GRID_KEYS && !g->deterministic; k++) /* else in g->exact */
    sums[k] = r.keyed[k];
  if (info)
    no_jit(info, ms);
  return GQ_SUCCESS;
}

int gq_cpu_grid_nonfinite(const gq_context *ctx, const gq_grid_sum *g, uint64_t *count, uint64_t *first)
{
  const problem p = {.source = SOURCE_GRID, .map = MAP_INTEGRAND, .acc = ACC_NONFINITE,
                     .n = g->last - g->first + 1, .chunk = CHUNK, .min_chunks_per_part = GRID_MIN_CHUNKS, .grid = g,
                     .progress = ctx};
  part_result r;
  const int status = drive(&p, &r, NULL);
  if (status != GQ_SUCCESS)
    return status;
  *count = r.nonfinite.count;
  *first = r.nonfinite.first;
  return GQ_SUCCESS;
}

int gq_cpu_array_reduce(const gq_array_reduce *a, gq_reduce_acc *out, double *ms)
{
  static const map_kind maps[] = {[GQ_REDUCE_SUM] = MAP_IDENTITY, [GQ_REDUCE_DOT] = MAP_PRODUCT,
                                  [GQ_REDUCE_RMS] = MAP_DIFF_SQUARED, [GQ_REDUCE_STATS] = MAP_IDENTITY};
  static const acc_kind accs[] = {[GQ_REDUCE_SUM] = ACC_SUM, [GQ_REDUCE_DOT] = ACC_SUM,
                                  [GQ_REDUCE_RMS] = ACC_RMS, [GQ_REDUCE_STATS] = ACC_STATS};
  /* 32 chunks (64 Ki elements) per part at least: a smaller input is read
   * faster than a team wakes */
  const problem p = {.source = SOURCE_ARRAYS, .map = maps[a->kind], .acc = accs[a->kind], .classify = a->classify,
                     .n = a->n, .chunk = CHUNK, .min_chunks_per_part = 32, .arrays = a};
  part_result r;
  const int status = drive(&p, &r, ms);
  if (status == GQ_SUCCESS)
    *out = r.reduce;
  return status;
}

int gq_cpu_mc_batch(const gq_mc_batch *b, gq_mc_moments *out, gq_grid_info *info)
{
  /* a chunk of samples is already worth a thread */
  const problem p = {.source = SOURCE_PHILOX, .map = MAP_INTEGRAND,
                     .acc = b->deterministic ? ACC_MOMENTS_EXACT : ACC_MOMENTS, .n = b->count, .chunk = MC_CHUNK,
                     .min_chunks_per_part = 1, .mc = b};
  part_result r;
  double ms;
  const int status = drive(&p, &r, &ms);
  if (status != GQ_SUCCESS)
    return status;
  if (!b->deterministic) /* else in b->exact */
    *out = r.moments;
  no_jit(info, ms);
  return GQ_SUCCESS;
}
