/* cmd_integrate_adaptive.c — `gpuquad --rule=adaptive`: adaptive cubature
 * to a requested accuracy (gq_integrate_adaptive), options -> problem ->
 * library -> check against the box references -> output.  An accuracy not
 * reached is said, with the accuracy that was, and exits 1, as a failed
 * check does. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "cli.h"
#include "progress.h"
#include "lib/check/check.h"
#include "numparse.h"
#include "plots.h"

typedef struct {
  const char *fname, *dim_text, *a_text, *b_text, *n_text, *rule_text, *device_text, *precision_text;
  const char *epsrel_text, *epsabs_text, *max_evals_text, *max_regions_text;
  int check, json, csv, quiet, no_cache;
  const char *plot; /* --plot: f over its interval or box (plots.h) */
} adaptive_cli;

/* --a, --b (one value for every axis, or one per axis) into opt. */
static int parse_limits(const gq_integrand *f, const adaptive_cli *o, gq_adaptive_options *opt)
{
  char tok[GQ_ADAPTIVE_MAX_DIM][CLI_TOKEN], err[256];
  double def[2];
  gq_integrand_limits(f, &def[0], &def[1]);
  const char *texts[2] = {o->a_text, o->b_text}, *names[2] = {"a", "b"};
  double *ends[2] = {opt->a, opt->b};
  for (int e = 0; e < 2; e++) {
    for (int d = 0; d < opt->dims; d++)
      ends[e][d] = def[e];
    if (!texts[e])
      continue;
    const int rc = cli_split_list(names[e], texts[e], opt->dims, tok);
    if (rc != EXIT_OK)
      return rc;
    for (int d = 0; d < opt->dims; d++)
      if (gq_parse_limit(tok[d], &ends[e][d], err, sizeof err) != 0)
        return cli_error(EXIT_USAGE, "--%s=%s: '%s' %s", names[e], texts[e], tok[d], err);
  }
  for (int d = 0; d < opt->dims; d++)
    if (isinf(opt->a[d]) && opt->a[d] == opt->b[d])
      return cli_error(EXIT_USAGE, "--a, --b: axis %d: the interval [%g, %g] is empty (give a finite limit, or -inf "
                       "and inf)", d + 1, opt->a[d], opt->b[d]);
  return EXIT_OK;
}

/* --epsrel, --epsabs, --max-evals, --max-regions into opt. */
static int parse_accuracy(const adaptive_cli *o, gq_adaptive_options *opt)
{
  char err[256];
  const char *texts[2] = {o->epsrel_text, o->epsabs_text}, *names[2] = {"epsrel", "epsabs"};
  double *eps[2] = {&opt->epsrel, &opt->epsabs};
  for (int k = 0; k < 2; k++) {
    if (!texts[k])
      continue;
    if (gq_parse_real(texts[k], eps[k], err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--%s=%s: %s", names[k], texts[k], err);
    if (*eps[k] < 0.0)
      return cli_error(EXIT_USAGE, "--%s=%s: must be >= 0", names[k], texts[k]);
  }
  if (!o->epsrel_text && o->epsabs_text) /* an absolute tolerance alone */
    opt->epsrel = 0.0;
  if (opt->epsrel == 0.0 && opt->epsabs == 0.0)
    return cli_error(EXIT_USAGE, "--epsrel, --epsabs: both are 0; give a tolerance");
  if (opt->epsrel > 0.0 && opt->epsrel < 50.0 * 0x1p-52 && opt->epsabs == 0.0)
    return cli_error(EXIT_USAGE, "--epsrel=%s: below 50 eps (%.3g), which no double sum can reach", o->epsrel_text,
                     50.0 * 0x1p-52);
  if (o->max_evals_text && gq_parse_count(o->max_evals_text, UINT64_MAX, &opt->max_evals, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--max-evals=%s: %s", o->max_evals_text, err);
  if (o->max_regions_text && gq_parse_count(o->max_regions_text, UINT64_MAX, &opt->max_regions, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--max-regions=%s: %s", o->max_regions_text, err);
  return EXIT_OK;
}

static int run(const gq_integrand *f, const gq_adaptive_options *opt, const adaptive_cli *o, double t_start_ms);

int cmd_integrate_adaptive(int argc, char **argv, int first, double t_start_ms)
{
  adaptive_cli o = {"circle", "1", NULL, NULL, NULL, "adaptive", "auto", "double", NULL, NULL, NULL, NULL,
                    1, 0, 0, 0, 0, NULL};
  int help = 0, version = 0, nparams = 0;
  const char *params[CLI_MAX_PARAMS];
  const cli_option opts[] = {
    {"f", OPT_VALUE, &o.fname, NULL, 0},
    {"dim", OPT_VALUE, &o.dim_text, NULL, 0},
    {"a", OPT_VALUE, &o.a_text, NULL, 0},
    {"b", OPT_VALUE, &o.b_text, NULL, 0},
    {"n", OPT_VALUE, &o.n_text, NULL, 0},
    {"rule", OPT_VALUE, &o.rule_text, NULL, 0},
    {"epsrel", OPT_VALUE, &o.epsrel_text, NULL, 0},
    {"epsabs", OPT_VALUE, &o.epsabs_text, NULL, 0},
    {"max-evals", OPT_VALUE, &o.max_evals_text, NULL, 0},
    {"max-regions", OPT_VALUE, &o.max_regions_text, NULL, 0},
    {"device", OPT_VALUE, &o.device_text, NULL, 0}, CLI_OPT_DETERMINISTIC, CLI_OPT_PROGRESS,
    {"precision", OPT_VALUE, &o.precision_text, NULL, 0},
    {"check", OPT_FLAG, NULL, &o.check, 1},
    {"no-check", OPT_FLAG, NULL, &o.check, 0},
    {"json", OPT_FLAG, NULL, &o.json, 1},
    {"csv", OPT_FLAG, NULL, &o.csv, 1},
    {"quiet", OPT_FLAG, NULL, &o.quiet, 1},
    {"param", OPT_LIST, params, &nparams, CLI_MAX_PARAMS},
    {"no-cache", OPT_FLAG, NULL, &o.no_cache, 1},
    {"plot", OPT_VALUE, &o.plot, NULL, 0},
    {"help", OPT_FLAG, NULL, &help, 1},
    {"version", OPT_FLAG, NULL, &version, 1},
  };
  char err[256];
  const char *positional[1];
  int npos;
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], positional, 0, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (help || version) {
    usage_or_version(first, help);
    return EXIT_OK;
  }
  if (batch_wanted(params, nparams, o.a_text, o.b_text))
    return cli_error(EXIT_USAGE, "--rule=adaptive takes one value per parameter, not a sweep (LO:HI:STEP, @FILE, "
                                 "limits of parameters); run each value alone");
  if (o.n_text)
    return cli_error(EXIT_USAGE, "--n=%s: adaptive cubature chooses its own points; give --epsrel or --max-evals",
                     o.n_text);
  if (strcmp(o.precision_text, "double") != 0)
    return cli_error(EXIT_USAGE, "--precision=%s: adaptive cubature evaluates f in double only", o.precision_text);
  gq_adaptive_options opt;
  gq_adaptive_options_init(&opt);
  uint64_t dims;
  if (gq_parse_count(o.dim_text, GQ_ADAPTIVE_MAX_DIM, &dims, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--dim=%s: %s (adaptive: 1 to %d)", o.dim_text, err, GQ_ADAPTIVE_MAX_DIM);
  opt.dims = (int)dims;
  int rc = parse_accuracy(&o, &opt);
  cli_params resolved;
  if (rc == EXIT_OK)
    rc = cli_params_resolve(&resolved, params, nparams);
  if (rc != EXIT_OK)
    return rc;
  gq_integrand *f = NULL;
  gq_parse_error perr;
  const int parsed = gq_integrand_parse(o.fname, resolved.text, (size_t)nparams, opt.dims, &f, &perr);
  cli_params_free(&resolved);
  if (parsed != GQ_SUCCESS)
    return cli_parse_error(o.fname, params, &perr);
  rc = parse_limits(f, &o, &opt);
  if (rc == EXIT_OK && o.plot)
    rc = plot_integrand_check(o.plot, opt.dims, opt.a, opt.b);
  if (rc == EXIT_OK)
    rc = run(f, &opt, &o, t_start_ms);
  gq_integrand_free(f);
  return rc;
}

/* --json, or --csv: the same fields as a header line and a row */
static int print_json(const gq_integrand *f, const gq_adaptive_options *opt, const gq_adaptive_result *r,
                      const gq_context *ctx, int check, const gq_reference *ref, double tolerance,
                      const gq_check_outcome *outcome, const char *ref_method, double wall_ms, int csv)
{
  json_writer w;
  if (json_begin_as(&w, stdout, csv) != EXIT_OK)
    return EXIT_RUNTIME;
  json_string(&w, "command", "integrate");
  json_string(&w, "integrand", gq_integrand_name(f));
  json_string(&w, "formula", gq_integrand_formula(f));
  json_uint(&w, "dims", (uint64_t)opt->dims);
  cli_json_limits(&w, "a", opt->dims, opt->a);
  cli_json_limits(&w, "b", opt->dims, opt->b);
  json_string(&w, "rule", "adaptive");
  json_string(&w, "method", r->rule);
  if (*r->change)
    json_string(&w, "change_of_variables", r->change);
  json_number(&w, "epsrel", opt->epsrel);
  json_number(&w, "epsabs", opt->epsabs);
  json_uint(&w, "max_evals", opt->max_evals);
  json_number(&w, "estimate", r->estimate);
  json_number(&w, "error_estimate", r->abserr);
  json_number(&w, "tolerance", r->tolerance);
  json_bool(&w, "reached", r->reached);
  json_string(&w, "stop", gq_adaptive_stop_name(r->stop));
  json_uint(&w, "evaluations", r->evaluations);
  json_uint(&w, "regions", r->regions);
  json_uint(&w, "passes", r->passes);
  json_uint(&w, "max_regions_held", r->max_held);
  if (check && outcome->has_reference) {
    json_number(&w, "reference", ref->value);
    json_number(&w, "reference_error", ref->abserr);
    json_string(&w, "reference_method", ref_method);
    json_number(&w, "difference", r->estimate - ref->value);
    json_number(&w, "check_tolerance", tolerance);
  }
  json_string(&w, "check", check ? gq_check_name(outcome->verdict) : "skipped");
  if (check && outcome->verdict != GQ_CHECK_PASSED)
    json_string(&w, "check_message", outcome->message);
  json_string(&w, "backend", gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu");
  json_string(&w, "device", gq_context_device_name(ctx));
  json_number(&w, "kernel_ms", r->kernel_ms);
  json_number(&w, "wall_ms", wall_ms);
  json_string(&w, "jit", cli_jit_name(r->jit));
  json_number(&w, "jit_ms", r->compile_ms);
  json_end(&w);
  return EXIT_OK;
}

static void print_table(const gq_integrand *f, const gq_adaptive_options *opt, const gq_adaptive_result *r,
                        const gq_context *ctx, int check, const gq_reference *ref, double tolerance,
                        const gq_check_outcome *outcome, const char *ref_method, double wall_ms)
{
  printf("integrate %s = %s on ", gq_integrand_name(f), gq_integrand_formula(f));
  for (int d = 0; d < opt->dims; d++)
    printf("%s[%.17g, %.17g]", d ? " x " : "", opt->a[d], opt->b[d]);
  printf(" (adaptive, %s; epsrel %g, epsabs %g)\n", r->rule, opt->epsrel, opt->epsabs);
  if (*r->change)
    printf("  change       %s: the rule sums f(x(t)) x'(t)\n", r->change);
  printf("  estimate     %.17g\n", r->estimate);
  printf("  error est.   %.3g  (tolerance %.3g: %s)\n", r->abserr, r->tolerance,
         r->reached ? "reached" : "NOT reached");
  printf("  regions      %llu in %llu pass%s (at most %llu held at once)\n", (unsigned long long)r->regions,
         (unsigned long long)r->passes, r->passes == 1 ? "" : "es", (unsigned long long)r->max_held);
  printf("  evaluations  %llu  (max %llu)\n", (unsigned long long)r->evaluations,
         (unsigned long long)opt->max_evals);
  if (check && outcome->verdict != GQ_CHECK_NOT_MADE) {
    printf("  reference    %.17g  (%s, +/- %.2g)\n", ref->value, ref_method, ref->abserr);
    printf("  difference   %.3g  (tolerance %.3g): %s\n", r->estimate - ref->value, tolerance,
           outcome->verdict == GQ_CHECK_PASSED ? "ok" : "FAILED");
  } else if (check) {
    printf("  reference    none: the check could not be made (see stderr)\n");
  }
  if (gq_context_backend(ctx) == GQ_BACKEND_CUDA)
    printf("  backend      cuda: %s, %d multiprocessors\n", gq_context_device_name(ctx), gq_context_threads(ctx));
  else
    printf("  backend      %s\n", gq_context_device_name(ctx));
  if (r->jit != GQ_JIT_NONE)
    printf("  jit          %s in %.4g ms (NVRTC, kernel cache)\n", cli_jit_name(r->jit), r->compile_ms);
  printf("  kernel time  %.4g ms\n", r->kernel_ms);
  printf("  wall time    %.4g ms\n", wall_ms);
}

static int run(const gq_integrand *f, const gq_adaptive_options *opt, const adaptive_cli *o, double t_start_ms)
{
  gq_context *ctx;
  cli_prestart(o->device_text, !gq_integrand_is_builtin(f)); /* NVRTC opens beside the context */
  int rc = cli_open_context(o->device_text, o->quiet, &ctx);
  if (rc != EXIT_OK)
    return rc;
  if (o->no_cache)
    gq_context_set_jit_cache(ctx, 0);
  gq_adaptive_result r;
  int status = gq_integrate_adaptive(ctx, f, opt, &r);
  if (status != GQ_SUCCESS) {
    rc = cli_error(cli_exit_status(status), "%s", gq_last_error());
    gq_context_free(ctx);
    return rc;
  }
  cli_jit_note(r.jit);
  gq_reference ref = {NAN, NAN, NAN, GQ_REFERENCE_EXACT, NAN};
  double tolerance = NAN;
  gq_check_outcome outcome = {GQ_CHECK_PASSED, 0, ""};
  if (o->check) {
    status = gq_check_adaptive(f, opt, &r, &ref, &tolerance, &outcome);
    if (status != GQ_SUCCESS) {
      rc = cli_error(EXIT_RUNTIME, "reference: %s", gq_last_error());
      gq_context_free(ctx);
      return rc;
    }
  }
  const double wall_ms = cli_wall_ms() - t_start_ms;
  rc = EXIT_OK;
  if (o->json || o->csv)
    rc = print_json(f, opt, &r, ctx, o->check, &ref, tolerance, &outcome, cli_reference_method(ref.method), wall_ms,
                    o->csv);
  else if (o->quiet)
    printf("%.17g\n", r.estimate);
  else
    print_table(f, opt, &r, ctx, o->check, &ref, tolerance, &outcome, cli_reference_method(ref.method), wall_ms);
  gq_context_free(ctx);
  if (rc != EXIT_OK)
    return rc;
  char how[96];
  snprintf(how, sizeof how, "adaptive, %s, %llu evaluations", r.rule, (unsigned long long)r.evaluations);
  if (o->plot && (rc = plot_integrand(o->plot, f, opt->dims, opt->a, opt->b, how, r.estimate)) != EXIT_OK)
    return rc;
  if (!r.reached) {
    cli_error(EXIT_CHECK, "accuracy not reached (%s after %llu evaluations): error estimate %.3g, tolerance %.3g",
              gq_adaptive_stop_name(r.stop), (unsigned long long)r.evaluations, r.abserr, r.tolerance);
    rc = EXIT_CHECK;
  }
  if (outcome.verdict != GQ_CHECK_PASSED) {
    fprintf(stderr, "gpuquad: %s\n", outcome.message);
    rc = EXIT_CHECK;
  }
  return rc;
}
