/* cmd_stats.c — `gpuquad stats A`: n, sum, mean, variances, sd, min/max with
 * their indices, L1/L2/Linf norms and NaN/Inf counts in one pass, checked
 * against GSL's statistics and BLAS. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_statistics_double.h>

#include "vectors.h"

void usage_stats(FILE *out)
{
  fputs("Usage: gpuquad stats A [OPTION]...\n"
        "       gpuquad stats --gen=KIND --n=N [OPTION]...\n"
        "Statistics of a vector in one pass: n, sum, mean, sample and population\n"
        "variance and sd, min and max with their indices, L1/L2/Linf norms, and the\n"
        "count of NaN and Inf.  Moments are merged with Chan's formulas, so ill-\n"
        "conditioned data (1e7 +- 0.1) keep their digits.\n"
        "\n",
        out);
  vec_usage_options(out);
}

typedef struct {
  gq_stats_result r;
  double tol_sum, tol_mean, tol_var, tol_sd, tol_l1, tol_l2;
} stats_ref;

/* GSL on the values the policy keeps, and the tolerances its own error
 * bounds give (u = 2^-53, m values):
 *   sum   ddot with ones (plain): gamma_m L1
 *   mean  gsl_stats_mean's running mean m += (x - m)/i: the rounding of step
 *         i survives with weight i/m, so |err| <= (m/2 + 2) u |mean| + u Linf
 *   var   gsl_stats_variance (two-pass about that mean): gamma_(m+2) var plus
 *         the mean's error squared twice;  sd = sqrt(var): half of var's
 *         relative error
 *   min/max and their indices, Linf: exact;  L1 dasum: gamma_m;  L2 dnrm2:
 *   gamma_(m+4). */
static int reference(const vec_run *run, gq_nan_policy nan, stats_ref *s)
{
  const size_t n = run->n;
  double *x = malloc((n ? n : 1) * sizeof *x), *ones = malloc((n ? n : 1) * sizeof *ones);
  if (!x || !ones) {
    free(x);
    free(ones);
    return -1;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (nan != GQ_NAN_OMIT || isfinite(run->h_x[i])) {
      x[m] = run->h_x[i];
      ones[m++] = 1.0;
    }
  gq_stats_result *r = &s->r;
  r->n = m;
  gsl_vector_const_view vx = gsl_vector_const_view_array(x, m), v1 = gsl_vector_const_view_array(ones, m);
  const double u = DBL_EPSILON / 2, gm = (double)(m + 2) * u;
  r->sum = 0.0;
  r->l1 = r->l2 = r->linf = 0.0;
  r->mean = r->var_sample = r->var_population = r->sd_sample = r->sd_population = r->min = r->max = NAN;
  r->argmin = r->argmax = GQ_NO_INDEX;
  if (m > 0) {
    gsl_blas_ddot(&vx.vector, &v1.vector, &r->sum);
    r->l1 = gsl_blas_dasum(&vx.vector);
    r->l2 = gsl_blas_dnrm2(&vx.vector);
    r->linf = fabs(x[gsl_blas_idamax(&vx.vector)]);
    r->mean = gsl_stats_mean(x, 1, m);
    size_t imin, imax;
    gsl_stats_minmax_index(&imin, &imax, x, 1, m);
    r->min = x[imin];
    r->max = x[imax];
    r->argmin = imin;
    r->argmax = imax;
    if (m > 1) {
      r->var_sample = gsl_stats_variance(x, 1, m);
      r->sd_sample = gsl_stats_sd(x, 1, m);
      r->var_population = r->var_sample * ((double)(m - 1) / (double)m);
      r->sd_population = sqrt(r->var_population);
    } else {
      r->var_population = r->sd_population = 0.0;
    }
  }
  /* Indices in the kept values -> indices in the data. */
  if (nan == GQ_NAN_OMIT && m < n)
    for (size_t i = 0, k = 0; i < n; i++)
      if (isfinite(run->h_x[i])) {
        if (k == r->argmin) r->argmin = i;
        if (k == r->argmax) r->argmax = i;
        k++;
      }
  s->tol_sum = gm * r->l1 + 4 * u * fabs(r->sum);
  s->tol_mean = ((double)m / 2 + 2) * u * fabs(r->mean) + u * r->linf;
  s->tol_var = gm * r->var_sample + 2 * s->tol_mean * s->tol_mean;
  s->tol_sd = r->sd_sample > 0 ? s->tol_var / (2 * r->sd_sample) + 2 * u * r->sd_sample : s->tol_var;
  s->tol_l1 = gm * r->l1;
  s->tol_l2 = ((double)m + 4) * u * r->l2;
  free(x);
  free(ones);
  return 0;
}

static int compare(const gq_stats_result *g, const stats_ref *s)
{
  const gq_stats_result *r = &s->r;
  return vec_agree(g->sum, r->sum, s->tol_sum) && vec_agree(g->mean, r->mean, s->tol_mean) &&
         vec_agree(g->var_sample, r->var_sample, s->tol_var) &&
         vec_agree(g->var_population, r->var_population, s->tol_var) &&
         vec_agree(g->sd_sample, r->sd_sample, s->tol_sd) && vec_agree(g->min, r->min, 0.0) &&
         vec_agree(g->max, r->max, 0.0) && g->argmin == r->argmin && g->argmax == r->argmax &&
         vec_agree(g->l1, r->l1, s->tol_l1) && vec_agree(g->l2, r->l2, s->tol_l2) &&
         vec_agree(g->linf, r->linf, 0.0);
}

static void print_index(const char *label, double v, uint64_t i)
{
  if (i == GQ_NO_INDEX)
    printf("  %-12s %.17g\n", label, v);
  else
    printf("  %-12s %.17g  (index %llu)\n", label, v, (unsigned long long)i);
}

int cmd_stats(int argc, char **argv, int first, double t0)
{
  vec_options o;
  gq_context *ctx;
  vec_run run;
  vec_acc acc;
  int rc = vec_command(VEC_STATS, argc, argv, first, t0, usage_stats, &o, &ctx, &run, &acc);
  if (!ctx)
    return rc;
  gq_stats_result s;
  if (o.check && run.nan == GQ_NAN_PROPAGATE && acc.stats.nan_count + acc.stats.posinf_count + acc.stats.neginf_count) {
    rc = cli_error(EXIT_USAGE, "--check with NaN or Inf in the data needs --nan=omit (GSL does not propagate them alike)");
    goto out;
  }
  const int finished = gq_stats_finish(&acc.stats, run.nan, &s);
  rc = vec_nan_report(&run, finished, s.nan_count, s.inf_count);
  if (rc != EXIT_OK)
    goto out;
  stats_ref ref;
  int passed = 1;
  if (o.check) {
    if (reference(&run, run.nan, &ref) != 0) {
      rc = cli_error(EXIT_RUNTIME, "out of host memory for the reference");
      goto out;
    }
    passed = compare(&s, &ref);
  }
  if (o.json) {
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "command", "stats");
    json_string(&w, "input", run.names[0]);
    json_string(&w, "format", run.format);
    json_string(&w, "dtype", run.dtype);
    json_uint(&w, "total", s.total);
    json_uint(&w, "n", s.n);
    json_number(&w, "sum", s.sum);
    json_number(&w, "mean", s.mean);
    json_number(&w, "var_sample", s.var_sample);
    json_number(&w, "var_population", s.var_population);
    json_number(&w, "sd_sample", s.sd_sample);
    json_number(&w, "sd_population", s.sd_population);
    json_number(&w, "min", s.min);
    if (s.argmin != GQ_NO_INDEX) json_uint(&w, "argmin", s.argmin);
    json_number(&w, "max", s.max);
    if (s.argmax != GQ_NO_INDEX) json_uint(&w, "argmax", s.argmax);
    json_number(&w, "l1", s.l1);
    json_number(&w, "l2", s.l2);
    json_number(&w, "linf", s.linf);
    json_uint(&w, "nan_count", s.nan_count);
    json_uint(&w, "inf_count", s.inf_count);
    json_string(&w, "nan_policy", run.nan_text);
    if (o.check) {
      json_number(&w, "reference_mean", ref.r.mean);
      json_number(&w, "reference_sd_sample", ref.r.sd_sample);
      json_number(&w, "tolerance_mean", ref.tol_mean);
      json_number(&w, "tolerance_sd", ref.tol_sd);
      json_string(&w, "reference_method", "gsl_stats");
    }
    json_string(&w, "check", o.check ? (passed ? "passed" : "failed") : "skipped");
    vec_json_footer(&w, &run, ctx);
    json_end(&w);
  } else {
    printf("stats %s: n = %llu (%s, %s)\n", run.names[0], (unsigned long long)s.total, run.dtype, run.format);
    printf("  count        %llu  (%llu NaN, %llu Inf; %s)\n", (unsigned long long)s.n,
           (unsigned long long)s.nan_count, (unsigned long long)s.inf_count, run.nan_text);
    printf("  sum          %.17g\n", s.sum);
    printf("  mean         %.17g\n", s.mean);
    printf("  variance     %.17g  (sample; population %.17g)\n", s.var_sample, s.var_population);
    printf("  sd           %.17g  (sample; population %.17g)\n", s.sd_sample, s.sd_population);
    print_index("min", s.min, s.argmin);
    print_index("max", s.max, s.argmax);
    printf("  norms        L1 %.17g, L2 %.17g, Linf %.17g\n", s.l1, s.l2, s.linf);
    if (o.check) {
      printf("  reference    mean %.17g, sd %.17g  (gsl_stats_mean, gsl_stats_sd)\n", ref.r.mean, ref.r.sd_sample);
      printf("  difference   mean %.3g (tolerance %.3g), sd %.3g (tolerance %.3g), min/max exact: %s\n",
             s.mean - ref.r.mean, ref.tol_mean, s.sd_sample - ref.r.sd_sample, ref.tol_sd,
             passed ? "ok" : "FAILED");
    }
    vec_print_footer(&run, ctx);
  }
  if (!passed)
    rc = cli_error(EXIT_CHECK, "check failed: a statistic differs from GSL beyond its tolerance (see --json)");
out:
  vec_run_free(&run);
  gq_context_free(ctx);
  return rc;
}
