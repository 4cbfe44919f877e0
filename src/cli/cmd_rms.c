/* cmd_rms.c — `gpuquad rms A B`: sqrt(mean((a_i - b_i)^2)), max |a_i - b_i|
 * and ||a - b|| / ||a|| in one pass, checked against long double sums of
 * the same chunks (the library's check module, check/check.h). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vectors.h"

void usage_rms(FILE *out)
{
  fputs("Usage: gpuquad rms A B [OPTION]...\n"
        "       gpuquad rms --gen=KIND --n=N [OPTION]...\n"
        "The three numbers a convergence check needs, in one pass: the rms of a - b,\n"
        "max |a_i - b_i| and the relative change ||a - b|| / ||a||.\n"
        "\n",
        out);
  vec_usage_options(out, "the rms, max |a-b| and the relative size, one a line");
}

int cmd_rms(int argc, char **argv, int first, double t0)
{
  vec_options o;
  gq_context *ctx;
  vec_run run;
  vec_acc acc;
  int rc = vec_command(VEC_RMS, argc, argv, first, t0, usage_rms, &o, &ctx, &run, &acc);
  if (!ctx)
    return rc;
  gq_rms_result r;
  const int finished = vec_rms_finish(&run, &acc, &r);
  rc = vec_nan_report(&run, o.check, finished, r.n, r.nan_count, r.inf_count);
  if (rc != EXIT_OK)
    goto out;

  char over[64] = "";
  if (run.nan == GQ_NAN_OMIT || r.nan_count + r.inf_count == 0) {
    if (isinf(r.rms)) strcat(over, "rms, ");
    if (isinf(r.max_abs)) strcat(over, "max |a-b|, ");
    if (isinf(r.relative)) strcat(over, "relative, ");
    if (*over) over[strlen(over) - 2] = '\0';
  }
  vec_overflow_note(over);
  gq_ref_rms ref;
  memset(&ref, 0, sizeof ref);
  gq_check_outcome check = {GQ_CHECK_PASSED, 0, ""};
  if (o.check)
    gq_check_rms(&run.ref, run.nan, &r, &ref, &check);
  const int passed = check.verdict == GQ_CHECK_PASSED;
  if (o.json || o.csv) {
    json_writer w;
    if ((rc = json_begin_as(&w, stdout, o.csv)) != EXIT_OK)
      goto out;
    json_string(&w, "command", "rms");
    json_string(&w, "a", run.names[0]);
    json_string(&w, "b", run.names[1]);
    json_string(&w, "format", run.format);
    json_string(&w, "dtype", run.dtype);
    json_uint(&w, "n", run.n);
    json_number(&w, "rms", r.rms);
    json_number(&w, "max_abs", r.max_abs);
    json_number(&w, "relative", r.relative);
    json_uint(&w, "nan_count", r.nan_count);
    json_uint(&w, "inf_count", r.inf_count);
    json_string(&w, "nan_policy", run.nan_text);
    if (*over)
      json_string(&w, "overflow", over);
    if (o.check) {
      json_number(&w, "reference_rms", ref.r.rms);
      json_number(&w, "reference_max_abs", ref.r.max_abs);
      json_number(&w, "reference_relative", ref.r.relative);
      json_string(&w, "reference_method", "long double, same pass");
      json_number(&w, "tolerance_rms", ref.tol_rms);
      json_number(&w, "tolerance_relative", ref.tol_relative);
    }
    json_string(&w, "check", o.check ? (passed ? "passed" : "failed") : "skipped");
    vec_json_footer(&w, &run, ctx);
    json_end(&w);
  } else if (o.quiet) {
    printf("%.17g\n%.17g\n%.17g\n", r.rms, r.max_abs, r.relative);
  } else {
    printf("rms %s - %s: n = %llu (%s, %s)\n", run.names[0], run.names[1], (unsigned long long)run.n, run.dtype,
           run.format);
    printf("  rms          %.17g\n", r.rms);
    printf("  max |a-b|    %.17g\n", r.max_abs);
    printf("  relative     %.17g  (||a-b|| / ||a||)\n", r.relative);
    if (r.nan_count + r.inf_count)
      printf("  non-finite   %llu NaN, %llu Inf pairs (%s)\n", (unsigned long long)r.nan_count,
             (unsigned long long)r.inf_count, run.nan_text);
    if (*over)
      printf("  overflow     %s: beyond DBL_MAX\n", over);
    if (o.check) {
      printf("  reference    rms %.17g, max %.17g, relative %.17g  (long double sums, same pass)\n", ref.r.rms,
             ref.r.max_abs, ref.r.relative);
      printf("  difference   rms %.3g (tolerance %.3g), relative %.3g (tolerance %.3g), max %.3g: %s\n",
             r.rms - ref.r.rms, ref.tol_rms, r.relative - ref.r.relative, ref.tol_relative,
             r.max_abs - ref.r.max_abs, passed ? "ok" : "FAILED");
    }
    vec_print_footer(&run, ctx);
  }
  if (!passed)
    rc = cli_error(EXIT_CHECK, "%s", check.message);
out:
  gq_context_free(ctx);
  return rc;
}
