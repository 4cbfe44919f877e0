/* cmd_rms.c — `gpuquad rms A B`: sqrt(mean((a_i - b_i)^2)), max |a_i - b_i|
 * and ||a - b|| / ||a|| in one pass, checked against GSL's dnrm2. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_blas.h>

#include "vectors.h"

void usage_rms(FILE *out)
{
  fputs("Usage: gpuquad rms A B [OPTION]...\n"
        "       gpuquad rms --gen=KIND --n=N [OPTION]...\n"
        "The three numbers a convergence check needs, in one pass: the rms of a - b,\n"
        "max |a_i - b_i| and the relative change ||a - b|| / ||a||.\n"
        "\n",
        out);
  vec_usage_options(out);
}

/* GSL on the pairs the policy keeps: dnrm2 of d = a - b and of a (scaled
 * sums of squares, error within gamma_(n+2) relative), idamax of d; -1 when
 * out of memory. */
static int reference(const vec_run *run, gq_nan_policy nan, gq_rms_result *r)
{
  const size_t n = run->n;
  double *d = malloc((n ? n : 1) * sizeof *d), *a = malloc((n ? n : 1) * sizeof *a);
  if (!d || !a) {
    free(d);
    free(a);
    return -1;
  }
  size_t m = 0;
  for (size_t i = 0; d && a && i < n; i++) {
    const double di = run->h_x[i] - run->h_y[i];
    if (nan == GQ_NAN_OMIT && !(isfinite(di) && isfinite(run->h_x[i])))
      continue;
    d[m] = di;
    a[m++] = run->h_x[i];
  }
  r->n = m;
  r->rms = r->relative = NAN;
  r->max_abs = m ? NAN : 0.0;
  if (d && a && m > 0) {
    gsl_vector_const_view vd = gsl_vector_const_view_array(d, m), va = gsl_vector_const_view_array(a, m);
    const double nd = gsl_blas_dnrm2(&vd.vector), na = gsl_blas_dnrm2(&va.vector);
    r->rms = nd / sqrt((double)m);
    r->relative = na > 0 ? nd / na : NAN;
    r->max_abs = fabs(d[gsl_blas_idamax(&vd.vector)]);
  }
  free(d);
  free(a);
  return 0;
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
  const int finished = gq_rms_finish(&acc.rms, run.nan, &r);
  rc = vec_nan_report(&run, finished, r.nan_count, r.inf_count);
  if (rc != EXIT_OK)
    goto out;

  /* Tolerances: both sides are sums of squares, relative error at most
   * gamma_(n+2) for GSL's scaled dnrm2 plus a few ulp for ours; the maximum
   * is exact on both (a - b is one IEEE subtraction). */
  gq_rms_result ref = {0};
  double tol_rms = NAN, tol_rel = NAN;
  int passed = 1;
  if (o.check) {
    if (reference(&run, run.nan, &ref) != 0) {
      rc = cli_error(EXIT_RUNTIME, "out of host memory for the reference");
      goto out;
    }
    const double nu = ((double)ref.n + 4.0) * DBL_EPSILON / 2;
    tol_rms = nu * fabs(ref.rms);
    tol_rel = 2.0 * nu * fabs(ref.relative);
    passed = vec_agree(r.rms, ref.rms, tol_rms) && vec_agree(r.relative, ref.relative, tol_rel) &&
             vec_agree(r.max_abs, ref.max_abs, 0.0);
  }
  if (o.json) {
    json_writer w;
    json_begin(&w, stdout);
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
    if (o.check) {
      json_number(&w, "reference_rms", ref.rms);
      json_number(&w, "reference_max_abs", ref.max_abs);
      json_number(&w, "reference_relative", ref.relative);
      json_string(&w, "reference_method", "gsl_blas_dnrm2");
      json_number(&w, "tolerance_rms", tol_rms);
      json_number(&w, "tolerance_relative", tol_rel);
    }
    json_string(&w, "check", o.check ? (passed ? "passed" : "failed") : "skipped");
    vec_json_footer(&w, &run, ctx);
    json_end(&w);
  } else {
    printf("rms %s - %s: n = %llu (%s, %s)\n", run.names[0], run.names[1], (unsigned long long)run.n, run.dtype,
           run.format);
    printf("  rms          %.17g\n", r.rms);
    printf("  max |a-b|    %.17g\n", r.max_abs);
    printf("  relative     %.17g  (||a-b|| / ||a||)\n", r.relative);
    if (r.nan_count + r.inf_count)
      printf("  non-finite   %llu NaN, %llu Inf pairs (%s)\n", (unsigned long long)r.nan_count,
             (unsigned long long)r.inf_count, run.nan_text);
    if (o.check) {
      printf("  reference    rms %.17g, max %.17g, relative %.17g  (GSL dnrm2, idamax)\n", ref.rms, ref.max_abs,
             ref.relative);
      printf("  difference   rms %.3g (tolerance %.3g), relative %.3g (tolerance %.3g), max %.3g: %s\n",
             r.rms - ref.rms, tol_rms, r.relative - ref.relative, tol_rel, r.max_abs - ref.max_abs,
             passed ? "ok" : "FAILED");
    }
    vec_print_footer(&run, ctx);
  }
  if (!passed)
    rc = cli_error(EXIT_CHECK, "check failed: rms %.17g vs %.17g, relative %.17g vs %.17g, max %.17g vs %.17g",
                   r.rms, ref.rms, r.relative, ref.relative, r.max_abs, ref.max_abs);
out:
  vec_run_free(&run);
  gq_context_free(ctx);
  return rc;
}
