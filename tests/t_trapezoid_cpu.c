/* t_trapezoid_cpu.c — the CPU backend against the trapezoid sum computed here
 * in double-double (1-2 ulp), against the exact integrals (the check), and
 * every invalid argument. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/lib/internal.h"
#include "exact_sum.h"
#include "tap.h"

static const gq_integrand *cur;
static double eval_cur(double x) { return gq_integrand_eval(cur, x); }

/* Issue 13: an integral that does not exist has no reference; one that does
 * (an integrable singularity) keeps its reference; the tolerance cannot grow
 * with the error; rounding below the smallest normal; NULL. */
static gq_integrand *parse1(const char *text)
{
  gq_integrand *f = NULL;
  if (gq_integrand_parse(text, NULL, 0, 1, &f, NULL) != GQ_SUCCESS)
    printf("# cannot parse %s: %s\n", text, gq_last_error());
  return f;
}

static void trust(gq_context *ctx)
{
  const struct {
    const char *text;
    double a, b;
  } divergent[] = {
    {"tgamma(-x)", 0.1, 2.9}, {"tan(x)", 0, 3},           {"1/x", -1, 2},          {"1/sin(x)", 0.5, 4},
    {"1/x^2", -1, 1},         {"abs(x-0.3)^-1.01", 0, 1}, {"1/(x-0.5)^2", 0, 1},   {"sin(1/x)/x", 1e-300, 1},
    {"1/x", 2, -1},           {"exp(1/(x-0.7))", 0, 1},
  };
  for (size_t i = 0; i < sizeof divergent / sizeof divergent[0]; i++) {
    gq_integrand *f = parse1(divergent[i].text);
    gq_reference ref;
    const int st = f ? gq_integrate_reference(f, divergent[i].a, divergent[i].b, &ref) : GQ_EPARSE;
    tap_ok(st == GQ_EDOM && strstr(gq_last_error(), "no reference"), "%s on [%g, %g]: no reference (%s)",
           divergent[i].text, divergent[i].a, divergent[i].b, gq_last_error());
    double tol;
    gq_trapezoid_result r;
    memset(&r, 0, sizeof r);
    const int cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
    tap_ok(cs == GQ_ECHECK && isnan(tol), "%s: checking against it is no pass", divergent[i].text);
    gq_integrand_free(f);
  }

  const struct {
    const char *text;
    double a, b, exact;
  } singular[] = {
    {"1/sqrt(x)", 0, 1, 2},
    {"log(x)", 0, 1, -1},
    {"1/sqrt(abs(x))", -1, 1, 4}, /* the pole on QAGS's first midpoint */
    {"1/sqrt(abs(x-0.5))", 0, 1, 2.8284271247461901},
    {"abs(x-0.3)^-0.5", 0, 1, 2.7687651680784834}, /* 2 (sqrt(0.3) + sqrt(0.7)) */
    {"1/sqrt(1-x^2)", -1, 1, 3.1415926535897932},
  };
  for (size_t i = 0; i < sizeof singular / sizeof singular[0]; i++) {
    gq_integrand *f = parse1(singular[i].text);
    gq_reference ref;
    const int st = f ? gq_integrate_reference(f, singular[i].a, singular[i].b, &ref) : GQ_EPARSE;
    tap_ok(st == GQ_SUCCESS && fabs(ref.value - singular[i].exact) <= 1e-10 && isfinite(ref.abserr) &&
           ref.abserr < 1e-9, "%s on [%g, %g]: reference %.17g +/- %.2g", singular[i].text, singular[i].a,
           singular[i].b, ref.value, ref.abserr);
    gq_integrand_free(f);
  }

  /* A singularity between the grid points: T is off by 1e143 and so is its
   * error estimate; the capped tolerance does not excuse it. */
  gq_integrand *f = parse1("1/sqrt(x)");
  gq_trapezoid_result r;
  gq_reference ref;
  double tol;
  int st = gq_integrate_trapezoid(ctx, f, 1e-300, 1, 1000000, GQ_PRECISION_DOUBLE, &r);
  int rs = gq_integrate_reference(f, 1e-300, 1, &ref);
  int cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
  tap_ok(st == GQ_SUCCESS && rs == GQ_SUCCESS && cs == GQ_ECHECK && tol <= 0.26 && strstr(gq_last_error(), "converged"),
         "1/sqrt(x) on [1e-300, 1]: T = %.3g fails, tolerance %.3g (%s)", r.result, tol, gq_last_error());
  gq_integrand_free(f);
  cur = gq_integrand_builtin("sin");
  gq_integrate_trapezoid(ctx, cur, 0, 3.14159265358979323846, 2, GQ_PRECISION_DOUBLE, &r);
  gq_integrate_reference(cur, 0, 3.14159265358979323846, &ref);
  cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
  tap_ok(cs == GQ_ECHECK && tol <= 0.25 + 1e-12, "sin on [0, pi] with n = 2: %.4f is 21%% off: fails (tol %.3g)",
         r.result, tol);

  /* QAGS misses the peak of gauss on [-1e5, 1e5]; the exact integral bounds
   * the integral of |f| from below, so the check still has a scale. */
  cur = gq_integrand_builtin("gauss");
  gq_integrate_trapezoid(ctx, cur, -1e5, 1e5, 1000000, GQ_PRECISION_DOUBLE, &r);
  rs = gq_integrate_reference(cur, -1e5, 1e5, &ref);
  cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
  tap_ok(rs == GQ_SUCCESS && cs == GQ_SUCCESS && ref.l1norm >= fabs(ref.value),
         "gauss on [-1e5, 1e5]: T = %.17g passes (tol %.3g, integral of |f| %.17g)", r.result, tol, ref.l1norm);

  /* Rounding below the smallest normal number, and exactly zero. */
  const char *tiny[] = {"2^-1074*x", "0", "1e-300*1e-20*x", "x*0"};
  for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
    for (int p = 0; p < 2; p++) {
      f = parse1(tiny[i]);
      st = gq_integrate_trapezoid(ctx, f, 0, 1, 1000, (gq_precision)p, &r);
      rs = gq_integrate_reference(f, 0, 1, &ref);
      cs = gq_trapezoid_check(&r, (gq_precision)p, &ref, &tol);
      tap_ok(st == GQ_SUCCESS && rs == GQ_SUCCESS && cs == GQ_SUCCESS && tol > 0 && tol < 1e-30,
             "%s %s: %.3g vs %.3g within %.3g", tiny[i], p ? "float" : "double", r.result, ref.value, tol);
      gq_integrand_free(f);
    }

  /* An oscillating f that uses up QAGS's first 2000 subintervals. */
  f = parse1("sin(x)");
  rs = gq_integrate_reference(f, 0, 1e5, &ref);
  tap_ok(rs == GQ_SUCCESS && fabs(ref.value - (1 - cos(1e5))) < 1e-8,
         "sin on [0, 1e5]: reference %.15g, exact %.15g", ref.value, 1 - cos(1e5));
  gq_integrate_trapezoid(ctx, f, 0, 1e5, 1000000, GQ_PRECISION_DOUBLE, &r);
  cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
  tap_ok(cs == GQ_SUCCESS, "... and T = %.15g passes (tol %.3g)", r.result, tol);
  ref.abserr = 100;
  cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
  tap_ok(cs == GQ_ECHECK && isnan(tol), "a reference uncertain by more than the tolerance: no check (%s)",
         gq_last_error());
  ref.abserr = NAN;
  tap_ok(gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol) == GQ_ECHECK, "a reference +/- NaN: no check");

  /* NULL and bad arguments */
  gq_integrate_reference(f, 0, 1, &ref);
  cs = gq_trapezoid_check(NULL, GQ_PRECISION_DOUBLE, &ref, &tol);
  tap_ok(cs == GQ_EINVAL && isnan(tol), "gq_trapezoid_check(NULL result): GQ_EINVAL");
  tap_ok(gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, NULL, NULL) == GQ_EINVAL, "gq_trapezoid_check(NULL ref): GQ_EINVAL");
  tap_ok(gq_trapezoid_check(&r, (gq_precision)9, &ref, NULL) == GQ_EINVAL, "gq_trapezoid_check(precision 9): GQ_EINVAL");
  tap_ok(gq_integrate_reference(NULL, 0, 1, &ref) == GQ_EINVAL && gq_integrate_reference(f, 0, 1, NULL) == GQ_EINVAL,
         "gq_integrate_reference with NULL: GQ_EINVAL");
  tap_ok(gq_integrate_reference(f, -1e308, 1e308, &ref) == GQ_EINVAL, "gq_integrate_reference, b - a overflows: GQ_EINVAL");
  tap_ok(gq_integrate_trapezoid(NULL, f, 0, 1, 10, 0, &r) == GQ_EINVAL && gq_integrate_trapezoid(ctx, f, 0, 1, 10, 0, NULL) == GQ_EINVAL,
         "gq_integrate_trapezoid with NULL: GQ_EINVAL");
  gq_integrand_free(f);
}

int main(void)
{
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  if (!tap_ok(ctx != NULL, "CPU context: %s", ctx ? gq_context_device_name(ctx) : gq_last_error()))
    return tap_done();
  tap_ok(gq_context_backend(ctx) == GQ_BACKEND_CPU, "backend is the CPU");

  /* 1-2 ulp of the exact trapezoid sum of the same f(x_i), every built-in. */
  const uint64_t sizes[] = {1, 2, 3, 4, 7, 1000, 2047, 2048, 2049, 4097, 100001, 1000000};
  for (size_t k = 0; (cur = gq_integrand_builtin_at(k)); k++) {
    double a, b;
    gq_integrand_limits(cur, &a, &b);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      const uint64_t n = sizes[s];
      gq_trapezoid_result r;
      const int st = gq_integrate_trapezoid(ctx, cur, a, b, n, GQ_PRECISION_DOUBLE, &r);
      double abs_sum;
      const double t = exact_trapezoid(eval_cur, a, b, n, &abs_sum);
      const double c = exact_coarse(eval_cur, a, b, n);
      /* two roundings at the end (the sum to double, times h); the sum itself
       * is compensated.  Where T cancels, the scale is h * sum |f|. */
      const double tol = 2.0 * ulp_of(t) + 4.0 * DBL_EPSILON * DBL_EPSILON * abs_sum * (double)n;
      tap_ok(st == GQ_SUCCESS && fabs(r.result - t) <= tol,
             "%s n=%llu: T = %.17g, exact %.17g, off by %.2g ulp", gq_integrand_name(cur),
             (unsigned long long)n, r.result, t, fabs(r.result - t) / ulp_of(t));
      if (n >= 2)
        tap_ok(fabs(r.coarse - c) <= 4.0 * ulp_of(c) + 1e-300,
               "%s n=%llu: T(2h) = %.17g, exact %.17g", gq_integrand_name(cur),
               (unsigned long long)n, r.coarse, c);
    }
  }

  /* A long sum: a plain double loop is off by hundreds of ulp here. */
  cur = gq_integrand_builtin("circle");
  {
    const uint64_t n = (UINT64_C(1) << 24) + 3;
    gq_trapezoid_result r;
    gq_integrate_trapezoid(ctx, cur, 0, 1, n, GQ_PRECISION_DOUBLE, &r);
    const double t = exact_trapezoid(eval_cur, 0, 1, n, NULL);
    tap_ok(fabs(r.result - t) <= 2.0 * ulp_of(t), "circle n=2^24+3: off by %.2g ulp",
           fabs(r.result - t) / ulp_of(t));
  }

  /* Against the exact integral, both precisions, with the documented check. */
  for (size_t k = 0; (cur = gq_integrand_builtin_at(k)); k++) {
    for (int p = 0; p < 2; p++) {
      double a, b, tol;
      gq_integrand_limits(cur, &a, &b);
      gq_trapezoid_result r;
      gq_reference ref;
      const int st = gq_integrate_trapezoid(ctx, cur, a, b, 1000000, (gq_precision)p, &r);
      const int rs = gq_integrate_reference(cur, a, b, &ref);
      const int cs = gq_trapezoid_check(&r, (gq_precision)p, &ref, &tol);
      tap_ok(st == GQ_SUCCESS && rs == GQ_SUCCESS && cs == GQ_SUCCESS && ref.method == GQ_REFERENCE_EXACT,
             "%s %s n=1e6: |T - I| = %.3g <= tol %.3g (error estimate %.3g)", gq_integrand_name(cur),
             p ? "float" : "double", fabs(r.result - ref.value), tol, r.abserr);
      /* the estimate is the right size: within a factor 10 of the true error
       * where the error is above rounding */
      if (p == 0 && fabs(r.result - ref.value) > 1e-11)
        tap_ok(r.abserr > 0.1 * fabs(r.result - ref.value) && r.abserr < 10 * fabs(r.result - ref.value),
               "%s: error estimate %.3g vs true error %.3g", gq_integrand_name(cur), r.abserr,
               fabs(r.result - ref.value));
    }
  }

  /* Known values. */
  {
    gq_trapezoid_result r;
    cur = gq_integrand_builtin("poly");
    gq_integrate_trapezoid(ctx, cur, -1, 2, 3, GQ_PRECISION_DOUBLE, &r);
    /* h = 1: f(-1)/2 + f(0) + f(1) + f(2)/2 = -0.5 - 1 - 1 + 5.5 = 3 */
    tap_ok(r.result == 3.0, "poly on [-1,2], n=3 gives 3 exactly (got %.17g)", r.result);
    cur = gq_integrand_builtin("atan");
    gq_integrate_trapezoid(ctx, cur, 0, 1, 1, GQ_PRECISION_DOUBLE, &r);
    tap_ok(r.result == 3.0, "atan on [0,1], n=1 gives (4+2)/2 = 3 (got %.17g)", r.result);
  }

  /* b < a negates; a == b gives 0. */
  {
    gq_trapezoid_result fwd, back, zero;
    cur = gq_integrand_builtin("gauss");
    gq_integrate_trapezoid(ctx, cur, -1, 2, 100000, GQ_PRECISION_DOUBLE, &fwd);
    gq_integrate_trapezoid(ctx, cur, 2, -1, 100000, GQ_PRECISION_DOUBLE, &back);
    tap_ok(fabs(fwd.result + back.result) <= 4 * ulp_of(fwd.result), "b < a negates (%.17g vs %.17g)",
           fwd.result, back.result);
    gq_reference ref;
    double tol;
    gq_integrate_reference(cur, 2, -1, &ref);
    tap_ok(gq_trapezoid_check(&back, GQ_PRECISION_DOUBLE, &ref, &tol) == GQ_SUCCESS,
           "reversed limits pass the check (ref %.17g)", ref.value);
    tap_ok(gq_integrate_trapezoid(ctx, cur, 1.5, 1.5, 10, GQ_PRECISION_DOUBLE, &zero) == GQ_SUCCESS &&
           zero.result == 0.0, "a == b gives 0");
  }

  /* The check fails when the answer is wrong. */
  {
    gq_trapezoid_result r;
    gq_reference ref;
    double tol;
    cur = gq_integrand_builtin("circle");
    gq_integrate_trapezoid(ctx, cur, 0, 1, 1000000, GQ_PRECISION_DOUBLE, &r);
    gq_integrate_reference(cur, 0, 1, &ref);
    ref.value += 1e-6;
    const int cs = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol);
    tap_ok(cs == GQ_ECHECK, "a reference off by 1e-6 fails the check (tol %.3g)", tol);
    r.result = NAN;
    ref.value -= 1e-6;
    tap_ok(gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tol) == GQ_ECHECK, "NaN fails the check");
  }

  /* GSL's QAGS agrees with the antiderivatives (the path for integrands
   * without one). */
  for (size_t k = 0; (cur = gq_integrand_builtin_at(k)); k++) {
    struct gq_integrand copy = *cur;
    copy.antiderivative = NULL;
    double a, b;
    gq_integrand_limits(cur, &a, &b);
    gq_reference exact, q;
    gq_integrate_reference(cur, a, b, &exact);
    const int st = gq_integrate_reference(&copy, a, b, &q);
    tap_ok(st == GQ_SUCCESS && q.method == GQ_REFERENCE_QAGS &&
           fabs(q.value - exact.value) <= 1e-12 * fabs(exact.value) + 1e-15 &&
           fabs(q.value - exact.value) <= q.abserr + 1e-15,
           "%s: QAGS %.17g +/- %.2g vs exact %.17g", gq_integrand_name(cur), q.value, q.abserr,
           exact.value);
  }

  /* Invalid arguments: a status, a message, NaN in the result. */
  {
    gq_trapezoid_result r;
    cur = gq_integrand_builtin("circle");
    tap_ok(gq_integrate_trapezoid(ctx, cur, NAN, 1, 10, 0, &r) == GQ_EINVAL && isnan(r.result) &&
           strstr(gq_last_error(), "numbers"), "a = NaN: EINVAL (%s)", gq_last_error());
    /* an infinite limit is a change of variables (t_inf); an empty one is refused */
    tap_ok(gq_integrate_trapezoid(ctx, cur, INFINITY, INFINITY, 10, 0, &r) == GQ_EINVAL,
           "a = b = inf: EINVAL");
    tap_ok(gq_integrate_trapezoid(ctx, cur, 0, 1, 0, 0, &r) == GQ_EINVAL, "n = 0: EINVAL");
    tap_ok(gq_integrate_trapezoid(ctx, cur, 0, 1, GQ_TRAPEZOID_MAX_N + 1, 0, &r) == GQ_EINVAL,
           "n = 2^53 + 1: EINVAL");
    tap_ok(gq_integrate_trapezoid(ctx, cur, -1e308, 1e308, 10, 0, &r) == GQ_EINVAL &&
           strstr(gq_last_error(), "overflows"), "b - a overflows: EINVAL (%s)", gq_last_error());
    tap_ok(gq_integrate_trapezoid(ctx, cur, 0, 1, 10, (gq_precision)7, &r) == GQ_EINVAL, "bad precision");
    tap_ok(gq_integrate_trapezoid(ctx, NULL, 0, 1, 10, 0, &r) == GQ_EINVAL, "NULL integrand");
    tap_ok(gq_integrate_trapezoid(ctx, cur, 0, 2, 1000, 0, &r) == GQ_EDOM && isnan(r.result) &&
           strstr(gq_last_error(), "not finite"), "circle on [0,2]: EDOM (%s)", gq_last_error());
    tap_ok(gq_integrand_builtin("nope") == NULL && gq_integrand_builtin(NULL) == NULL, "unknown name");
    tap_ok(strcmp(gq_strerror(GQ_ECHECK), "result disagrees with the reference") == 0 &&
           strcmp(gq_strerror(-1), "unknown status") == 0 && strcmp(gq_strerror(GQ_NSTATUS), "unknown status") == 0,
           "gq_strerror names statuses");
    tap_ok(gq_context_create(-7) == NULL && strstr(gq_last_error(), "bad device"), "bad device number");
  }

  /* --device=cuda where there is none. */
  if (gq_cuda_device_count() == 0) {
    gq_context *g = NULL;
    tap_ok(gq_context_open(&g, 0) == GQ_ENODEV && g == NULL, "CUDA context without a device: ENODEV (%s)",
           gq_last_error());
    g = gq_context_create(GQ_DEVICE_AUTO);
    tap_ok(g && gq_context_backend(g) == GQ_BACKEND_CPU, "auto falls back to the CPU");
    gq_context_free(g);
  }
  tap_ok(gq_context_set_stream(ctx, NULL) == GQ_EUNSUP, "a CPU context has no stream to set");
  tap_ok(strcmp(gq_version(), PACKAGE_VERSION) == 0, "gq_version() is %s", gq_version());
  trust(ctx);
  gq_context_free(ctx);
  gq_context_free(NULL);
  return tap_done();
}
