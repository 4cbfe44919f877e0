/* cumulative_share.c — a cumulative integral divided among the ranks of a
 * share (gpuquad.h, gq_cumulative_share and gq_context_set_share).
 *
 * Rank r takes a contiguous range of the grid's points, whole chunks of the
 * CPU's pass and whole steps of `every`, and writes the values at its points.
 * Each value needs the sum of every term before it, so a rank runs two
 * passes: its terms' sums, combined in rank order so that every rank holds
 * them all, then its values from the prefix of the sums before its range.
 *   CPU: the sums are the CPU pass's chunk totals, and a rank merges every
 *     chunk total before its own in chunk order, as one process does: the
 *     values are one process's bit for bit for any K.
 *   GPU: a rank's sum is its part's total from the look-back scan, and the
 *     prefix the ranks' totals merged in rank order (compensated pairs): the
 *     values are within the scan's bound of one process's. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scan_internal.h"

void gq_cumulative_share(uint64_t n, uint64_t every, int rank, int ranks, uint64_t *first_value, uint64_t *values,
                         uint64_t *first_point, uint64_t *points)
{
  *first_value = *values = *first_point = *points = 0;
  if (every == 0 || ranks < 1 || rank < 0 || rank >= ranks)
    return;
  /* the unit: a multiple of every and of the CPU's chunk (their lcm; past
   * 2^64 the whole is one unit, rank 0's) */
  uint64_t g = every, c = GQ_CPU_SCAN_CHUNK;
  while (c) {
    const uint64_t t = g % c;
    g = c;
    c = t;
  }
  const uint64_t per = every / g;
  const uint64_t unit = per > UINT64_MAX / GQ_CPU_SCAN_CHUNK ? UINT64_MAX : per * GQ_CPU_SCAN_CHUNK;
  gq_share_range(n + 1, unit, rank, ranks, first_point, points);
  const uint64_t count = gq_cumulative_count(n, every);
  *first_value = *first_point / every;
  if (*points == 0) {
    *first_value = count;
    return;
  }
  const uint64_t end = *first_point + *points; /* one past the rank's last point */
  *values = (*points + every - 1) / every + (end == n + 1 && n % every != 0);
}

/* The ranks' sums: this header, then sums[count], of which it holds
 * [first, first + held). */
typedef struct {
  uint64_t count, first, held;
} sums_layout;

static gq_csum *sums_of(sums_layout *l) { return (gq_csum *)(l + 1); }

static void merge_sums(void *acc, const void *other)
{
  sums_layout *a = acc, *b = (sums_layout *)other; /* b is only read */
  memcpy(sums_of(a) + b->first, sums_of(b) + b->first, b->held * sizeof(gq_csum));
  if (b->held == 0)
    return;
  if (a->held == 0)
    a->first = b->first;
  a->held = b->first + b->held - a->first;
}

/* F(b), from the rank that holds it. */
typedef struct {
  int have;
  double value;
} last_value;

static void merge_last(void *acc, const void *other)
{
  const last_value *b = other;
  if (b->have)
    *(last_value *)acc = *b;
}

static int cuda_pass(gq_context *ctx, const gq_cumulative_call *p, gq_grid_info *info)
{
#ifdef HAVE_CUDA
  return gq_cuda_cumulative(ctx->cuda, p, info);
#else
  (void)ctx; (void)p; (void)info;
  return gq_fail(GQ_ENODEV, "gq_cumulative_integral: built without CUDA");
#endif
}

int gq_shared_cumulative(gq_context *ctx, gq_cumulative_call *p, gq_grid_info *info)
{
  const int cpu = ctx->backend == GQ_BACKEND_CPU;
  const double t0 = gq_wall_ms();
  const uint64_t count = cpu ? (p->n + GQ_CPU_SCAN_CHUNK) / GQ_CPU_SCAN_CHUNK : (uint64_t)ctx->share.ranks;
  const size_t bytes = sizeof(sums_layout) + count * sizeof(gq_csum);
  sums_layout *l = calloc(1, bytes);
  int status = l ? GQ_SUCCESS : gq_fail(GQ_ENOMEM, "cumulative integral: no memory for %zu bytes of sums", bytes);
  status = gq_shared_agree(ctx, status); /* every rank has its partial? */
  if (status != GQ_SUCCESS) {
    free(l);
    return status;
  }
  l->count = count;
  const uint64_t mine = cpu ? p->first / GQ_CPU_SCAN_CHUNK : (uint64_t)ctx->share.rank; /* my first sum */
  const uint64_t held = p->points == 0 ? 0 : cpu ? (p->first + p->points - 1) / GQ_CPU_SCAN_CHUNK + 1 - mine : 1;
  gq_csum carry = gq_csum_zero();
  if (held > 0) {
    l->first = mine;
    l->held = held;
    if (cpu) {
      status = gq_cpu_cumulative_totals(p, sums_of(l) + mine);
    } else {
      p->carry = NULL;
      p->total = sums_of(l) + mine;
      status = cuda_pass(ctx, p, info); /* the values from zero, rewritten below */
    }
  }
  if (status != GQ_SUCCESS)
    l->held = 0;
  status = gq_shared_combine(ctx, l, bytes, merge_sums, status);
  if (status == GQ_SUCCESS && held > 0) {
    for (uint64_t k = 0; k < mine; k++) /* every sum before mine, in order */
      gq_csum_merge(&carry, sums_of(l)[k]);
    if (cpu) {
      gq_csum *offsets = sums_of(l) + mine; /* in place: each chunk's prefix */
      for (uint64_t k = 0; k < held; k++) {
        const gq_csum total = offsets[k];
        offsets[k] = carry;
        gq_csum_merge(&carry, total);
      }
      status = gq_cpu_cumulative_values(p, offsets);
    } else {
      p->carry = &carry;
      p->total = NULL;
      status = cuda_pass(ctx, p, info);
    }
  }
  free(l);
  if (cpu) /* the CPU's time in its two passes, the combine's wait included */
    info->ms = gq_wall_ms() - t0;
  /* F(b) not finite fails every rank, as it fails one process */
  last_value fb = {0, 0.0};
  if (status == GQ_SUCCESS && held > 0 && p->first + p->points == p->n + 1) {
    const uint64_t values = gq_cumulative_count(p->n, p->every) - p->first / p->every;
    status = gq_copy_from(ctx, &fb.value, p->out + (values - 1), sizeof fb.value);
    fb.have = status == GQ_SUCCESS;
  }
  status = gq_shared_combine(ctx, &fb, sizeof fb, merge_last, status);
  if (status == GQ_SUCCESS && !isfinite(fb.value))
    return gq_fail(GQ_EDOM, "the cumulative integral is not finite (F(b) = %g): f is not finite on the grid", fb.value);
  return status;
}
