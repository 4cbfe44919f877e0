/* cmd_dot.c — `gpuquad dot A B`: sum a_i b_i, checked against gsl_blas_ddot. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_blas.h>

#include "vectors.h"

void usage_dot(FILE *out)
{
  fputs("Usage: gpuquad dot A B [OPTION]...\n"
        "       gpuquad dot --gen=KIND --n=N [OPTION]...\n"
        "The dot product sum a_i*b_i of two vectors, in one pass, with compensated\n"
        "summation and each product's rounding error carried (TwoProd).\n"
        "\n",
        out);
  vec_usage_options(out);
}

/* gsl_blas_ddot over the pairs the policy keeps (omit: both factors finite
 * and the product finite); -1 when out of memory. */
static int reference(const vec_run *run, size_t n, gq_nan_policy nan, double *abs_sum, size_t *used, double *dot)
{
  double *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
  if (!a || !b) {
    free(a);
    free(b);
    return -1;
  }
  size_t m = 0;
  *abs_sum = 0.0;
  for (size_t i = 0; a && b && i < n; i++) {
    const double t = run->h_x[i] * run->h_y[i];
    if (nan == GQ_NAN_OMIT && !isfinite(t))
      continue;
    a[m] = run->h_x[i];
    b[m++] = run->h_y[i];
    *abs_sum += fabs(t);
  }
  double r = NAN;
  if (a && b) {
    gsl_vector_const_view va = gsl_vector_const_view_array(a, m), vb = gsl_vector_const_view_array(b, m);
    r = 0.0;
    if (m > 0)
      gsl_blas_ddot(&va.vector, &vb.vector, &r);
  }
  free(a);
  free(b);
  *used = m;
  *dot = r;
  return 0;
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
  rc = vec_nan_report(&run, finished, acc.sum.nan_count,
                      acc.sum.posinf_count + acc.sum.neginf_count);
  if (rc != EXIT_OK)
    goto out;

  /* The reference is plain double: its error is at most gamma_n sum|a_i b_i|
   * with gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability, 3.1);
   * ours is within a few ulp of the exact value. */
  double ref = NAN, tol = NAN, ref_abs = NAN;
  int passed = 1;
  if (o.check) {
    size_t used;
    if (reference(&run, run.n, run.nan, &ref_abs, &used, &ref) != 0) {
      rc = cli_error(EXIT_RUNTIME, "out of host memory for the reference");
      goto out;
    }
    const double u = DBL_EPSILON / 2, nu = (double)used * u;
    tol = nu / (1.0 - nu) * ref_abs + 4.0 * u * fabs(dot);
    passed = vec_agree(dot, ref, tol);
  }
  if (o.json) {
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "command", "dot");
    json_string(&w, "a", run.names[0]);
    json_string(&w, "b", run.names[1]);
    json_string(&w, "format", run.format);
    json_string(&w, "dtype", run.dtype);
    json_uint(&w, "n", run.n);
    json_number(&w, "dot", dot);
    json_number(&w, "abs_sum", acc.sum.abs_sum);
    json_uint(&w, "nan_count", acc.sum.nan_count);
    json_uint(&w, "inf_count", acc.sum.posinf_count + acc.sum.neginf_count);
    json_string(&w, "nan_policy", run.nan_text);
    if (o.check) {
      json_number(&w, "reference", ref);
      json_string(&w, "reference_method", "gsl_blas_ddot");
      json_number(&w, "difference", dot - ref);
      json_number(&w, "tolerance", tol);
    }
    json_string(&w, "check", o.check ? (passed ? "passed" : "failed") : "skipped");
    vec_json_footer(&w, &run, ctx);
    json_end(&w);
  } else {
    printf("dot %s . %s: n = %llu (%s, %s)\n", run.names[0], run.names[1], (unsigned long long)run.n, run.dtype,
           run.format);
    printf("  dot          %.17g\n", dot);
    printf("  sum |a*b|    %.17g  (condition: sum|a*b| / |dot| = %.3g)\n", acc.sum.abs_sum,
           acc.sum.abs_sum / fabs(dot));
    if (acc.sum.nan_count + acc.sum.posinf_count + acc.sum.neginf_count)
      printf("  non-finite   %llu NaN, %llu Inf terms (%s)\n", (unsigned long long)acc.sum.nan_count,
             (unsigned long long)(acc.sum.posinf_count + acc.sum.neginf_count), run.nan_text);
    if (o.check) {
      printf("  reference    %.17g  (gsl_blas_ddot)\n", ref);
      printf("  difference   %.3g  (tolerance %.3g): %s\n", dot - ref, tol, passed ? "ok" : "FAILED");
    }
    vec_print_footer(&run, ctx);
  }
  if (!passed)
    rc = cli_error(EXIT_CHECK, "check failed: |dot - reference| = %.3g > tolerance %.3g", fabs(dot - ref), tol);
out:
  vec_run_free(&run);
  gq_context_free(ctx);
  return rc;
}
