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
#include <tgmath.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../internal.h"
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

int gq_cpu_threads(void)
{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int gq_cpu_grid_sum(const gq_context *ctx, const gq_grid_sum *p, gq_csum sums[2], double *ms)
{
  (void)ctx;
  if (p->integrand < 0 || p->integrand >= GQ_F_COUNT)
    return gq_fail(GQ_EINVAL, "unknown built-in integrand %d", p->integrand);
  block_fn *fn = (p->precision == GQ_PRECISION_FLOAT ? blocks_float : blocks_double)[p->integrand];
  const uint64_t count = p->last - p->first + 1;
  const uint64_t nblocks = (count + BLOCK - 1) / BLOCK;
  const int nthreads = gq_cpu_threads();
  gq_csum (*partial)[2] = calloc((size_t)nthreads, sizeof *partial);
  if (!partial)
    return gq_fail(GQ_ENOMEM, "cannot allocate %d partial sums", nthreads);

  const double t0 = gq_wall_ms();
#pragma omp parallel num_threads(nthreads)
  {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    lane_sums acc = {{0}, {0}};
    _Alignas(64) double buf[BLOCK];
#pragma omp for schedule(static)
    for (uint64_t blk = 0; blk < nblocks; blk++) {
      const uint64_t i0 = p->first + blk * BLOCK;
      const int cnt = (int)(count - blk * BLOCK < BLOCK ? count - blk * BLOCK : BLOCK);
      fn(p->a, p->h, (double)i0, cnt, buf);
      accumulate(&acc, buf, cnt);
    }
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
  sums[0] = sums[1] = gq_csum_zero();
  for (int t = 0; t < nthreads; t++) {
    gq_csum_merge(&sums[0], partial[t][0]);
    gq_csum_merge(&sums[1], partial[t][1]);
  }
  if (ms)
    *ms = gq_wall_ms() - t0;
  free(partial);
  return GQ_SUCCESS;
}
