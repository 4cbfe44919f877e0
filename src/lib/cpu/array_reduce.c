/* array_reduce.c — the CPU backend of the data reductions (sum, dot, rms of a
 * difference, statistics) over host arrays.
 *
 * Source x map x accumulator as in grid_sum.c: OpenMP threads take contiguous
 * ranges (thread order = index order, so the merge order is fixed and a run
 * is reproducible for a given thread count); each thread walks its range in
 * blocks of BLOCK elements (float input is widened into an L1-resident
 * buffer first), and LANES independent accumulators take the elements of a
 * block round robin, written out so that `omp simd` vectorises them: TwoSum
 * per element for the sums, TwoProd (fma) for the products' rounding error,
 * shifted moments (reduce_acc.h) for the statistics.  Lanes, then threads,
 * are merged with reduce_acc.h's formulas, the same the GPU uses.
 *
 * The classifying pass (a NaN or Inf was seen) is a plain scalar loop: it
 * runs only on such inputs and must count and skip every non-finite term.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../internal.h"
#include "clones.h"

enum {
  BLOCK = 2048, /* elements per block: two widened buffers stay in L1 */
  LANES = 8     /* independent accumulators: two AVX2 vectors         */
};


typedef struct {
  double s[LANES], c[LANES], abs[LANES], ref[LANES], ref_c[LANES], max[LANES];
} sum_lanes;

typedef struct {
  double shift[LANES], s1[LANES], s1_c[LANES], s2[LANES], s[LANES], c[LANES], abs[LANES];
  double min[LANES], max[LANES];
  uint64_t n[LANES], imin[LANES], imax[LANES];
} stats_lanes;

/* Terms t = a (sum) or a*b (dot, with its rounding error fma(a, b, -t)). */
GQ_CLONES static void sum_block(sum_lanes *restrict L, const double *restrict a,
                                const double *restrict b, int count)
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
      L->abs[l] += fabs(t);
    }
  }
  for (; k < count; k++) {
    const double t = b ? a[k] * b[k] : a[k];
    gq_csum acc = {L->s[k % LANES], L->c[k % LANES]};
    gq_csum_add(&acc, t);
    L->s[k % LANES] = acc.s;
    L->c[k % LANES] = acc.c + (b ? fma(a[k], b[k], -t) : 0.0);
    L->abs[k % LANES] += fabs(t);
  }
}

/* (a - b)^2 compensated, with the square's rounding error; a^2; max |a - b|. */
GQ_CLONES static void rms_block(sum_lanes *restrict L, const double *restrict a,
                                const double *restrict b, int count)
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

GQ_CLONES static void stats_block(stats_lanes *restrict L, const double *restrict x, int count,
                                  uint64_t index)
{
  int k = 0;
  for (; k + LANES <= count; k += LANES) {
#pragma omp simd
    for (int l = 0; l < LANES; l++) {
      const double v = x[k + l], d = v - L->shift[l];
      const uint64_t i = index + (uint64_t)(k + l);
      const double t = L->s1[l] + d, tb = t - L->s1[l], ta = t - tb;
      L->s1_c[l] += (L->s1[l] - ta) + (d - tb);
      L->s1[l] = t;
      L->s2[l] += d * d;
      const double s = L->s[l] + v, bp = s - L->s[l], ap = s - bp;
      L->c[l] += (L->s[l] - ap) + (v - bp);
      L->s[l] = s;
      L->abs[l] += fabs(v);
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
    const int l = k % LANES;
    const double v = x[k], d = v - L->shift[l];
    gq_csum acc = {L->s[l], L->c[l]};
    gq_csum_add(&acc, v);
    L->s[l] = acc.s;
    L->c[l] = acc.c;
    gq_csum s1 = {L->s1[l], L->s1_c[l]};
    gq_csum_add(&s1, d);
    L->s1[l] = s1.s;
    L->s1_c[l] = s1.c;
    L->s2[l] += d * d;
    L->abs[l] += fabs(v);
    if (v < L->min[l]) {
      L->min[l] = v;
      L->imin[l] = index + (uint64_t)k;
    }
    if (v > L->max[l]) {
      L->max[l] = v;
      L->imax[l] = index + (uint64_t)k;
    }
    L->n[l]++;
  }
}

static void widen(double *restrict out, const float *restrict in, int count)
{
#pragma omp simd
  for (int k = 0; k < count; k++)
    out[k] = (double)in[k];
}

/* ---- the classifying pass: count and skip non-finite terms --------------- */
static double load(const gq_array_reduce *p, const void *v, size_t i)
{
  return p->is_float ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

static void classify_range(const gq_array_reduce *p, size_t lo, size_t hi, gq_reduce_acc *out)
{
  if (p->kind == GQ_REDUCE_STATS) {
    gq_stats_acc *s = &out->stats;
    gq_stats_acc_zero(s);
    double shift = 0.0, s2 = 0.0;
    gq_csum sum = gq_csum_zero(), s1 = gq_csum_zero();
    uint64_t n = 0;
    for (size_t i = lo; i < hi; i++) {
      const double v = load(p, p->x, i);
      if (isnan(v)) {
        s->first_nan = gq_index_min_(s->first_nan, i);
        s->nan_count++;
      } else if (isinf(v)) {
        if (v > 0) {
          s->first_posinf = gq_index_min_(s->first_posinf, i);
          s->posinf_count++;
        } else {
          s->first_neginf = gq_index_min_(s->first_neginf, i);
          s->neginf_count++;
        }
      } else {
        if (n == 0)
          shift = v;
        n++;
        gq_csum_add(&s1, v - shift);
        s2 += (v - shift) * (v - shift);
        gq_csum_add(&sum, v);
        s->abs_sum += fabs(v);
        if (v < s->min) {
          s->min = v;
          s->argmin = i;
        }
        if (v > s->max) {
          s->max = v;
          s->argmax = i;
        }
      }
    }
    gq_stats_acc_set_moments(s, n, shift, s1, s2);
    s->sum = sum.s;
    s->sum_err = sum.c;
  } else if (p->kind == GQ_REDUCE_RMS) {
    gq_rms_acc *r = &out->rms;
    gq_rms_acc_zero(r);
    gq_csum ss = gq_csum_zero();
    for (size_t i = lo; i < hi; i++) {
      const double a = load(p, p->x, i), d = a - load(p, p->y, i);
      if (isnan(d) || isnan(a))
        r->nan_count++;
      else if (isinf(d) || isinf(a))
        r->inf_count++;
      else {
        r->n++;
        gq_csum_add(&ss, d * d);
        ss.c += fma(d, d, -(d * d));
        gq_csum ref = {r->sq_ref, r->sq_ref_err};
        gq_csum_add(&ref, a * a);
        r->sq_ref = ref.s;
        r->sq_ref_err = ref.c + fma(a, a, -(a * a));
        r->max_abs = fmax(r->max_abs, fabs(d));
      }
    }
    r->sq_diff = ss.s;
    r->sq_diff_err = ss.c;
  } else {
    gq_sum_acc *s = &out->sum;
    gq_sum_acc_zero(s);
    gq_csum sum = gq_csum_zero();
    for (size_t i = lo; i < hi; i++) {
      const double a = load(p, p->x, i);
      const double b = p->kind == GQ_REDUCE_DOT ? load(p, p->y, i) : 1.0;
      const double t = a * b;
      if (isnan(t))
        s->nan_count++;
      else if (isinf(t))
        *(t > 0 ? &s->posinf_count : &s->neginf_count) += 1;
      else {
        s->n++;
        gq_csum_add(&sum, t);
        sum.c += fma(a, b, -t);
        s->abs_sum += fabs(t);
      }
    }
    s->sum = sum.s;
    s->sum_err = sum.c;
  }
}

/* ---- the fast pass --------------------------------------------------------- */
static void lanes_to_acc(const gq_array_reduce *p, const sum_lanes *L, const stats_lanes *S,
                         gq_reduce_acc *out)
{
  for (int l = 0; l < LANES; l++) {
    gq_reduce_acc lane;
    if (p->kind == GQ_REDUCE_STATS) {
      gq_stats_acc *s = &lane.stats;
      gq_stats_acc_zero(s);
      const gq_csum s1 = {S->s1[l], S->s1_c[l]};
      gq_stats_acc_set_moments(s, S->n[l], S->shift[l], s1, S->s2[l]);
      s->sum = S->s[l];
      s->sum_err = S->c[l];
      s->abs_sum = S->abs[l];
      s->min = S->min[l];
      s->max = S->max[l];
      s->argmin = S->n[l] ? S->imin[l] : GQ_NO_INDEX;
      s->argmax = S->n[l] ? S->imax[l] : GQ_NO_INDEX;
      gq_stats_acc_combine(&out->stats, s);
    } else if (p->kind == GQ_REDUCE_RMS) {
      gq_rms_acc *r = &lane.rms;
      gq_rms_acc_zero(r);
      r->sq_diff = L->s[l];
      r->sq_diff_err = L->c[l];
      r->sq_ref = L->ref[l];
      r->sq_ref_err = L->ref_c[l];
      r->max_abs = L->max[l];
      gq_rms_acc_combine(&out->rms, r);
    } else {
      gq_sum_acc *s = &lane.sum;
      gq_sum_acc_zero(s);
      s->sum = L->s[l];
      s->sum_err = L->c[l];
      s->abs_sum = L->abs[l];
      gq_sum_acc_combine(&out->sum, s);
    }
  }
}

static void fast_range(const gq_array_reduce *p, size_t lo, size_t hi, gq_reduce_acc *out)
{
  sum_lanes L;
  stats_lanes S;
  memset(&L, 0, sizeof L);
  memset(&S, 0, sizeof S);
  for (int l = 0; l < LANES; l++) {
    S.min[l] = INFINITY;
    S.max[l] = -INFINITY;
    S.shift[l] = lo + (size_t)l < hi ? load(p, p->x, lo + (size_t)l) : 0.0;
  }
  _Alignas(64) double bufx[BLOCK], bufy[BLOCK];
  for (size_t i = lo; i < hi; i += BLOCK) {
    const int count = (int)(hi - i < BLOCK ? hi - i : BLOCK);
    const double *x, *y = NULL;
    if (p->is_float) {
      widen(bufx, (const float *)p->x + i, count);
      x = bufx;
      if (p->y) {
        widen(bufy, (const float *)p->y + i, count);
        y = bufy;
      }
    } else {
      x = (const double *)p->x + i;
      y = p->y ? (const double *)p->y + i : NULL;
    }
    switch (p->kind) {
    case GQ_REDUCE_SUM: sum_block(&L, x, NULL, count); break;
    case GQ_REDUCE_DOT: sum_block(&L, x, y, count); break;
    case GQ_REDUCE_RMS: rms_block(&L, x, y, count); break;
    case GQ_REDUCE_STATS: stats_block(&S, x, count, i); break;
    }
  }
  lanes_to_acc(p, &L, &S, out);
  if (p->kind == GQ_REDUCE_SUM || p->kind == GQ_REDUCE_DOT)
    out->sum.n = hi - lo;
  else if (p->kind == GQ_REDUCE_RMS)
    out->rms.n = hi - lo;
}

static void zero_acc(gq_reduce_kind kind, gq_reduce_acc *a)
{
  if (kind == GQ_REDUCE_STATS)
    gq_stats_acc_zero(&a->stats);
  else if (kind == GQ_REDUCE_RMS)
    gq_rms_acc_zero(&a->rms);
  else
    gq_sum_acc_zero(&a->sum);
}

static void combine(gq_reduce_kind kind, gq_reduce_acc *a, const gq_reduce_acc *b)
{
  if (kind == GQ_REDUCE_STATS)
    gq_stats_acc_combine(&a->stats, &b->stats); /* indices are already absolute */
  else if (kind == GQ_REDUCE_RMS)
    gq_rms_acc_combine(&a->rms, &b->rms);
  else
    gq_sum_acc_combine(&a->sum, &b->sum);
}

int gq_cpu_array_reduce(const gq_array_reduce *p, gq_reduce_acc *out, double *ms)
{
  const int nthreads = gq_cpu_threads();
  gq_reduce_acc *partial = malloc((size_t)nthreads * sizeof *partial);
  if (!partial)
    return gq_fail(GQ_ENOMEM, "cannot allocate %d partial results", nthreads);
  const double t0 = gq_wall_ms();
  /* Small inputs stay on one thread: waking the team costs more. */
  const int team = p->n < 65536 ? 1 : nthreads;
  for (int t = 0; t < team; t++) /* a team smaller than asked leaves identities */
    zero_acc(p->kind, &partial[t]);
#pragma omp parallel num_threads(team)
  {
    int tid = 0, nt = 1;
#ifdef _OPENMP
    tid = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    const size_t lo = p->n / (size_t)nt * (size_t)tid + (p->n % (size_t)nt < (size_t)tid ? p->n % (size_t)nt : (size_t)tid);
    const size_t hi = lo + p->n / (size_t)nt + ((size_t)tid < p->n % (size_t)nt);
    if (p->classify)
      classify_range(p, lo, hi, &partial[tid]);
    else
      fast_range(p, lo, hi, &partial[tid]);
  }
  zero_acc(p->kind, out);
  for (int t = 0; t < team; t++)
    combine(p->kind, out, &partial[t]);
  if (ms)
    *ms = gq_wall_ms() - t0;
  free(partial);
  return GQ_SUCCESS;
}
