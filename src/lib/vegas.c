/* vegas.c — gq_mc_vegas: the host's part of VEGAS+ (G. P. Lepage, J. Comput.
 * Phys. 439, 2021), shared by both backends.  A pass of samples runs on the
 * backend (gq_vegas_pass: cpu/vegas.c; on CUDA a run kept on the device,
 * kernels/vegas/); between passes this file refines the per-axis grids from
 * the passes' training sums (damped by alpha) and, for the CPU backend,
 * reallocates the samples over the hypercubes (sigma_h^beta, vegas_alloc.h's
 * rule, which the CUDA backend applies on the device); finally it averages
 * the iterations after the warm-up, weighted by their inverse variances,
 * with chi^2 of their agreement.
 *
 * Everything here depends on the sums only, never on timing or threads, so
 * a run is reproducible; the sums of the two backends differ only where f's
 * math libraries or the order of the GPU's atomic additions do (last bits),
 * which a sample allocation can turn into one sample more or less in a
 * hypercube, changing no other sample (vegas_map.h's stream). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "internal.h"
#include "vegas_alloc.h"
#include "vegas_map.h"

#define Z95 1.959963984540054 /* the 97.5% quantile of N(0, 1) */
/* Samples: ranks within a hypercube stay below 2^42 (vegas_map.h). */
#define MAX_SAMPLES (UINT64_C(1) << 44)
enum {
  AIM_PER_HCUBE = 4,   /* the strata: as many as leave this many per hypercube */
  MIN_PER_BIN = 8,     /* bins at most (samples per pass) / this              */
};
/* Bins' weights are kept above this fraction of the average, so that no
 * increment shrinks to nothing and a region the samples missed stays
 * reachable. */
#define WEIGHT_FLOOR 1e-12

int gq_vegas_options_init(gq_vegas_options *v)
{
  if (!v)
    return gq_null_arg(__func__, "v");
  v->iterations = 10;
  v->warmup = 5;
  v->bins = 512;
  v->alpha = 0.5;
  v->beta = 0.75;
  return GQ_SUCCESS;
}

static int validate(const gq_integrand *f, const gq_mc_options *o, const gq_vegas_options *v)
{
  const int status = gq_mc_validate(f, o);
  if (status != GQ_SUCCESS)
    return status;
  if (o->dist != GQ_MC_UNIFORM)
    return gq_fail(GQ_EINVAL, "VEGAS adapts to a box: the normal distribution is plain Monte Carlo only");
  if (o->tol > 0.0)
    return gq_fail(GQ_EINVAL, "a tolerance stops plain Monte Carlo only; VEGAS draws all n samples");
  if (v->iterations < 1 || v->iterations > GQ_VEGAS_MAX_ITERATIONS)
    return gq_fail(GQ_EINVAL, "iterations must be between 1 and %d (got %d)", GQ_VEGAS_MAX_ITERATIONS,
                   v->iterations);
  if (v->warmup < 0 || v->warmup > GQ_VEGAS_MAX_ITERATIONS)
    return gq_fail(GQ_EINVAL, "warm-up iterations must be between 0 and %d (got %d)", GQ_VEGAS_MAX_ITERATIONS,
                   v->warmup);
  if (v->bins < 2 || v->bins > GQ_VEGAS_MAX_BINS)
    return gq_fail(GQ_EINVAL, "bins must be between 2 and %d (got %d)", GQ_VEGAS_MAX_BINS, v->bins);
  if (!(v->alpha >= 0.0 && v->alpha <= 2.0))
    return gq_fail(GQ_EINVAL, "alpha must be between 0 and 2 (got %g)", v->alpha);
  if (!(v->beta >= 0.0 && v->beta <= 1.0))
    return gq_fail(GQ_EINVAL, "beta must be between 0 and 1 (got %g)", v->beta);
  if (o->n > MAX_SAMPLES)
    return gq_fail(GQ_EINVAL, "VEGAS takes at most 2^44 samples (got %llu)", (unsigned long long)o->n);
  const uint64_t passes = (uint64_t)v->iterations + (uint64_t)v->warmup;
  if (o->n / passes < 2 * AIM_PER_HCUBE)
    return gq_fail(GQ_EINVAL, "n = %llu is too few for %llu iterations: VEGAS needs at least %d samples an "
                   "iteration", (unsigned long long)o->n, (unsigned long long)passes, 2 * AIM_PER_HCUBE);
  return GQ_SUCCESS;
}

/* base^dims, or UINT64_MAX beyond limit. */
static uint64_t power_capped(uint64_t base, int dims, uint64_t limit)
{
  uint64_t p = 1;
  for (int d = 0; d < dims; d++) {
    if (p > limit / base)
      return UINT64_MAX;
    p *= base;
  }
  return p;
}

/* The most strata per axis that leave AIM_PER_HCUBE samples a hypercube,
 * within GQ_VEGAS_MAX_HCUBES hypercubes. */
static int strata_for(uint64_t per_pass, int dims)
{
  uint64_t limit = per_pass / AIM_PER_HCUBE;
  if (limit > GQ_VEGAS_MAX_HCUBES)
    limit = GQ_VEGAS_MAX_HCUBES;
  int s = 1;
  while (power_capped((uint64_t)s + 1, dims, limit) <= limit)
    s++;
  return s;
}

typedef struct {
  gq_vegas_pass pass;
  uint64_t per_pass;
  double alpha, beta;
  double *edges, *sum, *sum2, *train, *train_weight, *weight, *spread;
  uint64_t *counts, *first_quad;
} run;

static void run_free(run *r)
{
  free(r->edges);
  free(r->sum);
  free(r->sum2);
  free(r->train);
  free(r->train_weight);
  free(r->weight);
  free(r->spread);
  free(r->counts);
  free(r->first_quad);
}

static int run_init(run *r, const gq_integrand *f, const gq_mc_options *o, const gq_vegas_options *v)
{
  memset(r, 0, sizeof *r);
  gq_vegas_pass *p = &r->pass;
  const uint64_t passes = (uint64_t)v->iterations + (uint64_t)v->warmup;
  r->per_pass = o->n / passes;
  r->alpha = v->alpha;
  r->beta = v->beta;
  p->f = f;
  p->dims = o->dims;
  p->precision = o->precision;
  p->seed = o->seed;
  p->bins = r->per_pass / MIN_PER_BIN < (uint64_t)v->bins ? (int)(r->per_pass / MIN_PER_BIN) : v->bins;
  p->strata = strata_for(r->per_pass, o->dims);
  p->hcubes = (uint32_t)power_capped((uint64_t)p->strata, o->dims, GQ_VEGAS_MAX_HCUBES);
  for (int d = 0; d < o->dims; d++) {
    p->a[d] = o->a[d];
    p->w[d] = o->b[d] - o->a[d];
  }
  const size_t dims = (size_t)o->dims, bins = (size_t)p->bins, hcubes = p->hcubes;
  r->edges = malloc(dims * (bins + 1) * sizeof *r->edges);
  r->train = malloc(dims * bins * sizeof *r->train);
  r->train_weight = malloc(dims * bins * sizeof *r->train_weight);
  r->weight = malloc((2 * bins + 1) * sizeof *r->weight);
  r->sum = malloc(hcubes * sizeof *r->sum);
  r->sum2 = malloc(hcubes * sizeof *r->sum2);
  r->spread = malloc(hcubes * sizeof *r->spread);
  r->counts = malloc(hcubes * sizeof *r->counts);
  r->first_quad = malloc((hcubes + 1) * sizeof *r->first_quad);
  if (!r->edges || !r->train || !r->train_weight || !r->weight || !r->sum || !r->sum2 || !r->spread || !r->counts || !r->first_quad) {
    run_free(r);
    return gq_fail(GQ_ENOMEM, "VEGAS: no memory for %zu hypercubes and %zu x %zu bins", hcubes, dims, bins);
  }
  for (size_t d = 0; d < dims; d++)
    for (size_t k = 0; k <= bins; k++)
      r->edges[d * (bins + 1) + k] = (double)k / (double)bins;
  for (size_t h = 0; h < hcubes; h++) /* even, the remainder one each to the first */
    r->counts[h] = r->per_pass / hcubes + (h < r->per_pass % hcubes);
  p->edges = r->edges;
  p->counts = r->counts;
  p->first_quad = r->first_quad;
  p->sum = r->sum;
  p->sum2 = r->sum2;
  p->train = r->train;
  p->train_weight = r->train_weight;
  return GQ_SUCCESS;
}

/* The pass's integral of g J over the unit cube and its variance: the
 * hypercubes' means, each of volume 1 / hcubes; var_h / n_h each.  The
 * variances var_h are kept in spread[] for reallocate.  (The CUDA backend
 * computes the same on the device: kernels/vegas/alloc.cu.) */
static void pass_estimate(run *r, gq_vegas_totals *t)
{
  const gq_vegas_pass *p = &r->pass;
  gq_csum mean = {0.0, 0.0}, var = {0.0, 0.0};
  uint64_t n = 0;
  for (uint32_t h = 0; h < p->hcubes; h++) {
    const double nh = (double)r->counts[h];
    double m, v;
    gq_vegas_hcube_moments(r->sum[h], r->sum2[h], nh, &m, &v);
    r->spread[h] = v;
    gq_csum_add(&mean, m);
    gq_csum_add(&var, v / nh);
    n += r->counts[h];
  }
  const double vol = 1.0 / (double)p->hcubes;
  t->estimate = gq_csum_value(mean) * vol;
  t->variance = gq_csum_value(var) * vol * vol;
  t->samples = n;
}

/* The mean of (g J)^2 in each bin, train / weight.  A bin no sample reached
 * says nothing (rather than that g is 0 there): it takes the mean of its
 * nearest reached neighbours, so that chance alone never narrows it.  0 when
 * no bin was reached. */
static int bin_means(const double *train, const double *count, int bins, double *mean)
{
  int last = -1; /* the last reached bin so far */
  for (int k = 0; k < bins; k++) {
    if (!(count[k] > 0.0))
      continue;
    mean[k] = train[k] / count[k];
    /* the gap (last, k): the two sides' mean, or the only side's value */
    const double fill = last < 0 ? mean[k] : (mean[last] + mean[k]) / 2.0;
    for (int j = last + 1; j < k; j++)
      mean[j] = fill;
    last = k;
  }
  for (int j = last + 1; last >= 0 && j < bins; j++)
    mean[j] = mean[last];
  return last >= 0;
}

/* One axis's new grid: the training sums over their weights (the mean of
 * (g J)^2 in each bin, bin_means), smoothed over neighbours
 * (Lepage's 1 6 1 kernel), normalized, compressed by ((1 - r) / ln(1/r))^alpha
 * so that one pass's noise moves the grid less, then the edges placed so that
 * every new increment holds an equal share of the weight (linear within the
 * old increments). */
static void refine_axis(double *edges, const double *train, const double *count, double *weight, int bins,
                        double alpha)
{
  double *old = weight + bins; /* bins + 1 more: the means, then the edges being replaced */
  if (!bin_means(train, count, bins, old))
    return; /* no sample landed anywhere: nothing learned */
  double total = 0.0;
  for (int k = 0; k < bins; k++) {
    const double left = k > 0 ? old[k - 1] : old[k], right = k < bins - 1 ? old[k + 1] : old[k];
    weight[k] = (left + 6.0 * old[k] + right) / 8.0;
  }
  for (int k = 0; k < bins; k++)
    total += weight[k];
  if (!(total > 0.0) || !isfinite(total))
    return; /* nothing learned (f = 0 here), or a sum that overflowed */
  double sum = 0.0;
  for (int k = 0; k < bins; k++) {
    const double share = weight[k] / total;
    weight[k] = share <= 0.0 ? 0.0 : share >= 1.0 ? 1.0 : pow((1.0 - share) / -log(share), alpha);
    sum += weight[k];
  }
  const double floor_weight = WEIGHT_FLOOR * sum / bins;
  sum = 0.0;
  for (int k = 0; k < bins; k++) {
    weight[k] = fmax(weight[k], floor_weight);
    sum += weight[k];
  }
  const double share = sum / bins;
  memcpy(old, edges, (size_t)(bins + 1) * sizeof *old);
  double acc = 0.0;
  int k = 0;
  for (int j = 1; j < bins; j++) {
    const double target = j * share;
    while (k < bins - 1 && acc + weight[k] < target)
      acc += weight[k++];
    const double frac = fmin(1.0, (target - acc) / weight[k]);
    edges[j] = fma(frac, old[k + 1] - old[k], old[k]);
  }
  edges[bins] = 1.0;
}

/* Samples for the next pass by vegas_alloc.h's rule: GQ_VEGAS_MIN_PER_HCUBE
 * each, the rest in proportion to sigma_h^beta (spread[] holds sigma_h^2
 * from pass_estimate) by exact integer weights; even when no hypercube has a
 * spread (g J constant) or a spread is not finite. */
static void reallocate(run *r)
{
  const gq_vegas_pass *p = &r->pass;
  double most = 0.0;
  for (uint32_t h = 0; h < p->hcubes; h++) {
    r->spread[h] = gq_vegas_spread_power(r->spread[h], r->beta);
    most = fmax(most, gq_vegas_spread_for_max(r->spread[h]));
  }
  if (!gq_vegas_proportional(most)) {
    for (uint32_t h = 0; h < p->hcubes; h++)
      r->counts[h] = r->per_pass / p->hcubes + (h < r->per_pass % p->hcubes);
    return;
  }
  uint64_t total = 0;
  for (uint32_t h = 0; h < p->hcubes; h++) {
    r->counts[h] = gq_vegas_weight(r->spread[h], most); /* the weight, for now */
    total += r->counts[h];
  }
  const uint64_t spare = r->per_pass - (uint64_t)GQ_VEGAS_MIN_PER_HCUBE * p->hcubes;
  uint64_t running = 0, given = 0;
  for (uint32_t h = 0; h < p->hcubes; h++) {
    running += r->counts[h];
    const uint64_t upto = gq_vegas_spare_upto(spare, running, total);
    r->counts[h] = GQ_VEGAS_MIN_PER_HCUBE + (upto - given);
    given = upto;
  }
}

/* The next pass's first_quad from counts (the CPU backend's; the CUDA
 * backend's are computed on the device). */
static void quad_offsets(run *r)
{
  r->first_quad[0] = 0;
  for (uint32_t h = 0; h < r->pass.hcubes; h++)
    r->first_quad[h + 1] = r->first_quad[h] + (r->counts[h] + 3) / 4;
}

static int vegas(gq_context *ctx, const gq_integrand *f, const gq_mc_options *o, const gq_vegas_options *v,
                 gq_vegas_result *res)
{
  gq_mc_result *r = &res->mc;
  run state;
  int status = run_init(&state, f, o, v);
  if (status != GQ_SUCCESS)
    return status;
  gq_vegas_pass *p = &state.pass;
  res->strata = p->strata;
  res->bins = p->bins;
  const int passes = v->warmup + v->iterations;
  /* the averaged iterations: sum I/s^2, sum 1/s^2, and for chi^2 sum I^2/s^2;
   * iterations with no variance (g J constant) are averaged apart */
  double *estimates = malloc((size_t)v->iterations * sizeof *estimates);
  double *variances = malloc((size_t)v->iterations * sizeof *variances);
  if (!estimates || !variances) {
    free(estimates);
    free(variances);
    run_free(&state);
    return gq_fail(GQ_ENOMEM, "VEGAS: no memory for %d iterations", v->iterations);
  }
  /* on a GPU the run stays on the device; a share's passes (vegas_share.c)
   * merge every hypercube's sums on the host, as the CPU backend keeps them */
  const int shared = ctx->share.ranks > 1, cuda = ctx->backend == GQ_BACKEND_CUDA && !shared;
  gq_cuda_vegas *device = NULL;
  quad_offsets(&state);
  if (cuda) {
    gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
    status = gq_cuda_vegas_open(ctx->cuda, p, state.per_pass, state.beta, &device, &info);
    r->jit = info.jit;
    r->compile_ms = info.compile_ms;
  }
  const double t0 = gq_wall_ms();
  for (int pass = 0; pass < passes && status == GQ_SUCCESS; pass++) {
    p->pass = (unsigned)pass;
    gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
    gq_vegas_totals totals;
    if (cuda) {
      status = gq_cuda_vegas_sample(device, p, &totals, &info);
    } else {
      status = shared ? gq_vegas_shared_pass(ctx, p, &info) : gq_cpu_vegas_pass(p, &info);
      if (status == GQ_SUCCESS)
        pass_estimate(&state, &totals);
      if (pass == 0) {
        r->jit = info.jit;
        r->compile_ms = info.compile_ms;
      }
    }
    if (status != GQ_SUCCESS)
      break;
    r->kernel_ms += info.ms;
    const double estimate = totals.estimate, variance = totals.variance;
    r->n += totals.samples;
    if (!isfinite(estimate) || !isfinite(variance)) {
      status = gq_fail(GQ_EDOM, "f is not finite at some of the samples of iteration %d, or its sums overflow: "
                       "the estimate is %g", pass + 1, estimate);
      break;
    }
    if (pass >= v->warmup) {
      estimates[pass - v->warmup] = estimate;
      variances[pass - v->warmup] = variance;
    }
    gq_progress(ctx, (uint64_t)pass + 1, (uint64_t)passes, "iterations");
    if (o->progress) {
      const gq_mc_progress pr = {r->n, o->n, f->scale * estimate, fabs(f->scale) * sqrt(variance),
                                 gq_wall_ms() - t0};
      o->progress(&pr, o->progress_user);
    }
    if (pass + 1 < passes) {
      if (state.alpha > 0.0)
        for (int d = 0; d < p->dims; d++)
          refine_axis(state.edges + (size_t)d * (p->bins + 1), state.train + (size_t)d * p->bins,
                      state.train_weight + (size_t)d * p->bins, state.weight, p->bins, state.alpha);
      if (cuda) {
        status = gq_cuda_vegas_next(device, p);
      } else {
        reallocate(&state);
        quad_offsets(&state);
      }
    }
  }
  gq_cuda_vegas_close(device);
  run_free(&state);
  if (status == GQ_SUCCESS) {
    /* Iterations without variance are exact for g J (a constant): their plain
     * average is the estimate, with no error. */
    int exact = 0;
    double exact_sum = 0.0, wsum = 0.0, isum = 0.0;
    for (int i = 0; i < v->iterations; i++)
      if (variances[i] == 0.0) {
        exact++;
        exact_sum += estimates[i];
      } else {
        wsum += 1.0 / variances[i];
        isum += estimates[i] / variances[i];
      }
    const double mean = exact ? exact_sum / exact : isum / wsum, var = exact ? 0.0 : 1.0 / wsum;
    double chi2 = 0.0;
    for (int i = 0; i < v->iterations; i++)
      if (variances[i] > 0.0 && !exact)
        chi2 += (estimates[i] - mean) * (estimates[i] - mean) / variances[i];
    const int dof = v->iterations - 1;
    res->iterations = v->iterations;
    res->chi2_dof = dof > 0 ? chi2 / dof : 0.0;
    res->chi2_q = dof > 0 && !exact ? gsl_cdf_chisq_Q(chi2, (double)dof) : 1.0;
    r->mean = f->scale * mean;
    r->se = fabs(f->scale) * sqrt(var);
    r->sd = r->se * sqrt((double)r->n);
    r->ci_low = r->mean - Z95 * r->se;
    r->ci_high = r->mean + Z95 * r->se;
  }
  free(estimates);
  free(variances);
  return status;
}

int gq_mc_vegas(gq_context *ctx, const gq_integrand *f, const gq_mc_options *o, const gq_vegas_options *v,
                gq_vegas_result *res)
{
  if (!ctx || !f || !o || !v || !res)
    return gq_null_arg(__func__, !ctx ? "ctx" : !f ? "f" : !o ? "opt" : !v ? "v" : "result");
  memset(res, 0, sizeof *res);
  gq_mc_result_start(&res->mc, ctx, o);
  res->chi2_dof = res->chi2_q = NAN;
  int status = validate(f, o, v);
  gq_integrand *parsed;
  if (status != GQ_SUCCESS || (status = gq_mc_expression(&f, &parsed)) != GQ_SUCCESS)
    return status;
  status = vegas(ctx, f, o, v, res);
  gq_integrand_free(parsed);
  if (status != GQ_SUCCESS || (status = gq_mc_box_integral(&res->mc, o)) != GQ_SUCCESS)
    return status;
  gq_clear_error();
  return GQ_SUCCESS;
}
