/* cpu/scan.c — the CPU backend of the scans: two OpenMP passes over fixed
 * chunks of GQ_CPU_SCAN_CHUNK elements.  Pass 1 sums each chunk (a
 * compensated pair, or an integer); the chunks' offsets are then combined in
 * order on one thread, from the carry; pass 2 scans each chunk from its
 * offset.  The chunks do not depend on the thread count, so neither does
 * any bit of the result.  Doubles and floats run as compensated pairs of
 * doubles (TwoSum per element, compensated.h), as on the GPU.
 *
 * The cumulative integrals are the same two passes over the grid's terms
 * (f evaluated in each pass, so that nothing of size n is held): for the
 * trapezoid the values f_i, F_i = h (S_i - f_0/2 - f_i/2) with S_i their
 * inclusive prefix; for Simpson the intervals' terms of
 * kernels/scan/cumulative.cuh (scipy's cumulative_simpson), F_i = h/12 S_i. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../scan_internal.h"


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

/* The term of point i: f_i (trapezoid); for Simpson 12/h times the
 * integral over [x_{i-1}, x_i] of the parabola through three neighbours
 * (cumulative.cuh spells the same formulas), 0 for i = 0. */
static double cumulative_term(const gq_cumulative_call *p, uint64_t i)
{
  if (!p->simpson)
    return grid_value(p, i);
  if (i == 0)
    return 0.0;
  const uint64_t j = i - 1; /* the interval [x_j, x_{j+1}] */
  if (j % 2 == 0 && j != p->n - 1)
    return 5.0 * grid_value(p, j) + 8.0 * grid_value(p, j + 1) - grid_value(p, j + 2);
  return -grid_value(p, j - 1) + 8.0 * grid_value(p, j) + 5.0 * grid_value(p, j + 1);
}

/* F_i from the prefix pair S: trapezoid h (S - f0/2 - fi/2) (the halves are
 * exact), Simpson h/12 S; the product carries its rounding error (fma), one
 * rounding at the end. */
static double cumulative_value(const gq_cumulative_call *p, gq_csum s, double f0, double term)
{
  double factor = p->h;
  if (p->simpson) {
    factor /= 12.0;
  } else {
    gq_csum_add(&s, -0.5 * f0);
    gq_csum_add(&s, -0.5 * term);
  }
  const double v = s.s * factor;
  return v + (fma(s.s, factor, -v) + s.c * factor);
}

/* The chunks of p's points: [c0, c0 + chunks), chunk c holding points
 * [c CHUNK, (c + 1) CHUNK) within them. */
static uint64_t chunk_of(uint64_t i) { return i / GQ_CPU_SCAN_CHUNK; }

int gq_cpu_cumulative_totals(const gq_cumulative_call *p, gq_csum *totals)
{
  const uint64_t end = p->first + p->points, c0 = chunk_of(p->first);
  const uint64_t chunks = p->points ? chunk_of(end - 1) + 1 - c0 : 0;
#pragma omp parallel for schedule(static) num_threads(gq_cpu_threads())
  for (uint64_t c = 0; c < chunks; c++) {
    const uint64_t from = (c0 + c) * GQ_CPU_SCAN_CHUNK, to = from + GQ_CPU_SCAN_CHUNK < end ? from + GQ_CPU_SCAN_CHUNK : end;
    gq_csum acc = gq_csum_zero();
    for (uint64_t i = from > p->first ? from : p->first; i < to; i++)
      gq_csum_add(&acc, cumulative_term(p, i));
    totals[c] = acc;
  }
  return GQ_SUCCESS;
}

int gq_cpu_cumulative_values(const gq_cumulative_call *p, const gq_csum *offsets)
{
  const uint64_t end = p->first + p->points, c0 = chunk_of(p->first);
  const uint64_t chunks = p->points ? chunk_of(end - 1) + 1 - c0 : 0;
  const uint64_t base = p->first / p->every, last = gq_cumulative_count(p->n, p->every) - 1;
  const double f0 = grid_value(p, 0);
#pragma omp parallel for schedule(static) num_threads(gq_cpu_threads())
  for (uint64_t c = 0; c < chunks; c++) {
    const uint64_t from = (c0 + c) * GQ_CPU_SCAN_CHUNK, to = from + GQ_CPU_SCAN_CHUNK < end ? from + GQ_CPU_SCAN_CHUNK : end;
    gq_csum acc = offsets[c];
    for (uint64_t i = from > p->first ? from : p->first; i < to; i++) {
      const double term = cumulative_term(p, i);
      gq_csum_add(&acc, term);
      if (i % p->every == 0)
        p->out[i / p->every - base] = i == 0 ? 0.0 : cumulative_value(p, acc, f0, term);
      else if (i == p->n)
        p->out[last - base] = cumulative_value(p, acc, f0, term);
    }
  }
  return GQ_SUCCESS;
}

int gq_cpu_cumulative(const gq_cumulative_call *p, gq_grid_info *info)
{
  const double t0 = gq_wall_ms();
  const uint64_t chunks = (p->points + GQ_CPU_SCAN_CHUNK - 1) / GQ_CPU_SCAN_CHUNK; /* p->first = 0 */
  gq_csum *offsets = malloc((chunks ? chunks : 1) * sizeof *offsets);
  if (!offsets)
    return gq_fail(GQ_ENOMEM, "cumulative integral: cannot allocate %llu chunk totals", (unsigned long long)chunks);
  gq_cpu_cumulative_totals(p, offsets);
  gq_csum running = gq_csum_zero();
  for (uint64_t c = 0; c < chunks; c++) {
    const gq_csum total = offsets[c];
    offsets[c] = running;
    gq_csum_merge(&running, total);
  }
  gq_cpu_cumulative_values(p, offsets);
  free(offsets);
  info->ms = gq_wall_ms() - t0;
  return GQ_SUCCESS;
}
