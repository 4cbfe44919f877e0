/* mc.c — gq_mc_mean: options -> batches on a backend -> mean, standard
 * deviation, standard error, confidence interval, integral.
 *
 * Samples are drawn in batches of whole Philox quads.  Without a tolerance a
 * batch is as large as a backend takes in one go (a GPU launch of up to 2^34
 * samples, a CPU pass of 2^24); with one, batches start at 2^16 samples and
 * double, so the run stops soon after the standard error falls below it.
 * Either schedule depends on the options only, never on timing or on the
 * progress callback, so a run is reproducible.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "lib/expr/expr.h"

enum { PILOT = 64 }; /* samples of the pilot run that sets the shift K */
#define FIRST_BATCH (UINT64_C(1) << 16)
#define MAX_BATCH_CPU (UINT64_C(1) << 24)
#define MAX_BATCH_GPU (UINT64_C(1) << 34)
#define Z95 1.959963984540054 /* the 97.5% quantile of N(0, 1) */

int gq_mc_options_init(gq_mc_options *opt)
{
  if (!opt)
    return gq_null_arg(__func__, "opt");
  memset(opt, 0, sizeof *opt);
  opt->dims = 1;
  for (int d = 0; d < GQ_MC_MAX_DIMS; d++)
    opt->b[d] = 1.0;
  opt->dist = GQ_MC_UNIFORM;
  opt->n = 1000000;
  opt->precision = GQ_PRECISION_DOUBLE;
  return GQ_SUCCESS;
}

/* The widths' product by frexp: mantissas stay in [1/2, 1), exponents add, so
 * a box of sixteen widths of 1e300 has a volume, and volume * mean rounds
 * once at the end. */
void gq_mc_volume(const double *width, int dims, double *mantissa, int *exponent)
{
  double m = 1.0;
  int e = 0;
  for (int d = 0; d < dims; d++) {
    int k;
    m *= frexp(width[d], &k);
    e += k;
    m = frexp(m, &k);
    e += k;
  }
  *mantissa = m;
  *exponent = e;
}

double gq_mc_times_volume(double x, double mantissa, int exponent)
{
  if (!isfinite(x))
    return x * mantissa;
  int k;
  const double xm = frexp(x, &k);
  return ldexp(xm * mantissa, k + exponent);
}

int gq_mc_validate(const gq_integrand *f, const gq_mc_options *o)
{
  if (o->dims < 1 || o->dims > GQ_MC_MAX_DIMS)
    return gq_fail(GQ_EINVAL, "the dimension must be between 1 and %d (got %d)", GQ_MC_MAX_DIMS, o->dims);
  if (o->n < 2 || o->n > GQ_MC_MAX_N)
    return gq_fail(GQ_EINVAL, "n must be between 2 (a variance needs two samples) and 2^63");
  if (o->dist != GQ_MC_UNIFORM && o->dist != GQ_MC_NORMAL)
    return gq_fail(GQ_EINVAL, "unknown distribution %d", (int)o->dist);
  if (o->precision != GQ_PRECISION_DOUBLE && o->precision != GQ_PRECISION_FLOAT)
    return gq_fail(GQ_EINVAL, "unknown precision %d", (int)o->precision);
  if (!(o->tol >= 0.0) || isinf(o->tol))
    return gq_fail(GQ_EINVAL, "the tolerance must be a finite number >= 0");
  if (gq_integrand_dims(f) > o->dims)
    return gq_fail(GQ_EINVAL, "the integrand uses %d variables but the dimension is %d", gq_integrand_dims(f),
                   o->dims);
  if (o->dist == GQ_MC_UNIFORM)
    for (int d = 0; d < o->dims; d++) {
      if (!isfinite(o->a[d]) || !isfinite(o->b[d]))
        return gq_fail(GQ_EINVAL, "the limits of dimension %d must be finite (a = %g, b = %g)", d + 1, o->a[d],
                       o->b[d]);
      if (!isfinite(o->b[d] - o->a[d]))
        return gq_fail(GQ_EINVAL, "b - a overflows a double in dimension %d (a = %g, b = %g)", d + 1, o->a[d],
                       o->b[d]);
      if (o->a[d] > o->b[d])
        return gq_fail(GQ_EINVAL, "a > b in dimension %d (a = %.17g, b = %.17g)", d + 1, o->a[d], o->b[d]);
    }
  return GQ_SUCCESS;
}

/* K: the mean of g over the first samples, evaluated on the host in double. */
double gq_mc_pilot_shift(const gq_mc_batch *p, uint64_t n)
{
  double xs[GQ_MC_MAX_DIMS][PILOT];
  double *x[GQ_MC_MAX_DIMS];
  for (int d = 0; d < GQ_MC_MAX_DIMS; d++)
    x[d] = xs[d];
  const int count = n < PILOT ? (int)n : PILOT;
  gq_mc_points(p, 0, count, x);
  double sum = 0.0, first = 0.0;
  int all_equal = 1;
  for (int k = 0; k < count; k++) {
    double v[GQ_EXPR_MAX_DIMS] = {0};
    for (int d = 0; d < p->dims; d++)
      v[d] = xs[d][k];
    const double g = gq_expr_eval(p->f->g, v);
    if (k == 0)
      first = g;
    all_equal &= g == first;
    sum += g;
  }
  /* a constant f is its own shift, exactly: a mean rounded by an ulp would
   * leave (g - K)^2 of 1e200 overflowing */
  const double shift = all_equal ? first : sum / count;
  return isfinite(shift) ? shift : 0.0;
}

/* mean, sd, se of f from the shifted sums of g over n samples. */
static void finish(const gq_mc_moments *m, double shift, double scale, uint64_t n, double *mean, double *sd,
                   double *se)
{
  const double N = (double)n;
  const double s1 = gq_csum_value(m->s1), s2 = gq_csum_value(m->s2);
  /* an overflowing sum of squares (Inf, or NaN once compensated) is an
   * infinite variance, not (by fmax of a NaN) a zero one */
  const double var = isfinite(s2) ? fmax(0.0, (s2 - s1 * (s1 / N)) / (N - 1.0)) : INFINITY;
  *mean = scale * (shift + s1 / N); /* exact scaling: scale is a power of two */
  *sd = fabs(scale) * sqrt(var);
  *se = *sd / sqrt(N);
}

void gq_mc_result_start(gq_mc_result *r, const gq_context *ctx, const gq_mc_options *o)
{
  memset(r, 0, sizeof *r);
  r->mean = r->sd = r->se = r->ci_low = r->ci_high = r->integral = r->integral_se = r->volume = NAN;
  r->seed = o->seed;
  r->backend = ctx->backend;
  r->precision = o->precision;
}

/* Built-ins are compiled ahead of time for the trapezoid grid only; Monte
 * Carlo runs them as the expression of their formula. */
int gq_mc_expression(const gq_integrand **f, gq_integrand **parsed)
{
  *parsed = NULL;
  if (!gq_integrand_is_builtin(*f))
    return GQ_SUCCESS;
  const int status = gq_integrand_parse(gq_integrand_formula(*f), NULL, 0, 1, parsed, NULL);
  if (status == GQ_SUCCESS)
    *f = *parsed;
  return status;
}

int gq_mc_box_integral(gq_mc_result *r, const gq_mc_options *o)
{
  double width[GQ_MC_MAX_DIMS], mantissa;
  int exponent;
  for (int d = 0; d < o->dims; d++)
    width[d] = o->b[d] - o->a[d];
  gq_mc_volume(width, o->dims, &mantissa, &exponent);
  r->volume = gq_mc_times_volume(1.0, mantissa, exponent);
  r->integral = gq_mc_times_volume(r->mean, mantissa, exponent);
  r->integral_se = gq_mc_times_volume(r->se, mantissa, exponent);
  if (!isfinite(r->integral) || !isfinite(r->integral_se))
    return gq_fail(GQ_EDOM, "the integral overflows a double: the mean %g (standard error %g) times the volume of "
                            "the box, %g",
                   r->mean, r->se, r->volume);
  return GQ_SUCCESS;
}

static int mc_mean(gq_context *ctx, const gq_integrand *f, const gq_mc_options *o, gq_mc_result *r)
{
  gq_mc_result_start(r, ctx, o);
  int status = gq_mc_validate(f, o);
  if (status != GQ_SUCCESS)
    return status;
  gq_integrand *parsed;
  if ((status = gq_mc_expression(&f, &parsed)) != GQ_SUCCESS)
    return status;

  gq_mc_batch p;
  memset(&p, 0, sizeof p);
  p.f = f;
  p.dims = o->dims;
  p.dist = o->dist;
  p.precision = o->precision;
  p.seed = o->seed;
  p.blocks = o->blocks;
  p.deterministic = ctx->deterministic;
  for (int d = 0; d < o->dims; d++) {
    p.a[d] = o->dist == GQ_MC_UNIFORM ? o->a[d] : 0.0;
    p.w[d] = o->dist == GQ_MC_UNIFORM ? o->b[d] - o->a[d] : 1.0;
  }
  double volume_mantissa;
  int volume_exponent;
  gq_mc_volume(p.w, o->dims, &volume_mantissa, &volume_exponent);
  p.shift = gq_mc_pilot_shift(&p, o->n);

  /* deterministic: the CPU's batches on either backend, so that both round
   * the same exact batch sums (and --tol stops both at the same n) */
  const uint64_t max_batch = ctx->backend == GQ_BACKEND_CUDA && !ctx->deterministic ? MAX_BATCH_GPU : MAX_BATCH_CPU;
  uint64_t batch = o->tol > 0.0 ? FIRST_BATCH : max_batch;
  gq_mc_moments total = gq_mc_moments_zero();
  uint64_t done = 0;
  double mean = NAN, sd = NAN, se = NAN;
  const double t0 = gq_wall_ms();
  while (done < o->n) {
    p.first = done;
    p.count = o->n - done < batch ? o->n - done : batch;
    gq_mc_moments m;
    gq_grid_info info = {0.0, 0.0, GQ_JIT_NONE};
    status = gq_shared_mc_batch(ctx, &p, &m, &info); /* the backend's, or this rank's share combined */
    if (status != GQ_SUCCESS)
      break;
    if (done == 0) {
      r->jit = info.jit;
      r->compile_ms = info.compile_ms;
    }
    r->kernel_ms += info.ms;
    gq_mc_moments_merge(&total, m);
    done += p.count;
    finish(&total, p.shift, f->scale, done, &mean, &sd, &se);
    if (o->progress) {
      const gq_mc_progress pr = {done, o->n, mean, se, gq_wall_ms() - t0};
      o->progress(&pr, o->progress_user);
    }
    gq_progress(ctx, done, o->n, "samples");
    if (o->tol > 0.0 && se < o->tol) {
      r->stopped_by_tol = 1;
      if (done < o->n) /* ended early: the task's end */
        gq_progress(ctx, done, done, "samples");
      break;
    }
    if (batch < max_batch)
      batch *= 2;
  }
  gq_integrand_free(parsed);
  if (status != GQ_SUCCESS)
    return status;

  r->n = done;
  r->mean = mean;
  r->sd = sd;
  r->se = se;
  r->ci_low = mean - Z95 * se;
  r->ci_high = mean + Z95 * se;
  r->volume = gq_mc_times_volume(1.0, volume_mantissa, volume_exponent);
  r->integral = gq_mc_times_volume(mean, volume_mantissa, volume_exponent);
  r->integral_se = gq_mc_times_volume(se, volume_mantissa, volume_exponent);
  if (!isfinite(mean))
    return gq_fail(GQ_EDOM, "f is not finite at some of the sampled points: the mean is %s",
                   isnan(mean) ? "NaN" : mean > 0 ? "+Inf" : "-Inf");
  if (!isfinite(sd))
    return gq_fail(GQ_EDOM, "the variance of f overflows a double: mean = %g", mean);
  if (!isfinite(r->integral) || !isfinite(r->integral_se))
    return gq_fail(GQ_EDOM,
                   "the integral overflows a double: the mean %g (standard error %g) times the volume of "
                   "the box, about 10^%.1f",
                   mean, se, log10(volume_mantissa) + volume_exponent * log10(2.0));
  gq_clear_error();
  return GQ_SUCCESS;
}

/* Samples spread by more than about 1e154 overflow the sum of their squares
 * though the sd may well fit (1e200 x on [0, 1]): the same samples of
 * 2^-VARIANCE_HEADROOM f, whose squares' sum over any n cannot overflow
 * (2 * DBL_MAX / 2^540 squared is 1e292), then every moment times 2^540,
 * exactly.  Values below 2^-534 that the scaling loses are below the spread's
 * rounding by hundreds of orders of magnitude. */
enum { VARIANCE_HEADROOM = 540 };

int gq_mc_mean(gq_context *ctx, const gq_integrand *f, const gq_mc_options *o, gq_mc_result *r)
{
  if (!ctx || !f || !o || !r)
    return gq_null_arg(__func__, !ctx ? "ctx" : !f ? "f" : !o ? "opt" : "result");
  int status = mc_mean(ctx, f, o, r);
  if (status != GQ_EDOM || (isfinite(r->mean) && isfinite(r->sd)) || r->n == 0)
    return status;
  /* A mean that is not finite is either a sample that is not (then so it
   * stays below, and the first verdict stands) or a sum that overflowed. */
  char first_error[512];
  snprintf(first_error, sizeof first_error, "%s", gq_last_error());
  const gq_mc_result first = *r;
  gq_integrand *small = NULL;
  if (gq_integrand_scaled(f, VARIANCE_HEADROOM, &small) != GQ_SUCCESS)
    return gq_fail(GQ_EDOM, "%s", first_error);
  status = mc_mean(ctx, small, o, r);
  gq_integrand_free(small);
  if (!isfinite(r->mean)) {
    *r = first;
    return gq_fail(GQ_EDOM, "%s", first_error);
  }
  double *moments[] = {&r->mean, &r->sd, &r->se, &r->ci_low, &r->ci_high, &r->integral, &r->integral_se};
  for (size_t i = 0; i < sizeof moments / sizeof moments[0]; i++)
    *moments[i] = ldexp(*moments[i], VARIANCE_HEADROOM);
  r->kernel_ms += first.kernel_ms;
  r->compile_ms += first.compile_ms;
  /* the scaled run's own verdicts name its scaled values: say them again */
  if (status != GQ_SUCCESS && status != GQ_EDOM)
    return status;
  if (!isfinite(r->sd))
    return gq_fail(GQ_EDOM, "the standard deviation of f overflows a double: mean = %g", r->mean);
  if (!isfinite(r->integral) || !isfinite(r->integral_se))
    return gq_fail(GQ_EDOM, "the integral overflows a double: the mean %g (standard error %g) times the volume "
                            "of the box, %g",
                   r->mean, r->se, r->volume);
  if (status != GQ_SUCCESS)
    return status;
  gq_clear_error();
  return GQ_SUCCESS;
}
