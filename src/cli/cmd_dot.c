/* cmd_dot.c — `gpuquad dot A B`: sum a_i b_i, checked against long double
 * sums of the same chunks (the library's check module, check/check.h). */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "vectors.h"

void usage_dot(FILE *out)
{
  fputs("Usage: gpuquad dot A B [OPTION]...\n"
        "       gpuquad dot --gen=KIND --n=N [OPTION]...\n"
        "The dot product sum a_i*b_i of two vectors, in one pass, with compensated\n"
        "summation and each product's rounding error carried (TwoProd).\n"
        "\n",
        out);
  vec_usage_options(out, "the dot product");
}

int cmd_dot(int argc, char **argv, int first, double t0)
{
  vec_options o;
  gq_context *ctx;
  vec_run run;
  vec_acc acc;
  int rc = vec_command(VEC_DOT, argc, argv, first, t0, usage_dot, &o, &ctx, &run, &acc);
  if (!ctx)
    return rc;
  double dot;
  const int finished = gq_sum_finish(&acc.sum, run.nan, &dot);
  rc = vec_nan_report(&run, o.check, finished, acc.sum.n, acc.sum.nan_count,
                      acc.sum.posinf_count + acc.sum.neginf_count);
  if (rc != EXIT_OK)
    goto out;

  /* Σ|a*b| is summed plainly and can round below |dot| (which it bounds):
   * the larger of the two is the better estimate. */
  const double abs_sum = fmax(ldexp(acc.sum.abs_sum, (int)acc.sum.scale), fabs(dot));
  const int clean = run.nan == GQ_NAN_OMIT || acc.sum.nan_count + acc.sum.posinf_count + acc.sum.neginf_count == 0;
  const int overflow = clean && isinf(dot) && vec_overflow_note("the dot product");
  gq_ref_dot ref = {NAN, NAN, NAN, 0};
  gq_check_outcome check = {GQ_CHECK_PASSED, 0, ""};
  if (o.check)
    gq_check_dot(&run.ref, run.nan, dot, &ref, &check);
  const int passed = check.verdict == GQ_CHECK_PASSED;
  if (o.json || o.csv) {
    json_writer w;
    if ((rc = json_begin_as(&w, stdout, o.csv)) != EXIT_OK)
      goto out;
    json_string(&w, "command", "dot");
    json_string(&w, "a", run.names[0]);
    json_string(&w, "b", run.names[1]);
    json_string(&w, "format", run.format);
    json_string(&w, "dtype", run.dtype);
    json_uint(&w, "n", run.n);
    json_number(&w, "dot", dot);
    json_number(&w, "abs_sum", abs_sum);
    if (overflow)
      json_string(&w, "overflow", "dot");
    json_uint(&w, "nan_count", acc.sum.nan_count);
    json_uint(&w, "inf_count", acc.sum.posinf_count + acc.sum.neginf_count);
    json_string(&w, "nan_policy", run.nan_text);
    if (o.check) {
      json_number(&w, "reference", ref.value);
      json_string(&w, "reference_method", "long double, same pass");
      json_number(&w, "difference", dot - ref.value);
      json_number(&w, "tolerance", ref.tol);
    }
    json_string(&w, "check", o.check ? (passed ? "passed" : "failed") : "skipped");
    vec_json_footer(&w, &run, ctx);
    json_end(&w);
  } else if (o.quiet) {
    printf("%.17g\n", dot);
  } else {
    printf("dot %s . %s: n = %llu (%s, %s)\n", run.names[0], run.names[1], (unsigned long long)run.n, run.dtype,
           run.format);
    printf("  dot          %.17g%s\n", dot, overflow ? "  (overflow: beyond DBL_MAX)" : "");
    if (dot != 0.0 && isfinite(abs_sum / fabs(dot)))
      printf("  sum |a*b|    %.17g  (condition: sum|a*b| / |dot| = %.3g)\n", abs_sum, abs_sum / fabs(dot));
    else /* a dot of 0 (or NaN) has no relative condition number */
      printf("  sum |a*b|    %.17g\n", abs_sum);
    if (acc.sum.nan_count + acc.sum.posinf_count + acc.sum.neginf_count)
      printf("  non-finite   %llu NaN, %llu Inf terms (%s)\n", (unsigned long long)acc.sum.nan_count,
             (unsigned long long)(acc.sum.posinf_count + acc.sum.neginf_count), run.nan_text);
    if (o.check) {
      printf("  reference    %.17g  (long double sums, same pass)\n", ref.value);
      printf("  difference   %.3g  (tolerance %.3g): %s\n", dot - ref.value, ref.tol, passed ? "ok" : "FAILED");
    }
    vec_print_footer(&run, ctx);
  }
  if (!passed)
    rc = cli_error(EXIT_CHECK, "%s", check.message);
out:
  gq_context_free(ctx);
  return rc;
}
