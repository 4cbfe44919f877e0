/* study.c — integrate --study: a convergence study.  Each rule runs at
 * n = 4, 8, 16, ... (a multiple of 4 suits every rule), until --n or until
 * two errors in a row are rounding, and its error is taken against the
 * reference (exact, or GSL's QAGS); the order observed between successive n
 * is log2(e(n/2) / e(n)), shown only while both errors stand clear of
 * rounding, where a rule of order p gives p. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots.h"
#include "study.h"

/* Below this many ulps of the integral of |f| an error is rounding, not the
 * rule's: no order is read from it. */
#define ROUNDING_ULPS 64.0

static double rounding(const gq_reference *ref)
{
  return ROUNDING_ULPS * 0x1p-52 * (ref->l1norm > 0 ? ref->l1norm : fabs(ref->value));
}

static int study_rule(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n_max, gq_rule_spec spec,
                      gq_precision precision, const gq_reference *ref, int json, plot_study_rule *out)
{
  const gq_box box = {.dims = 1, .a = {a}, .b = {b}, .n = {0}};
  const int order = gq_rule_spec_degree(spec) + 1;
  char name[32];
  if (spec.rule == GQ_RULE_GAUSS_LEGENDRE)
    snprintf(name, sizeof name, "gauss-legendre:%d", spec.nodes ? spec.nodes : gq_rule_default_nodes());
  else
    snprintf(name, sizeof name, "%s", gq_rule_name(spec.rule));
  snprintf(out->name, sizeof out->name, "%s", name);
  out->order = order;
  out->count = 0;
  const double floor = rounding(ref);
  double previous = NAN;
  int rounded = 0; /* errors at the floor in a row: two end the rule's ladder */
  for (uint64_t n = 4; n <= n_max && out->count < PLOT_STUDY_MAX && rounded < 2; n *= 2) {
    gq_box at = box;
    at.n[0] = n;
    gq_rule_result r;
    const int status = gq_integrate_box(ctx, f, spec, &at, precision, &r);
    if (status != GQ_SUCCESS)
      return cli_error(cli_exit_status(status), "--study: %s, n = %llu: %s", name, (unsigned long long)n,
                       gq_last_error());
    const double error = fabs(r.result - ref->value);
    const double observed = previous > floor && error > floor ? log2(previous / error) : NAN;
    previous = error;
    rounded = error <= floor ? rounded + 1 : 0;
    out->n[out->count] = (double)n;
    out->error[out->count] = error;
    out->count++;
    if (json) {
      json_writer w;
      json_begin(&w, stdout);
      json_string(&w, "rule", name);
      json_uint(&w, "n", n);
      json_number(&w, "estimate", r.result);
      json_number(&w, "error", error);
      json_number(&w, "observed_order", observed);
      json_uint(&w, "order", (uint64_t)order);
      json_end(&w);
    } else if (isfinite(observed)) {
      printf("  %-18s %10llu  %-24.17g %-10.3g %6.2f\n", name, (unsigned long long)n, r.result, error, observed);
    } else {
      printf("  %-18s %10llu  %-24.17g %-10.3g %6s\n", name, (unsigned long long)n, r.result, error,
             error <= floor ? "(ulps)" : "");
    }
  }
  return EXIT_OK;
}

int integrate_study(gq_context *ctx, const gq_integrand *f, double a, double b, uint64_t n_max,
                    const char *rule_text, gq_precision precision, int json, const char *plot)
{
  static const char *const all[] = {"trapezoid", "simpson", "boole", "gauss-legendre:4"};
  const char *const *names = rule_text ? &rule_text : all;
  const int count = rule_text ? 1 : (int)(sizeof all / sizeof all[0]);
  gq_reference ref;
  const gq_box box = {.dims = 1, .a = {a}, .b = {b}, .n = {n_max}};
  if (gq_integrate_reference_box(f, &box, &ref) != GQ_SUCCESS)
    return cli_error(EXIT_CHECK, "--study: no reference for the errors: %s", gq_last_error());
  if (!json) {
    printf("study %s = %s on [%.17g, %.17g]: |estimate - reference| against n\n", gq_integrand_name(f),
           gq_integrand_formula(f), a, b);
    printf("  reference    %.17g  (%s, +/- %.2g)\n", ref.value, cli_reference_method(ref.method), ref.abserr);
    printf("  %-18s %10s  %-24s %-10s %6s\n", "rule", "n", "estimate", "error", "order");
  }
  static plot_study_rule rules[4];
  for (int k = 0; k < count; k++) {
    gq_rule_spec spec;
    if (gq_rule_spec_parse(names[k], &spec) != GQ_SUCCESS)
      return cli_error(EXIT_USAGE, "--rule=%s: %s", names[k], gq_last_error());
    const int rc = study_rule(ctx, f, a, b, n_max, spec, precision, &ref, json, &rules[k]);
    if (rc != EXIT_OK)
      return rc;
  }
  if (!plot)
    return EXIT_OK;
  char title[512];
  snprintf(title, sizeof title, "|estimate - integral| of %s on [%g, %g] (reference: %s)", gq_integrand_formula(f),
           a, b, cli_reference_method(ref.method));
  char floor_label[64];
  snprintf(floor_label, sizeof floor_label, "rounding: %.0f ulps of the integral of |f|", ROUNDING_ULPS);
  return plot_study(plot, title, rules, count, rounding(&ref), floor_label);
}
