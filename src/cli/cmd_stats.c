/* cmd_stats.c — `gpuquad stats A`: n, sum, mean, variances, sd, min/max with
 * their indices, L1/L2/Linf norms and NaN/Inf counts in one pass, checked
 * against an independent host reference fed the same chunks. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vectors.h"

void usage_stats(FILE *out)
{
  fputs("Usage: gpuquad stats A [OPTION]...\n"
        "       gpuquad stats --gen=KIND --n=N [OPTION]...\n"
        "Statistics of a vector in one pass: n, sum, mean, sample and population\n"
        "variance and sd, min and max with their indices, L1/L2/Linf norms, and the\n"
        "count of NaN and Inf.  Moments are double-double sums about one of the\n"
        "values, so ill-conditioned data (1e7 +- 0.1) keep their digits: the mean and\n"
        "the variances are within an ulp, whatever the thread count.  A statistic\n"
        "beyond the double range is inf, with a note that says it overflowed.\n"
        "\n",
        out);
  vec_usage_options(out, "the mean, sample sd, min and max, one a line");
}

/* The statistics that are infinite though every value was finite (or the
 * others omitted): overflow, named for the note. */
static void overflowed(const gq_stats_result *s, char *names, size_t size)
{
  const struct {
    const char *name;
    double value;
  } all[] = {{"sum", s->sum}, {"mean", s->mean}, {"sample variance", s->var_sample},
             {"population variance", s->var_population}, {"sample sd", s->sd_sample},
             {"population sd", s->sd_population}, {"L1", s->l1}, {"L2", s->l2}};
  names[0] = '\0';
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    if (isinf(all[k].value) && strlen(names) + strlen(all[k].name) + 3 < size) {
      if (names[0])
        strcat(names, ", ");
      strcat(names, all[k].name);
    }
}

static void print_variance(const char *label, double sample, double population)
{
  if (isnan(sample) && !isnan(population)) /* one value */
    printf("  %-12s undefined  (sample, of one value; population %.17g)\n", label, population);
  else
    printf("  %-12s %.17g  (sample; population %.17g)\n", label, sample, population);
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
  const int finished = vec_stats_finish(&run, &acc, &s);
  rc = vec_nan_report(&run, o.check, finished, s.n, s.nan_count, s.inf_count);
  if (rc != EXIT_OK)
    goto out;
  char over[160] = "";
  if (run.nan == GQ_NAN_OMIT || s.nan_count + s.inf_count == 0)
    overflowed(&s, over, sizeof over);
  vec_overflow_note(over);
  gq_ref_stats ref;
  memset(&ref, 0, sizeof ref);
  gq_check_outcome check = {GQ_CHECK_PASSED, 0, ""};
  if (o.check)
    gq_check_stats(&run.ref, &s, &ref, &check);
  const int passed = check.verdict == GQ_CHECK_PASSED;
  if (o.json || o.csv) {
    json_writer w;
    if ((rc = json_begin_as(&w, stdout, o.csv)) != EXIT_OK)
      goto out;
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
    if (*over)
      json_string(&w, "overflow", over);
    if (o.check) {
      json_number(&w, "reference_mean", ref.r.mean);
      json_number(&w, "reference_var_sample", ref.r.var_sample);
      json_number(&w, "reference_sd_sample", ref.r.sd_sample);
      json_number(&w, "tolerance_mean", ref.tol_mean);
      json_number(&w, "tolerance_var", ref.tol_var);
      json_number(&w, "tolerance_sd", ref.tol_sd);
      json_string(&w, "reference_method", "long double, same pass");
    }
    json_string(&w, "check", o.check ? (passed ? "passed" : "failed") : "skipped");
    vec_json_footer(&w, &run, ctx);
    json_end(&w);
  } else if (o.quiet) {
    printf("%.17g\n%.17g\n%.17g\n%.17g\n", s.mean, s.sd_sample, s.min, s.max);
  } else {
    printf("stats %s: n = %llu (%s, %s)\n", run.names[0], (unsigned long long)s.total, run.dtype, run.format);
    printf("  count        %llu  (%llu NaN, %llu Inf; %s)\n", (unsigned long long)s.n,
           (unsigned long long)s.nan_count, (unsigned long long)s.inf_count, run.nan_text);
    printf("  sum          %.17g\n", s.sum);
    printf("  mean         %.17g\n", s.mean);
    print_variance("variance", s.var_sample, s.var_population);
    print_variance("sd", s.sd_sample, s.sd_population);
    print_index("min", s.min, s.argmin);
    print_index("max", s.max, s.argmax);
    printf("  norms        L1 %.17g, L2 %.17g, Linf %.17g\n", s.l1, s.l2, s.linf);
    if (*over)
      printf("  overflow     %s: beyond DBL_MAX\n", over);
    if (o.check) {
      /* one value: the sample sd is undefined on both sides; compare the population's */
      const int one = s.n == 1;
      const double sd = one ? s.sd_population : s.sd_sample, ref_sd = one ? ref.r.sd_population : ref.r.sd_sample;
      printf("  reference    mean %.17g, %s sd %.17g  (long double sums, same pass)\n", ref.r.mean,
             one ? "population" : "sample", ref_sd);
      printf("  difference   mean %.3g (tolerance %.3g), sd %.3g (tolerance %.3g), min/max exact: %s\n",
             s.mean - ref.r.mean, ref.tol_mean, sd - ref_sd, ref.tol_sd, passed ? "ok" : "FAILED");
    }
    vec_print_footer(&run, ctx);
  }
  if (!passed)
    rc = cli_error(EXIT_CHECK, "%s", check.message);
out:
  gq_context_free(ctx);
  return rc;
}
