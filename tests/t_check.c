/* t_check.c — the check module's verdicts (src/lib/check/check.h): a result
 * within the tolerance passes, one beyond it fails, and a check that nothing
 * can vouch for (no reference, a tolerance beyond the double range) is "not
 * made", with the message the CLI prints.  Data results come from the CPU
 * backend; the references from the module itself. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "lib/check/check.h"
#include "tap.h"

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void dot(void)
{
  const double x[] = {1.0, 2.0, 3.0}, y[] = {4.0, 5.0, 6.0};
  gq_data_ref ref;
  gq_data_ref_init(&ref, GQ_REF_DOT);
  gq_data_ref_feed(&ref, x, y, 3, 0);
  gq_ref_dot r;
  gq_check_outcome out;
  gq_check_dot(&ref, GQ_NAN_PROPAGATE, 32.0, &r, &out);
  tap_ok(out.verdict == GQ_CHECK_PASSED && out.has_reference && r.value == 32.0 && out.message[0] == '\0',
         "dot 32 against 1*4 + 2*5 + 3*6: passed (reference %.17g, tolerance %.3g)", r.value, r.tol);
  gq_check_dot(&ref, GQ_NAN_PROPAGATE, 32.0 + 1e-9, &r, &out);
  tap_ok(out.verdict == GQ_CHECK_FAILED && starts(out.message, "check failed: dot 32.00000000"),
         "dot 32 + 1e-9: failed (%s)", out.message);
  /* sum |a*b| = 2e600 is beyond the double range, and so is its bound */
  const double big[] = {1e300, -1e300}, ones[] = {1e300, 1e300};
  gq_data_ref_init(&ref, GQ_REF_DOT);
  gq_data_ref_feed(&ref, big, ones, 2, 0);
  gq_check_dot(&ref, GQ_NAN_PROPAGATE, 1.0, &r, &out);
  tap_ok(out.verdict == GQ_CHECK_NOT_MADE && starts(out.message, "check could not be made: the reference's error bound"),
         "a dot whose reference bound overflows: not made (%s)", out.message);
}

static void rms_and_stats(gq_context *cpu)
{
  const double a[] = {3.0, -4.0, 12.0}, b[] = {1.0, 1.0, 1.0};
  gq_rms_result got;
  gq_rms_diff(cpu, 3, a, b, &got);
  gq_data_ref ref;
  gq_data_ref_init(&ref, GQ_REF_RMS);
  gq_data_ref_feed(&ref, a, b, 3, 0);
  gq_ref_rms rr;
  gq_check_outcome out;
  gq_check_rms(&ref, GQ_NAN_PROPAGATE, &got, &rr, &out);
  tap_ok(out.verdict == GQ_CHECK_PASSED && rr.r.max_abs == 11.0, "rms %.17g, max %g: passed", got.rms, got.max_abs);
  got.max_abs = nextafter(11.0, 12.0); /* the maximum is exact: one ulp fails */
  gq_check_rms(&ref, GQ_NAN_PROPAGATE, &got, &rr, &out);
  tap_ok(out.verdict == GQ_CHECK_FAILED && starts(out.message, "check failed: rms "), "max one ulp off: failed (%s)",
         out.message);

  gq_stats_result s;
  gq_stats(cpu, 3, a, &s);
  gq_data_ref_init(&ref, GQ_REF_STATS);
  gq_data_ref_feed(&ref, a, NULL, 3, 0);
  gq_ref_stats rs;
  gq_check_stats(&ref, &s, &rs, &out);
  tap_ok(out.verdict == GQ_CHECK_PASSED && rs.r.sum == 11.0 && rs.r.argmax == 2, "stats of 3, -4, 12: passed");
  s.argmin = 0; /* an index is exact */
  gq_check_stats(&ref, &s, &rs, &out);
  tap_ok(out.verdict == GQ_CHECK_FAILED && starts(out.message, "check failed: a statistic differs"),
         "a wrong argmin: failed (%s)", out.message);
}

static void trapezoid(gq_context *cpu)
{
  gq_integrand *f = NULL;
  gq_integrand_parse("x^3", NULL, 0, 1, &f, NULL);
  gq_trapezoid_result r;
  gq_integrate_trapezoid(cpu, f, 0.0, 2.0, 1000, GQ_PRECISION_DOUBLE, &r);
  gq_reference ref;
  double tol = 0.0;
  gq_check_outcome out;
  int status = gq_check_rule(f, 0.0, 2.0, &r, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
  tap_ok(status == GQ_SUCCESS && out.verdict == GQ_CHECK_PASSED && out.has_reference && fabs(ref.value - 4.0) <= 1e-14 &&
             isfinite(tol),
         "x^3 on [0, 2], 1000 intervals: %.17g passed (reference %.17g, tolerance %.3g)", r.result, ref.value, tol);
  r.result += 1e-3;
  status = gq_check_rule(f, 0.0, 2.0, &r, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
  tap_ok(status == GQ_SUCCESS && out.verdict == GQ_CHECK_FAILED && starts(out.message, "check failed: |estimate"),
         "the estimate 1e-3 off: failed (%s)", out.message);
  gq_integrand_free(f);
  /* 1/x on [-1, 2] has no integral: no reference, no pass */
  gq_integrand_parse("1/x", NULL, 0, 1, &f, NULL);
  r.result = log(2.0);
  status = gq_check_rule(f, -1.0, 2.0, &r, GQ_PRECISION_DOUBLE, &ref, &tol, &out);
  tap_ok(status == GQ_SUCCESS && out.verdict == GQ_CHECK_NOT_MADE && !out.has_reference && isnan(tol) &&
             starts(out.message, "check could not be made: "),
         "1/x on [-1, 2]: not made (%s)", out.message);
  gq_integrand_free(f);
}

int main(void)
{
  gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
  if (!tap_ok(cpu != NULL, "CPU context"))
    return tap_done();
  dot();
  rms_and_stats(cpu);
  trapezoid(cpu);
  tap_ok(strcmp(gq_check_name(GQ_CHECK_PASSED), "passed") == 0 && strcmp(gq_check_name(GQ_CHECK_FAILED), "failed") == 0 &&
             strcmp(gq_check_name(GQ_CHECK_NOT_MADE), "not made") == 0,
         "verdict names: passed, failed, not made");
  gq_context_free(cpu);
  return tap_done();
}
