/* sobol.c — gq_mc_sobol: randomized quasi-Monte Carlo.  R independent Owen
 * scramblings (sobol.h) of the first m = 2^k points of the Sobol sequence,
 * each a batch of the Monte Carlo engine (the Sobol sampler of gq_mc_batch,
 * on either backend), each one's mean an unbiased estimate; the estimate is
 * their average and its standard error their spread over sqrt(R), which
 * counts the points' correlation that an iid formula would not (Owen,
 * "Monte Carlo theory, methods and examples", ch. 17).  On a shared context
 * (gq_context_set_share) each batch's point indices are divided between the
 * ranks (share.c) and its moments merged in rank order; on a deterministic
 * one the moments are exact, so the result has one process's bits for any
 * number of ranks and threads. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "internal.h"
#include "sobol.h"

#define MAX_BATCH_CPU (UINT64_C(1) << 24)
#define MAX_BATCH_GPU (UINT64_C(1) << 34)

static int validate(const gq_integrand *f, const gq_mc_options *o, int scramblings)
{
  const int status = gq_mc_validate(f, o);
  if (status != GQ_SUCCESS)
    return status;
  if (o->dist != GQ_MC_UNIFORM)
    return gq_fail(GQ_EINVAL, "Sobol points fill a box: the normal distribution is plain Monte Carlo only");
  if (o->tol > 0.0)
    return gq_fail(GQ_EINVAL, "a tolerance stops plain Monte Carlo only; Sobol draws all n points");
  if (scramblings < 2 || scramblings > GQ_SOBOL_MAX_SCRAMBLINGS)
    return gq_fail(GQ_EINVAL, "scramblings must be between 2 (a spread needs two) and %d (got %d)",
                   GQ_SOBOL_MAX_SCRAMBLINGS, scramblings);
  if ((o->n + (uint64_t)scramblings - 1) / (uint64_t)scramblings > GQ_SOBOL_MAX_POINTS)
    return gq_fail(GQ_EINVAL, "n / scramblings must be at most 2^32 (the Sobol indices are 32 bits)");
  return GQ_SUCCESS;
}

/* The points of one scrambling: n / R rounded up to a power of two. */
static uint64_t points_per_scrambling(uint64_t n, int scramblings)
{
  const uint64_t want = (n + (uint64_t)scramblings - 1) / (uint64_t)scramblings;
  uint64_t m = 1;
  while (m < want)
    m <<= 1;
  return m < 2 ? 2 : m;
}

static int sobol_mean(gq_context *ctx, const gq_integrand *f, const gq_mc_options *o, int scramblings,
                      gq_mc_result *r)
{
  gq_mc_batch p;
  memset(&p, 0, sizeof p);
  p.f = f;
  p.dims = o->dims;
  p.dist = GQ_MC_UNIFORM;
  p.precision = o->precision;
  p.seed = o->seed;
  p.blocks = o->blocks;
  p.sampler = GQ_SAMPLER_SOBOL;
  p.deterministic = ctx->deterministic;
  for (int d = 0; d < o->dims; d++) {
    p.a[d] = o->a[d];
    p.w[d] = o->b[d] - o->a[d];
    p.scramble[d] = gq_sobol_seed(o->seed, 0u, d);
  }
  const uint64_t m = points_per_scrambling(o->n, scramblings);
  p.shift = gq_mc_pilot_shift(&p, m);
  /* deterministic: the same batches on either backend (as mc.c's) */
  const uint64_t max_batch = ctx->backend == GQ_BACKEND_CUDA && !ctx->deterministic ? MAX_BATCH_GPU : MAX_BATCH_CPU;

  /* The scramblings' means of g about the shift, summed by Welford's update
   * (R is small; their spread is the point of the exercise). */
  double means_mean = 0.0, means_m2 = 0.0;
  gq_mc_moments total = gq_mc_moments_zero();
  const double t0 = gq_wall_ms();
  for (int s = 0; s < scramblings; s++) {
    for (int d = 0; d < o->dims; d++)
      p.scramble[d] = gq_sobol_seed(o->seed, (unsigned)s, d);
    gq_mc_moments sum = gq_mc_moments_zero();
    for (uint64_t done = 0; done < m; done += p.count) {
      p.first = done;
      p.count = m - done < max_batch ? m - done : max_batch;
      gq_mc_moments part;
      gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
      /* the backend's, or this rank's share of the batch's points (whole
       * quads, from its first index: the Gray-code walk starts there)
       * combined in rank order */
      const int status = gq_shared_mc_batch(ctx, &p, &part, &info);
      if (status != GQ_SUCCESS)
        return status;
      if (s == 0 && done == 0) {
        r->jit = info.jit;
        r->compile_ms = info.compile_ms;
      }
      r->kernel_ms += info.ms;
      gq_mc_moments_merge(&sum, part);
      gq_progress(ctx, (uint64_t)s * m + done + p.count, m * (uint64_t)scramblings, "samples");
    }
    gq_mc_moments_merge(&total, sum);
    const double mean_s = gq_csum_value(sum.s1) / (double)m; /* about the shift */
    const double delta = mean_s - means_mean;
    means_mean += delta / (s + 1);
    means_m2 += delta * (mean_s - means_mean);
    if (o->progress) {
      const uint64_t done = (uint64_t)(s + 1) * m;
      const double se_now = s > 0 ? sqrt(means_m2 / s / (s + 1)) : NAN;
      const gq_mc_progress pr = {done, m * (uint64_t)scramblings, f->scale * (p.shift + means_mean),
                                 fabs(f->scale) * se_now, gq_wall_ms() - t0};
      o->progress(&pr, o->progress_user);
    }
  }
  const uint64_t n = m * (uint64_t)scramblings;
  const double N = (double)n, s1 = gq_csum_value(total.s1), s2 = gq_csum_value(total.s2);
  const double var = isfinite(s2) ? fmax(0.0, (s2 - s1 * (s1 / N)) / (N - 1.0)) : INFINITY;
  r->n = n;
  r->mean = f->scale * (p.shift + means_mean);
  r->sd = fabs(f->scale) * sqrt(var);
  r->se = fabs(f->scale) * sqrt(means_m2 / (scramblings - 1) / scramblings);
  const double t = gsl_cdf_tdist_Pinv(0.975, (double)(scramblings - 1));
  r->ci_low = r->mean - t * r->se;
  r->ci_high = r->mean + t * r->se;
  return GQ_SUCCESS;
}

int gq_mc_sobol(gq_context *ctx, const gq_integrand *f, const gq_mc_options *o, int scramblings, gq_mc_result *r)
{
  if (!ctx || !f || !o || !r)
    return gq_null_arg(__func__, !ctx ? "ctx" : !f ? "f" : !o ? "opt" : "result");
  gq_mc_result_start(r, ctx, o);
  int status = validate(f, o, scramblings);
  gq_integrand *parsed;
  if (status != GQ_SUCCESS || (status = gq_mc_expression(&f, &parsed)) != GQ_SUCCESS)
    return status;
  status = sobol_mean(ctx, f, o, scramblings, r);
  gq_integrand_free(parsed);
  if (status != GQ_SUCCESS)
    return status;
  if (!isfinite(r->mean) || !isfinite(r->se))
    return gq_fail(GQ_EDOM, "f is not finite at some of the Sobol points, or its sums overflow: the mean is %g",
                   r->mean);
  if ((status = gq_mc_box_integral(r, o)) != GQ_SUCCESS)
    return status;
  gq_clear_error();
  return GQ_SUCCESS;
}
