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
 * shifted double-double moments (reduce_acc.h) for the statistics.  Lanes,
 * then threads, are merged with reduce_acc.h's formulas, the same the GPU
 * uses; the moments' merges are exact, so the statistics do not depend on
 * the thread count.
 *
 * The classifying pass (a NaN, an Inf or an overflow was seen) is a plain
 * scalar loop through reduce_acc.h's scaled adds: it runs only on such
 * inputs, counts and skips every non-finite term and scales the finite ones
 * where a sum or a square would overflow.
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
  double shift[LANES], s1[LANES], s1_c[LANES], s2[LANES], s2_c[LANES], abs[LANES], abs_c[LANES];
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

/* Per element: x - K exactly (TwoSum), its square with the square's error,
 * both into compensated sums (reduce_acc.h, gq_stats_acc_add). */
GQ_CLONES static void stats_block(stats_lanes *restrict L, const double *restrict x, int count,
                                  uint64_t index)
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
  for (; k < count; k++) { /* the same, one element at a time */
    const int l = k % LANES;
    gq_stats_acc a;
    gq_stats_acc_zero(&a);
    a.n = L->n[l];
    a.shift = L->shift[l];
    a.s1 = L->s1[l];
    a.s1_err = L->s1_c[l];
    a.s2 = L->s2[l];
    a.s2_err = L->s2_c[l];
    a.abs_sum = L->abs[l];
    a.abs_err = L->abs_c[l];
    a.min = L->min[l];
    a.max = L->max[l];
    a.argmin = L->imin[l];
    a.argmax = L->imax[l];
    gq_stats_acc_add(&a, x[k], index + (uint64_t)k);
    L->n[l] = a.n;
    L->shift[l] = a.shift;
    L->s1[l] = a.s1;
    L->s1_c[l] = a.s1_err;
    L->s2[l] = a.s2;
    L->s2_c[l] = a.s2_err;
    L->abs[l] = a.abs_sum;
    L->abs_c[l] = a.abs_err;
    L->min[l] = a.min;
    L->max[l] = a.max;
    L->imin[l] = a.argmin;
    L->imax[l] = a.argmax;
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
    for (size_t i = lo; i < hi; i++) {
      const double v = load(p, p->x, i);
      if (isfinite(v))
        gq_stats_acc_add_scaled(s, v, i);
      else
        gq_stats_acc_add_nonfinite(s, v, i);
    }
  } else if (p->kind == GQ_REDUCE_RMS) {
    gq_rms_acc *r = &out->rms;
    gq_rms_acc_zero(r);
    for (size_t i = lo; i < hi; i++) {
      const double a = load(p, p->x, i), b = load(p, p->y, i), d = a - b;
      if (isnan(d) || isnan(a))
        r->nan_count++;
      else if (!isfinite(a) || !isfinite(b))
        r->inf_count++;
      else /* a - b may overflow: scaled */
        gq_rms_acc_add_scaled(r, a, b);
    }
  } else {
    gq_sum_acc *s = &out->sum;
    gq_sum_acc_zero(s);
    for (size_t i = lo; i < hi; i++) {
      const double a = load(p, p->x, i);
      const double b = p->kind == GQ_REDUCE_DOT ? load(p, p->y, i) : 1.0;
      const double t = a * b;
      if (isnan(t))
        s->nan_count++;
      else if (!isfinite(a) || !isfinite(b))
        *(t > 0 ? &s->posinf_count : &s->neginf_count) += 1;
      else if (p->kind == GQ_REDUCE_DOT) /* a * b may overflow: scaled */
        gq_sum_acc_add_product_scaled(s, a, b);
      else
        gq_sum_acc_add_scaled(s, a, 0.0, 0);
    }
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
      s->n = S->n[l];
      s->shift = S->shift[l];
      s->s1 = S->s1[l];
      s->s1_err = S->s1_c[l];
      s->s2 = S->s2[l];
      s->s2_err = S->s2_c[l];
      s->abs_sum = S->abs[l];
      s->abs_err = S->abs_c[l];
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
    S.imin[l] = S.imax[l] = GQ_NO_INDEX;
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
