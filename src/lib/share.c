/* share.c — a context's share of the work of a group of processes
 * (gpuquad.h, gq_context_set_share): which terms this rank sums, and the
 * caller's combine step at every partial result.
 *
 * Each function here is the backend dispatch of one partial sum (rules.c,
 * product.c and mc.c call them instead of a backend), cut to the rank's
 * terms.  The cut is a partition of the terms the whole computes — the same
 * points, weights and samples, by global index — so only the order of the
 * additions differs, and that is the merges': the partials are merged in
 * rank order by the library's own merge functions, never added as rounded
 * doubles.  Every rank reaches every combine, failed or not, so a failure on
 * one rank reaches all of them instead of leaving them waiting.
 *
 * Under --deterministic the partials are exact (exact_sum.h: the backends
 * sum the rank's terms exactly and leave the words), merged exactly and
 * rounded once here, after the combine: the result is the rounding of the
 * exact sum of the whole's terms, so it has the same bits for every rank
 * count, as for every thread count and launch shape.  The compensated
 * partials of the fast path agree with one process to an ulp or two. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact_sum.h"
#include "internal.h"
#include "packed.h"
#include "superacc_host.h"

int gq_context_set_share(gq_context *ctx, const gq_share *share)
{
  if (!ctx)
    return gq_null_arg(__func__, "ctx");
  if (!share || share->ranks == 1) {
    memset(&ctx->share, 0, sizeof ctx->share);
    return GQ_SUCCESS;
  }
  if (share->ranks < 1 || share->rank < 0 || share->rank >= share->ranks)
    return gq_fail(GQ_EINVAL, "gq_context_set_share: rank %d of %d", share->rank, share->ranks);
  if (!share->combine)
    return gq_null_arg(__func__, "share->combine");
  ctx->share = *share;
  return GQ_SUCCESS;
}

void gq_share_range(uint64_t n, uint64_t unit, int rank, int ranks, uint64_t *first, uint64_t *count)
{
  if (unit < 1)
    unit = 1;
  if (ranks < 1 || rank < 0 || rank >= ranks) {
    *first = *count = 0;
    return;
  }
  const uint64_t units = n / unit + (n % unit != 0), k = (uint64_t)ranks, r = (uint64_t)rank;
  const uint64_t base = units / k, extra = units % k;
  const uint64_t u0 = r * base + (r < extra ? r : extra), uc = base + (r < extra);
  const uint64_t lo = u0 * unit, hi = (u0 + uc) * unit;
  *first = lo < n ? lo : n;
  *count = (hi < n ? hi : n) - *first;
}

static int shared(const gq_context *ctx) { return ctx->share.ranks > 1; }

/* The group's status, with the partial merged over every rank. */
static int combine(gq_context *ctx, void *partial, size_t bytes, gq_merge_fn *merge, int status)
{
  const int group = ctx->share.combine(partial, bytes, merge, status, ctx->share.user);
  if (group != GQ_SUCCESS && status == GQ_SUCCESS)
    return gq_fail(group, "another rank failed (%s)", gq_strerror(group));
  return group;
}

int gq_shared_combine(gq_context *ctx, void *partial, size_t bytes, gq_merge_fn *merge, int status)
{
  return combine(ctx, partial, bytes, merge, status);
}

static void merge_nothing(void *acc, const void *other)
{
  (void)acc;
  (void)other;
}

int gq_shared_agree(gq_context *ctx, int status)
{
  static char none;
  return combine(ctx, &none, 0, merge_nothing, status);
}

/* ---- exact partials (--deterministic) ---------------------------------- */
static void merge_exact_sums(void *acc, const void *other, size_t count)
{
  gq_exact_sum *a = acc;
  const gq_exact_sum *b = other;
  for (size_t k = 0; k < count; k++)
    gq_exact_sum_merge(&a[k], &b[k]);
}
static void merge_exact_keys(void *acc, const void *other) { merge_exact_sums(acc, other, GQ_GRID_KEYS); }
static void merge_exact_pair(void *acc, const void *other) { merge_exact_sums(acc, other, 2); }

/* The exact sum rounded once, to a double-double, or where a term was not
 * finite (nonfinite: the non-finite sum, or Monte Carlo's square of it)
 * that value, as the compensated sums would give it. */
static gq_csum exact_round(const gq_superacc *acc, double nonfinite)
{
  gq_csum out = {nonfinite, 0.0};
  if (nonfinite == 0.0)
    gq_superacc_to_dd(acc, 0, &out.s, &out.c);
  return out;
}

/* The exact sums a deterministic problem's backend fills (zeroed: a rank
 * with no terms merges zeros), or NULL on the fast path.  On the caller's
 * stack (about 1.1 KiB each): nothing to fail between a rank's start and
 * its combine. */
static gq_exact_sum *exact_sums(int deterministic, gq_exact_sum *e, int count)
{
  if (!deterministic)
    return NULL;
  for (int k = 0; k < count; k++)
    gq_exact_sum_zero(&e[k]);
  return e;
}

/* ---- 1-D grids: the interior indices, by contiguous ranges ------------- */
static void merge_keyed(void *acc, const void *other)
{
  gq_csum *a = acc;
  const gq_csum *b = other;
  for (int k = 0; k < GQ_GRID_KEYS; k++)
    gq_csum_merge(&a[k], b[k]);
}

int gq_shared_grid_sum(gq_context *ctx, const gq_grid_sum *p, gq_csum sums[GQ_GRID_KEYS], gq_grid_info *info)
{
  if (gq_packed_take(ctx, p, sums, info)) /* computed with its batch's (packed.h) */
    return GQ_SUCCESS;
  gq_grid_sum part = *p;
  uint64_t first = 0, count = p->last - p->first + 1;
  if (shared(ctx))
    gq_share_range(count, 1, ctx->share.rank, ctx->share.ranks, &first, &count);
  for (int k = 0; k < GQ_GRID_KEYS; k++)
    sums[k] = gq_csum_zero();
  gq_exact_sum exact[GQ_GRID_KEYS];
  part.exact = exact_sums(p->deterministic, exact, GQ_GRID_KEYS);
  int status = GQ_SUCCESS;
  if (count > 0) {
    part.first = p->first + first; /* the classes are global indices mod GQ_GRID_KEYS */
    part.last = part.first + count - 1;
    status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_grid_sum(ctx->cuda, &part, sums, info)
                                             : gq_cpu_grid_sum(ctx, &part, sums, info);
  }
  if (!p->deterministic)
    return shared(ctx) ? combine(ctx, sums, GQ_GRID_KEYS * sizeof *sums, merge_keyed, status) : status;
  if (shared(ctx))
    status = combine(ctx, part.exact, GQ_GRID_KEYS * sizeof *part.exact, merge_exact_keys, status);
  for (int k = 0; k < GQ_GRID_KEYS; k++)
    sums[k] = exact_round(&exact[k].acc, exact[k].nonfinite);
  return status;
}

/* A count of points where f is not finite, and the first one's index. */
typedef struct {
  uint64_t count, first;
} nonfinite;

static void merge_nonfinite(void *acc, const void *other)
{
  nonfinite *a = acc;
  const nonfinite *b = other;
  if (b->count > 0 && (a->count == 0 || b->first < a->first))
    a->first = b->first;
  a->count += b->count;
}

int gq_shared_grid_nonfinite(gq_context *ctx, const gq_grid_sum *p, uint64_t *count, uint64_t *first)
{
  gq_grid_sum part = *p;
  uint64_t lo = 0, n = p->last - p->first + 1;
  if (shared(ctx))
    gq_share_range(n, 1, ctx->share.rank, ctx->share.ranks, &lo, &n);
  nonfinite mine = {0, 0};
  int status = GQ_SUCCESS;
  if (n > 0) {
    part.first = p->first + lo;
    part.last = part.first + n - 1;
    status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_grid_nonfinite(ctx->cuda, &part, &mine.count, &mine.first)
                                             : gq_cpu_grid_nonfinite(ctx, &part, &mine.count, &mine.first);
  }
  if (shared(ctx))
    status = combine(ctx, &mine, sizeof mine, merge_nonfinite, status);
  *count = mine.count;
  *first = mine.first;
  return status;
}

/* ---- product grids: ranges of the outermost axis ----------------------- */
/* The rank's part of p: the last axis's points j in [j0, j0 + jc) (j = k +
 * K p: node k of panel p), a plain table slice, or on a Gauss-Legendre axis
 * whole panels expanded into a table of the points the backends compute,
 * fma(p, H, node) in double.  *offset: the flat index of its first point;
 * *table: an expanded table to free.  Where a rank's expansion would pass
 * GQ_SHARE_MAX_TABLE points, rank 0 takes the whole grid. */
static int product_part(const gq_context *ctx, const gq_product_sum *p, gq_product_sum *part, uint64_t *offset,
                        double **table)
{
  *part = *p;
  *offset = 0;
  *table = NULL;
  const int d = p->dims - 1;
  const uint64_t K = p->K[d], m = K * p->P[d], stride = p->n / m;
  const int panels = (p->panels >> d) & 1u;
  uint64_t j0, jc;
  gq_share_range(m, panels ? K : 1, ctx->share.rank, ctx->share.ranks, &j0, &jc);
  if (panels && m / (uint64_t)ctx->share.ranks + K > GQ_SHARE_MAX_TABLE) {
    j0 = 0;
    jc = ctx->share.rank == 0 ? m : 0;
    if (jc == m)
      return GQ_SUCCESS;
  }
  part->n = stride * jc;
  *offset = stride * j0;
  if (jc == 0)
    return GQ_SUCCESS;
  if (!panels) {
    part->table[d] = p->table[d] + 4 * j0;
    part->K[d] = (uint32_t)jc;
    return GQ_SUCCESS;
  }
  double *t = malloc(4 * jc * sizeof(double));
  if (!t)
    return gq_fail(GQ_ENOMEM, "cannot allocate this rank's points of axis %d", d + 1);
  for (uint64_t j = 0; j < jc; j++) {
    const uint64_t k = (j0 + j) % K, q = (j0 + j) / K;
    const double *node = p->table[d] + 4 * k;
    double *e = t + 4 * j;
    e[0] = node[0];
    e[1] = node[1];
    e[2] = fma((double)q, p->H[d], node[2]);
    e[3] = 0.0;
  }
  part->table[d] = t;
  part->K[d] = (uint32_t)jc;
  part->P[d] = 1;
  part->H[d] = 0.0;
  part->panels &= ~(1u << d);
  *table = t;
  return GQ_SUCCESS;
}

static void merge_pair(void *acc, const void *other)
{
  gq_csum *a = acc;
  const gq_csum *b = other;
  gq_csum_merge(&a[0], b[0]);
  gq_csum_merge(&a[1], b[1]);
}

static int product_sum(gq_context *ctx, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  return ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_product_sum(ctx->cuda, p, sums, info)
                                         : gq_cpu_product_sum(ctx, p, sums, info);
}

int gq_shared_product_sum(gq_context *ctx, const gq_product_sum *p, gq_csum sums[2], gq_grid_info *info)
{
  if (!shared(ctx) && !p->deterministic)
    return product_sum(ctx, p, sums, info);
  gq_product_sum part = *p;
  uint64_t offset;
  double *table = NULL;
  sums[0] = sums[1] = gq_csum_zero();
  gq_exact_sum pair[2], *exact = exact_sums(p->deterministic, pair, 2);
  int status = shared(ctx) ? product_part(ctx, p, &part, &offset, &table) : GQ_SUCCESS;
  part.exact = exact;
  if (status == GQ_SUCCESS && part.n > 0)
    status = product_sum(ctx, &part, sums, info);
  free(table);
  if (!exact)
    return combine(ctx, sums, 2 * sizeof *sums, merge_pair, status);
  if (shared(ctx))
    status = combine(ctx, exact, 2 * sizeof *exact, merge_exact_pair, status);
  sums[0] = exact_round(&exact[0].acc, exact[0].nonfinite);
  sums[1] = exact_round(&exact[1].acc, exact[1].nonfinite);
  return status;
}

int gq_shared_product_nonfinite(gq_context *ctx, const gq_product_sum *p, uint64_t *count, uint64_t *first)
{
  if (!shared(ctx))
    return ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_product_nonfinite(ctx->cuda, p, count, first)
                                           : gq_cpu_product_nonfinite(ctx, p, count, first);
  gq_product_sum part;
  uint64_t offset;
  double *table;
  nonfinite mine = {0, 0};
  int status = product_part(ctx, p, &part, &offset, &table);
  if (status == GQ_SUCCESS && part.n > 0)
    status = ctx->backend == GQ_BACKEND_CUDA
                 ? gq_cuda_product_nonfinite(ctx->cuda, &part, &mine.count, &mine.first)
                 : gq_cpu_product_nonfinite(ctx, &part, &mine.count, &mine.first);
  free(table);
  mine.first += offset; /* the part's flat index, the whole's */
  status = combine(ctx, &mine, sizeof mine, merge_nonfinite, status);
  *count = mine.count;
  *first = mine.first;
  return status;
}

/* ---- Monte Carlo: each batch's samples, by whole Philox quads (Sobol:
 * runs of four points, each rank's Gray-code walk starting at its first
 * index) ------------------------------------------------------------------ */
static void merge_moments(void *acc, const void *other)
{
  gq_mc_moments_merge(acc, *(const gq_mc_moments *)other);
}

int gq_shared_mc_batch(gq_context *ctx, const gq_mc_batch *p, gq_mc_moments *out, gq_grid_info *info)
{
  gq_mc_batch part = *p;
  uint64_t first = 0, count = p->count;
  if (shared(ctx))
    gq_share_range(p->count, 4, ctx->share.rank, ctx->share.ranks, &first, &count);
  *out = gq_mc_moments_zero();
  gq_exact_sum moments[2];
  part.exact = exact_sums(p->deterministic, moments, 2);
  int status = GQ_SUCCESS;
  if (count > 0) {
    part.first = p->first + first; /* a multiple of 4: the counters are the whole's */
    part.count = count;
    status = ctx->backend == GQ_BACKEND_CUDA ? gq_cuda_mc_batch(ctx->cuda, &part, out, info)
                                             : gq_cpu_mc_batch(&part, out, info);
  }
  if (!p->deterministic)
    return shared(ctx) ? combine(ctx, out, sizeof *out, merge_moments, status) : status;
  if (shared(ctx))
    status = combine(ctx, part.exact, 2 * sizeof *part.exact, merge_exact_pair, status);
  /* a non-finite d makes s1 the sum of those and s2 its square */
  const double nonfinite = moments[0].nonfinite;
  out->s1 = exact_round(&moments[0].acc, nonfinite);
  out->s2 = exact_round(&moments[1].acc, nonfinite * nonfinite);
  return status;
}
