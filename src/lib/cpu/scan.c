/* cpu/scan.c — the CPU backend of the scans: two OpenMP passes over fixed
 * chunks of GQ_CPU_SCAN_CHUNK elements.  Pass 1 sums each chunk (a
 * compensated pair, or an integer); the chunks' offsets are then combined in
 * order on one thread, from the carry; pass 2 scans each chunk from its
 * offset.  The chunks do not depend on the thread count, so neither does
 * any bit of the result.  Doubles and floats run as compensated pairs of
 * doubles (TwoSum per element, compensated.h), as on the GPU.
 *
 * The cumulative trapezoid is the same two passes over the grid's values
 * g_i = f(x_i) (evaluated twice: once per pass, so that nothing of size n is
 * held): F_i = h (S_i - g_0/2 - g_i/2), S_i the inclusive prefix. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../scan_internal.h"

#define GQ_CPU_SCAN_CHUNK ((size_t)1 << 16)

typedef struct {
  gq_csum f;  /* floating types */
  uint64_t i; /* GQ_SCAN_I64 (unsigned: wraps modulo 2^64) */
} part;

static void part_add(part *acc, const gq_scan_call *p, size_t k)
{
  switch (p->type) {
  case GQ_SCAN_F64: gq_csum_add(&acc->f, ((const double *)p->x)[k]); break;
  case GQ_SCAN_F32: gq_csum_add(&acc->f, (double)((const float *)p->x)[k]); break;
  default: acc->i += (uint64_t)((const int64_t *)p->x)[k]; break;
  }
}

static void part_store(const part *acc, const gq_scan_call *p, size_t k)
{
  switch (p->type) {
  case GQ_SCAN_F64: ((double *)p->y)[k] = gq_csum_value(acc->f); break;
  case GQ_SCAN_F32: ((float *)p->y)[k] = (float)gq_csum_value(acc->f); break;
  default: ((int64_t *)p->y)[k] = (int64_t)acc->i; break;
  }
}

static void part_merge(part *acc, const part *later)
{
  gq_csum_merge(&acc->f, later->f);
  acc->i += later->i;
}

/* Elements [from, to) from *acc; x is read before y is written at each k,
 * so y may be x. */
static void scan_range(const gq_scan_call *p, part acc, size_t from, size_t to)
{
  for (size_t k = from; k < to; k++) {
    if (p->exclusive) {
      part before = acc;
      part_add(&acc, p, k);
      part_store(&before, p, k);
    } else {
      part_add(&acc, p, k);
      part_store(&acc, p, k);
    }
  }
}

int gq_cpu_scan(const gq_scan_call *p, gq_scan_carry *carry)
{
  const size_t chunks = (p->n + GQ_CPU_SCAN_CHUNK - 1) / GQ_CPU_SCAN_CHUNK;
  part *offsets = malloc(chunks * sizeof *offsets);
  if (!offsets)
    return gq_fail(GQ_ENOMEM, "gq_scan: cannot allocate %zu chunk totals", chunks);
  const part zero = {{0.0, 0.0}, 0};
#pragma omp parallel for schedule(static) num_threads(gq_cpu_threads())
  for (size_t c = 0; c < chunks; c++) {
    const size_t to = (c + 1) * GQ_CPU_SCAN_CHUNK < p->n ? (c + 1) * GQ_CPU_SCAN_CHUNK : p->n;
    part acc = zero;
    for (size_t k = c * GQ_CPU_SCAN_CHUNK; k < to; k++)
      part_add(&acc, p, k);
    offsets[c] = acc;
  }
  part running = {{carry->sum, carry->err}, (uint64_t)carry->isum};
  for (size_t c = 0; c < chunks; c++) {
    const part total = offsets[c];
    offsets[c] = running;
    part_merge(&running, &total);
  }
#pragma omp parallel for schedule(static) num_threads(gq_cpu_threads())
  for (size_t c = 0; c < chunks; c++) {
    const size_t to = (c + 1) * GQ_CPU_SCAN_CHUNK < p->n ? (c + 1) * GQ_CPU_SCAN_CHUNK : p->n;
    scan_range(p, offsets[c], c * GQ_CPU_SCAN_CHUNK, to);
  }
  free(offsets);
  carry->sum = running.f.s;
  carry->err = running.f.c;
  carry->isum = (int64_t)running.i;
  return GQ_SUCCESS;
}

/* g_i as the plain rule evaluates it: x_i = fma(i, h, a), x_n = b. */
static double grid_value(const gq_cumulative_call *p, uint64_t i)
{
  const double x = i == p->n ? p->b : fma((double)i, p->h, p->a);
  return gq_integrand_eval_in(p->f, GQ_PRECISION_DOUBLE, x);
}

/* h (S - g0/2 - gi/2) from the pair S: the halves are exact, the product
 * carries its rounding error (fma), one rounding at the end. */
static double cumulative_value(gq_csum s, double g0, double gi, double h)
{
  gq_csum_add(&s, -0.5 * g0);
  gq_csum_add(&s, -0.5 * gi);
  const double p = s.s * h;
  return p + (fma(s.s, h, -p) + s.c * h);
}

int gq_cpu_cumulative(const gq_cumulative_call *p, gq_grid_info *info)
{
  const double t0 = gq_wall_ms();
  const uint64_t points = p->n + 1;
  const uint64_t chunks = (points + GQ_CPU_SCAN_CHUNK - 1) / GQ_CPU_SCAN_CHUNK;
  gq_csum *offsets = malloc(chunks * sizeof *offsets);
  if (!offsets)
    return gq_fail(GQ_ENOMEM, "cumulative integral: cannot allocate %llu chunk totals", (unsigned long long)chunks);
  const double g0 = grid_value(p, 0);
#pragma omp parallel for schedule(static) num_threads(gq_cpu_threads())
  for (uint64_t c = 0; c < chunks; c++) {
    const uint64_t to = (c + 1) * GQ_CPU_SCAN_CHUNK < points ? (c + 1) * GQ_CPU_SCAN_CHUNK : points;
    gq_csum acc = gq_csum_zero();
    for (uint64_t i = c * GQ_CPU_SCAN_CHUNK; i < to; i++)
      gq_csum_add(&acc, grid_value(p, i));
    offsets[c] = acc;
  }
  gq_csum running = gq_csum_zero();
  for (uint64_t c = 0; c < chunks; c++) {
    const gq_csum total = offsets[c];
    offsets[c] = running;
    gq_csum_merge(&running, total);
  }
#pragma omp parallel for schedule(static) num_threads(gq_cpu_threads())
  for (uint64_t c = 0; c < chunks; c++) {
    const uint64_t to = (c + 1) * GQ_CPU_SCAN_CHUNK < points ? (c + 1) * GQ_CPU_SCAN_CHUNK : points;
    gq_csum acc = offsets[c];
    for (uint64_t i = c * GQ_CPU_SCAN_CHUNK; i < to; i++) {
      const double g = grid_value(p, i);
      gq_csum_add(&acc, g);
      if (i % p->every == 0)
        p->out[i / p->every] = i == 0 ? 0.0 : cumulative_value(acc, g0, g, p->h);
      else if (i == p->n)
        p->out[i / p->every + 1] = cumulative_value(acc, g0, g, p->h);
    }
  }
  free(offsets);
  info->ms = gq_wall_ms() - t0;
  return GQ_SUCCESS;
}
