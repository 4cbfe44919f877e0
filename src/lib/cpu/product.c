/* product.c — product grids on the CPU (OpenMP): the same points, weights
 * and two compensated sums as the GPU's product source
 * (kernels/engine/product_source.cuh), for the expression of any integrand
 * (product.c in src/lib makes a built-in one).
 *
 * The flat index range is cut into chunks of CHUNK points and the chunks
 * into at most MAX_PARTS parts, a function of the problem only; parts run in
 * any order on any number of threads and are merged in index order, so the
 * result does not depend on the thread count.  A chunk's points come from
 * the digits of its first index, advanced by one with carries; their
 * coordinates go to D arrays that the bytecode evaluator reads as a block.
 * Under --deterministic the two sums are exact (exact_sum.h): the exact
 * products of the same weights and values the GPU's PairExact adds. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "../exact_sum.h"
#include "../expr/expr.h"
#include "../internal.h"
#include "part_progress.h"

enum {
  CHUNK = 1024,    /* points per block evaluation                      */
  MAX_PARTS = 256, /* partials per run                                 */
  MIN_CHUNKS = 16  /* chunks per part at least: less is not worth it   */
};

typedef struct {
  gq_csum hi, lo;
  uint64_t nonfinite, first; /* first: the smallest such index, or n */
  gq_exact_sum exact[2];     /* deterministic: hi and lo exactly */
} part_result;

typedef struct {
  double *x[GQ_MAX_DIM];
  double *wh, *wl, *y, *scratch;
  float *yf, *scratch_f;
} workspace;

static void workspace_close(workspace *w)
{
  for (int d = 0; d < GQ_MAX_DIM; d++)
    free(w->x[d]);
  free(w->wh);
  free(w->wl);
  free(w->y);
  free(w->scratch);
  free(w->yf);
  free(w->scratch_f);
}

static int workspace_open(workspace *w, const gq_product_sum *p)
{
  *w = (workspace){0};
  int ok = 1;
  for (int d = 0; d < p->dims; d++)
    ok &= (w->x[d] = malloc(CHUNK * sizeof(double))) != NULL;
  const size_t scratch = gq_expr_block_scratch(p->f->g);
  ok &= (w->wh = malloc(CHUNK * sizeof(double))) != NULL;
  ok &= (w->wl = malloc(CHUNK * sizeof(double))) != NULL;
  if (p->precision == GQ_PRECISION_FLOAT) {
    ok &= (w->yf = malloc(CHUNK * sizeof(float))) != NULL;
    ok &= (w->scratch_f = malloc((scratch ? scratch : 1) * sizeof(float))) != NULL;
  } else {
    ok &= (w->y = malloc(CHUNK * sizeof(double))) != NULL;
    ok &= (w->scratch = malloc((scratch ? scratch : 1) * sizeof(double))) != NULL;
  }
  if (!ok)
    workspace_close(w);
  return ok ? GQ_SUCCESS : GQ_ENOMEM;
}

/* The digits' radices, fastest first (k_1, (p_1,) k_2, ...): the GPU's. */
static int radices(const gq_product_sum *p, uint32_t *radix)
{
  int g = 0;
  for (int d = 0; d < p->dims; d++) {
    radix[g++] = p->K[d];
    if (p->panels & (1u << d))
      radix[g++] = p->P[d];
  }
  return g;
}

/* Points [i, i + count) into the workspace: coordinates and both weights,
 * exactly as product_source.cuh computes them. */
static void points(const gq_product_sum *p, workspace *w, uint64_t i, int count)
{
  uint32_t radix[2 * GQ_MAX_DIM], digit[2 * GQ_MAX_DIM];
  const int G = radices(p, radix);
  for (int g = 0; g < G; g++) {
    digit[g] = (uint32_t)(i % radix[g]);
    i /= radix[g];
  }
  for (int j = 0; j < count; j++) {
    double wh = 1.0, wl = 1.0, e0_wh = 0.0, e0_wl = 0.0;
    int g = 0;
    for (int d = 0; d < p->dims; d++) {
      const double *e = p->table[d] + 4 * (size_t)digit[g++];
      double x = e[2];
      if (p->panels & (1u << d))
        x = fma((double)digit[g++], p->H[d], x);
      w->x[d][j] = p->precision == GQ_PRECISION_FLOAT ? (double)(float)x : x;
      if (d == 0) {
        e0_wh = e[0];
        e0_wl = e[1];
      } else {
        wh *= e[0];
        wl *= e[1];
      }
    }
    /* the other axes' product first, then axis 1's weight: the GPU's order */
    w->wh[j] = e0_wh * wh;
    w->wl[j] = e0_wl * wl;
    for (int g2 = 0; g2 < G && ++digit[g2] == radix[g2]; g2++) /* the next point */
      digit[g2] = 0;
  }
}

/* PairExact's add: both products exact; a non-finite y (at a real point,
 * weight not 0) to both sums' non-finite parts. */
static void exact_add_weighted(gq_exact_sum pair[2], double wh, double wl, double y)
{
  if (!(y - y == 0.0)) {
    if (wh != 0.0) {
      pair[0].nonfinite += y;
      pair[1].nonfinite += y;
    }
    return;
  }
  gq_superacc_add_product(&pair[0].acc, wh, y, 0, 0);
  gq_superacc_add_product(&pair[1].acc, wl, y, 0, 0);
}

static void run_part(const gq_product_sum *p, workspace *w, uint64_t lo, uint64_t hi, int count_only,
                     part_result *r)
{
  r->hi = r->lo = gq_csum_zero();
  r->nonfinite = 0;
  r->first = p->n;
  gq_exact_sum_zero(&r->exact[0]);
  gq_exact_sum_zero(&r->exact[1]);
  for (uint64_t i = lo; i < hi; i += CHUNK) {
    const int count = (int)(hi - i < CHUNK ? hi - i : CHUNK);
    points(p, w, i, count);
    const double *const *vars = (const double *const *)w->x;
    if (p->precision == GQ_PRECISION_FLOAT)
      gq_expr_eval_block_f(p->f->g, (size_t)count, vars, w->yf, w->scratch_f);
    else
      gq_expr_eval_block(p->f->g, (size_t)count, vars, w->y, w->scratch);
    for (int j = 0; j < count; j++) {
      const double y = p->precision == GQ_PRECISION_FLOAT ? (double)w->yf[j] : w->y[j];
      if (count_only) { /* a padding point (weight 0) copies a real one, which counts itself */
        if (w->wh[j] != 0.0 && !(y - y == 0.0) && r->nonfinite++ == 0)
          r->first = i + (uint64_t)j;
        continue;
      }
      if (p->deterministic) {
        exact_add_weighted(r->exact, w->wh[j], w->wl[j], y);
        continue;
      }
      gq_csum_add(&r->hi, w->wh[j] * y);
      gq_csum_add(&r->lo, w->wl[j] * y);
    }
  }
}

static int drive(const gq_context *ctx, const gq_product_sum *p, int count_only, part_result *total, double *ms)
{
  const uint64_t nchunks = (p->n + CHUNK - 1) / CHUNK;
  const uint64_t want = (nchunks + MIN_CHUNKS - 1) / MIN_CHUNKS;
  const uint64_t nparts = want < MAX_PARTS ? want : MAX_PARTS;
  const int threads = gq_cpu_threads();
  const int team = (uint64_t)threads < nparts ? threads : (int)nparts;
  part_result *part = malloc((size_t)(nparts ? nparts : 1) * sizeof *part);
  if (!part)
    return gq_fail(GQ_ENOMEM, "cannot allocate %llu partial results", (unsigned long long)nparts);
  const double t0 = gq_wall_ms();
  int failed = 0;
  uint64_t done = 0; /* points of the finished parts (part_progress.h) */
#pragma omp parallel num_threads(team > 1 ? team : 1) if (team > 1) reduction(| : failed)
  {
    workspace w;
    failed = workspace_open(&w, p) != GQ_SUCCESS;
#pragma omp for schedule(dynamic)
    for (uint64_t s = 0; s < nparts; s++) {
      if (failed)
        continue;
      const uint64_t lo = s * nchunks / nparts * CHUNK, end = (s + 1) * nchunks / nparts * CHUNK;
      const uint64_t hi = end < p->n ? end : p->n;
      run_part(p, &w, lo, hi, count_only, &part[s]);
      gq_part_progress(ctx, &done, hi - lo, p->n);
    }
    if (!failed)
      workspace_close(&w);
  }
  if (failed) {
    free(part);
    return gq_fail(GQ_ENOMEM, "cannot allocate the CPU backend's chunk buffers");
  }
  gq_progress(ctx, p->n, p->n, "points");
  total->hi = total->lo = gq_csum_zero();
  total->nonfinite = 0;
  total->first = p->n;
  gq_exact_sum_zero(&total->exact[0]);
  gq_exact_sum_zero(&total->exact[1]);
  for (uint64_t s = 0; s < nparts; s++) {
    gq_csum_merge(&total->hi, part[s].hi);
    gq_csum_merge(&total->lo, part[s].lo);
    gq_exact_sum_merge(&total->exact[0], &part[s].exact[0]);
    gq_exact_sum_merge(&total->exact[1], &part[s].exact[1]);
    total->nonfinite += part[s].nonfinite;
    if (part[s].first < total->first)
      total->first = part[s].first;
  }
  free(part);
  if (ms)
    *ms = gq_wall_ms() - t0;
  return GQ_SUCCESS;
}

int gq_cpu_product_sum(const gq_context *ctx, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  if (!p->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to evaluate");
  part_result r;
  const int status = drive(ctx, p, 0, &r, &info->ms);
  info->compile_ms = 0.0;
  info->jit = GQ_JIT_NONE;
  sums[0] = r.hi;
  sums[1] = r.lo;
  if (p->deterministic && status == GQ_SUCCESS) {
    p->exact[0] = r.exact[0];
    p->exact[1] = r.exact[1];
  }
  return status;
}

int gq_cpu_product_nonfinite(const gq_context *ctx, const gq_product_sum *p, uint64_t *count, uint64_t *first)
{
  if (!p->f->g)
    return gq_fail(GQ_EINVAL, "the integrand has no expression to evaluate");
  part_result r;
  const int status = drive(ctx, p, 1, &r, NULL);
  *count = r.nonfinite;
  *first = r.first;
  return status;
}
