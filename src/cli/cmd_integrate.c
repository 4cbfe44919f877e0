/* cmd_integrate.c — `gpuquad [integrate]`: options -> problem -> library ->
 * check against the reference -> output. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "batch.h" /* sweeps (issue 23) */
#include "cumulative.h" /* --cumulative (issue 19) */
#include "lib/check/check.h" /* the reference and the verdict (libgpuquad) */
#include "numparse.h"
#include "plot.h"
#include "plots.h"
#include "study.h"

void usage_integrate(FILE *out)
{
  fputs("Usage: gpuquad [integrate] [--f=NAME] [--a=A] [--b=B] [--n=N] [OPTION]...\n"
        "Integrate f over [a, b] (or a box in up to 6 dimensions) with a composite\n"
        "Newton-Cotes or Gauss-Legendre rule, or adaptively to a tolerance, on the GPU\n"
        "(or the CPU), and check the result against GSL (libcubature in several\n"
        "dimensions).\n"
        "\n"
        "  --f=F                integrand: a built-in name (default circle; --list\n"
        "                       shows them) or an expression in x (x1..xD with\n"
        "                       --dim; x, y, z mean x1, x2, x3), e.g.\n"
        "                       --f='exp(-x*x)*cos(3*x)' (grammar: gpuquad(1))\n"
        "  --dim=D              dimensions, 1 (default) to 6 (8 with --rule=adaptive):\n"
        "                       a product grid of the rule; --a, --b and --n take\n"
        "                       one value for every axis or a comma list, one per axis\n"
        "  --param NAME=VALUE   a parameter the expression uses (repeatable)\n"
        "  --a=A, --b=B         limits (default: the built-in's, [0, 1] for an\n"
        "                       expression); b < a negates;\n"
        "                       numbers, or pi, -pi, e, inf, -inf: an infinite\n"
        "                       limit maps [a, inf), (-inf, b] or the line onto a\n"
        "                       finite interval (x = a + t/(1-t), x = t/(1-t^2));\n"
        "                       f must decay like 1/x^2 or faster\n"
        "  --n=N                intervals, or Gauss-Legendre panels, per axis (default\n"
        "                       1e6 in one dimension, 100 per axis in several):\n"
        "                       1000000, 1e9, 2^30, 1G, 1Gi\n"
        "  --rule=R             trapezoid (default; any n), simpson (n even),\n"
        "                       boole (n a multiple of 4), or gauss-legendre[:K]\n"
        "                       (n panels of K nodes, 2 <= K <= 64, default 8); error\n"
        "                       estimate from a lower-order rule of the same pass;\n"
        "                       or adaptive: subdivide to --epsrel/--epsabs, in up to\n"
        "                       8 dimensions (G7-K15 in 1-D, Genz-Malik in several;\n"
        "                       no --n); exit 1 if the accuracy is not reached\n"
        "  --epsrel=R           adaptive: relative tolerance (default 1e-6; 0 with\n"
        "                       --epsabs: absolute only)\n"
        "  --epsabs=A           adaptive: absolute tolerance (default 0); the goal is\n"
        "                       error <= max(A, R |I|)\n"
        "  --max-evals=N        adaptive: evaluations of f at most (default 1e9)\n"
        "  --max-regions=N      adaptive: regions held at once at most (default 2^20\n"
        "                       on the CPU, 2^24 on a GPU, whose store grows on demand)\n"
        "  --device=DEV         auto (default: the GPU if there is one), cuda, cuda:N, cpu\n",
        out);
  cli_usage_deterministic(out);
  cli_usage_progress(out);
  fputs("  --precision=P        double (default) or float: f evaluated in float,\n"
        "                       the sum accumulated in double\n"
        "  --check, --no-check  compare with the exact or GSL (QAGS) integral (default on;\n"
        "                       several dimensions: exact per factor where f separates,\n"
        "                       else libcubature's hcubature);\n"
        "                       exit 1 if they differ by more than the tolerance, or if\n"
        "                       the check cannot be made (no integral, GSL fails)\n"
        "  --no-cache           compile an expression for the GPU afresh: neither read\n"
        "                       nor write the kernel cache\n"
        "  --json               one JSON object instead of the table\n"
        "  --quiet              print only the estimate\n"
        "  --list               list the built-in integrands\n"
        "  --param NAME=LO:HI:STEP, --param NAME=@FILE\n"
        "                       a sweep: one integral per value (several: their\n"
        "                       product), in one process; --a/--b may then be\n"
        "                       expressions of the parameters (--b=k); a table, or\n"
        "                       JSON Lines (--json), --csv, or the estimates (--quiet)\n"
        "  --csv                CSV: a header line, a row per integral (the columns of\n"
        "                       gpuquad batch --csv); --rule=adaptive: --json's fields\n"
        "  --plot=FILE          draw into FILE.png or FILE.svg (gnuplot): f on [a, b]\n"
        "                       (a heat map in 2-D); F(x) with --cumulative; a sweep's\n"
        "                       estimates with error bars against its first swept\n"
        "                       parameter, a curve per value of the others\n"
        "  --study              each rule's error against n = 4, 8, ... up to --n\n"
        "                       (default 2^20) and the order it shows (1-D; --rule:\n"
        "                       that rule only); --plot draws it on log axes\n"
        "  --help, -h           this help; --version, -V: the version\n",
        out);
  cli_cumulative_usage(out);
  fputs("\nExit status: 0 ok, 1 check failed or not made (or the adaptive tolerance not\n"
        "reached), 2 bad input, 3 computation failed.\n", out);
}

static void list_integrands(FILE *out)
{
  fprintf(out, "%-8s %-18s %-16s %s\n", "name", "f(x)", "default [a, b]", "description");
  for (size_t k = 0;; k++) {
    const gq_integrand *f = gq_integrand_builtin_at(k);
    if (!f)
      break;
    double a, b;
    gq_integrand_limits(f, &a, &b);
    char lim[64];
    snprintf(lim, sizeof lim, "[%.6g, %.6g]", a, b);
    fprintf(out, "%-8s %-18s %-16s %s\n", gq_integrand_name(f), gq_integrand_formula(f), lim,
            gq_integrand_description(f));
  }
}

/* The command line of integrate, as text until the problem is built. */
typedef struct {
  const char *fname, *dim_text, *a_text, *b_text, *n_text, *rule_text, *device_text, *precision_text;
  int check, json, quiet, no_cache;
  double t_start_ms;
  cli_cumulative cumulative;
  const char *plot; /* --plot of one integral: f on its interval or box (plots.h) */
  int study;        /* --study: errors against n (study.h)                       */
  int rule_given;   /* --rule on the command line: the one rule a study runs      */
} integrate_options;

static int integrate(const gq_integrand *f, int dims, const integrate_options *o);

int cmd_integrate(int argc, char **argv, int first, double t_start_ms)
{
  if (integrate_data_wanted(argc, argv, first)) /* gpuquad integrate DATA */
    return cmd_integrate_data(argc, argv, first, t_start_ms);
  integrate_options o = {"circle", "1", NULL, NULL, NULL, "trapezoid", "auto", "double", 1, 0, 0, 0, t_start_ms, {0}, NULL, 0, 0};
  const char *default_rule = o.rule_text;
  int help = 0, version = 0, list = 0, nparams = 0, csv = 0;
  const char *plot = NULL;
  enum { MAX_PARAMS = 64 };
  const char *params[MAX_PARAMS];
  const cli_option opts[] = {
    {"f", OPT_VALUE, &o.fname, NULL, 0},
    {"dim", OPT_VALUE, &o.dim_text, NULL, 0},
    {"a", OPT_VALUE, &o.a_text, NULL, 0},
    {"b", OPT_VALUE, &o.b_text, NULL, 0},
    {"n", OPT_VALUE, &o.n_text, NULL, 0},
    {"rule", OPT_VALUE, &o.rule_text, NULL, 0},
    {"device", OPT_VALUE, &o.device_text, NULL, 0}, CLI_OPT_DETERMINISTIC, CLI_OPT_PROGRESS,
    {"precision", OPT_VALUE, &o.precision_text, NULL, 0},
    {"check", OPT_FLAG, NULL, &o.check, 1},
    {"no-check", OPT_FLAG, NULL, &o.check, 0},
    {"json", OPT_FLAG, NULL, &o.json, 1},
    {"quiet", OPT_FLAG, NULL, &o.quiet, 1},
    {"list", OPT_FLAG, NULL, &list, 1},
    {"param", OPT_LIST, params, &nparams, MAX_PARAMS},
    {"no-cache", OPT_FLAG, NULL, &o.no_cache, 1},
    {"help", OPT_FLAG, NULL, &help, 1},
    {"version", OPT_FLAG, NULL, &version, 1},
    {"csv", OPT_FLAG, NULL, &csv, 1},
    {"plot", OPT_VALUE, &plot, NULL, 0},
    {"study", OPT_FLAG, NULL, &o.study, 1},
    CLI_CUMULATIVE_OPTIONS(o.cumulative),
  };
  /* --rule=adaptive (issue 16): the last --rule, read as the parse below would */
  const char *rule = NULL;
  if (cli_peek(argc, argv, first, opts, sizeof opts / sizeof opts[0], "rule", &rule) && strcmp(rule, "adaptive") == 0)
    return cmd_integrate_adaptive(argc, argv, first, t_start_ms);
  char err[256];
  const char *positional[1];
  int npos;
  const int parse_rc =
    cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], positional, 0, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (help || version) {
    usage_or_version(first, help);
    return EXIT_OK;
  }
  if (list) {
    list_integrands(stdout);
    return EXIT_OK;
  }

  o.rule_given = o.rule_text != default_rule;
  if (batch_wanted(params, nparams, o.a_text, o.b_text) || csv) { /* a sweep: batch_run.c */
    if (o.cumulative.cumulative || o.study)
      return cli_error(EXIT_USAGE, "%s: one integral at a time, not a sweep", o.study ? "--study" : "--cumulative");
    batch_problem p = {BATCH_INTEGRATE, o.fname, o.dim_text, o.a_text, o.b_text, o.n_text, o.rule_text,
                       o.precision_text, .check = o.check, .nparams = nparams};
    memcpy(p.params, params, (size_t)nparams * sizeof *params);
    return batch_sweep_command(&p, o.device_text, o.no_cache, batch_format_of(o.json, csv, o.quiet), plot);
  }

  o.plot = plot;
  o.cumulative.plot = plot;

  /* options -> problem */
  gq_integrand *f = NULL;
  gq_parse_error perr;
  cli_params resolved;
  int rc = cli_cumulative_check(&o.cumulative);
  if (rc == EXIT_OK)
    rc = cli_params_resolve(&resolved, params, nparams);
  if (rc != EXIT_OK)
    return rc;
  uint64_t dims;
  if (gq_parse_count(o.dim_text, GQ_MAX_DIM, &dims, err, sizeof err) != 0) {
    cli_params_free(&resolved);
    return cli_error(EXIT_USAGE, "--dim=%s: %s", o.dim_text, err);
  }
  const int parsed = gq_integrand_parse(o.fname, resolved.text, (size_t)nparams, (int)dims, &f, &perr);
  cli_params_free(&resolved);
  if (parsed != GQ_SUCCESS)
    return cli_parse_error(o.fname, params, &perr);
  rc = integrate(f, (int)dims, &o);
  gq_integrand_free(f);
  return rc;
}

/* --a, --b, --n -> the box (one value for every axis, or one per axis). */
static int build_box(const gq_integrand *f, int dims, const integrate_options *o, gq_box *box)
{
  char tok[GQ_MAX_DIM][CLI_TOKEN], err[256];
  box->dims = dims;
  double a0, b0;
  gq_integrand_limits(f, &a0, &b0);
  const char *texts[2] = {o->a_text, o->b_text}, *names[2] = {"a", "b"};
  double *ends[2] = {box->a, box->b};
  for (int e = 0; e < 2; e++) {
    if (!texts[e]) {
      for (int d = 0; d < dims; d++)
        ends[e][d] = e ? b0 : a0;
      continue;
    }
    int rc = cli_split_list(names[e], texts[e], dims, tok);
    if (rc != EXIT_OK)
      return rc;
    for (int d = 0; d < dims; d++)
      if (gq_parse_limit(tok[d], &ends[e][d], err, sizeof err) != 0)
        return dims == 1 ? cli_error(EXIT_USAGE, "--%s=%s: %s", names[e], texts[e], err)
                         : cli_error(EXIT_USAGE, "--%s=%s: '%s' %s", names[e], texts[e], tok[d], err);
  }
  for (int d = 0; d < dims; d++)
    if (isinf(box->a[d]) && box->a[d] == box->b[d]) /* checked before any device is opened, as n is */
      return dims == 1 ? cli_error(EXIT_USAGE, "--a, --b: the interval [%g, %g] is empty (give a finite limit, "
                                   "or -inf and inf)", box->a[d], box->b[d])
                       : cli_error(EXIT_USAGE, "--a, --b: axis %d: the interval [%g, %g] is empty (give a "
                                   "finite limit, or -inf and inf)", d + 1, box->a[d], box->b[d]);
  const char *n_text = o->n_text ? o->n_text : dims == 1 ? "1e6" : "100";
  int rc = cli_split_list("n", n_text, dims, tok);
  if (rc != EXIT_OK)
    return rc;
  for (int d = 0; d < dims; d++)
    if (gq_parse_count(tok[d], GQ_TRAPEZOID_MAX_N, &box->n[d], err, sizeof err) != 0)
      return dims == 1 ? cli_error(EXIT_USAGE, "--n=%s: %s", n_text, err)
                       : cli_error(EXIT_USAGE, "--n=%s: '%s' %s", n_text, tok[d], err);
  return EXIT_OK;
}

/* The name of a GQ_REFERENCE_* method (cli.h). */
const char *cli_reference_method(int method)
{
  static const char *const methods[] = {
    [GQ_REFERENCE_EXACT] = "exact", [GQ_REFERENCE_QAGS] = "gsl_integration_qags",
    [GQ_REFERENCE_QAGI] = "gsl_integration_qagi", [GQ_REFERENCE_QAGIU] = "gsl_integration_qagiu",
    [GQ_REFERENCE_QAGIL] = "gsl_integration_qagil", [GQ_REFERENCE_SEPARABLE] = "separable",
    [GQ_REFERENCE_HCUBATURE] = "hcubature"};
  return methods[method];
}

/* A JSON member: one number for one dimension, else an array (cli.h). */
void cli_json_limits(json_writer *w, const char *key, int dims, const double *v)
{
  char text[GQ_MC_MAX_DIMS * 32 + 4]; /* the most axes of any command (mc, more than adaptive) */
  size_t at = 0;
  for (int d = 0; d < dims; d++) {
    /* JSON has no infinity: an infinite limit is the string "inf" or "-inf" */
    if (isinf(v[d]))
      at += (size_t)snprintf(text + at, sizeof text - at, "%s\"%s\"", d ? "," : "", v[d] < 0 ? "-inf" : "inf");
    else
      at += (size_t)snprintf(text + at, sizeof text - at, "%s%.17g", d ? "," : "", v[d]);
  }
  if (dims == 1) {
    if (isinf(v[0]))
      json_string(w, key, v[0] < 0 ? "-inf" : "inf");
    else
      json_number(w, key, v[0]);
    return;
  }
  char arr[sizeof text + 2];
  snprintf(arr, sizeof arr, "[%s]", text);
  json_raw(w, key, arr);
}

static int integrate(const gq_integrand *f, int dims, const integrate_options *o)
{
  const char *device_text = o->device_text, *precision_text = o->precision_text;
  const int check = o->check, json = o->json, quiet = o->quiet;
  gq_box box;
  int rc = build_box(f, dims, o, &box);
  if (rc != EXIT_OK)
    return rc;
  gq_rule_spec spec;
  if (gq_rule_spec_parse(o->rule_text, &spec) != GQ_SUCCESS)
    return cli_error(EXIT_USAGE, "--rule=%s: %s", o->rule_text, gq_last_error());
  if (spec.rule != GQ_RULE_GAUSS_LEGENDRE)
    for (int d = 0; d < dims; d++)
      if (gq_rule_check_n(spec.rule, box.n[d]) != GQ_SUCCESS)
        return cli_error(EXIT_USAGE, "--n=%s: %s", o->n_text ? o->n_text : "", gq_last_error());
  gq_precision precision;
  if (strcmp(precision_text, "double") == 0)
    precision = GQ_PRECISION_DOUBLE;
  else if (strcmp(precision_text, "float") == 0)
    precision = GQ_PRECISION_FLOAT;
  else
    return cli_error(EXIT_USAGE, "--precision=%s: expected double or float", precision_text);
  /* the line's Newton-Cotes rules keep their one-dimensional report */
  const int line = dims == 1 && spec.rule != GQ_RULE_GAUSS_LEGENDRE;
  const double a = box.a[0], b = box.b[0];
  const uint64_t n = box.n[0];
  if (o->cumulative.cumulative && !line)
    return cli_error(EXIT_USAGE, "--cumulative: a cumulative integral is one-dimensional, with the trapezoid or "
                     "simpson rule");
  if (o->study && (dims != 1 || o->cumulative.cumulative))
    return cli_error(EXIT_USAGE, "--study: %s", dims != 1 ? "a study is of one-dimensional rules (--dim=1)"
                                                          : "one or the other of --study and --cumulative");
  if (o->plot && (rc = o->study ? plot_check(o->plot) : plot_integrand_check(o->plot, dims, box.a, box.b)) != EXIT_OK)
    return rc;

  /* problem -> backend */
  gq_context *ctx;
  cli_prestart(device_text, !gq_integrand_is_builtin(f)); /* NVRTC opens beside the context */
  rc = cli_open_context(device_text, quiet, &ctx);
  if (rc != EXIT_OK)
    return rc;
  if (o->no_cache)
    gq_context_set_jit_cache(ctx, 0);
  if (o->study) { /* src/cli/study.c: n up to --n (default 2^20) */
    rc = integrate_study(ctx, f, a, b, o->n_text ? n : UINT64_C(1) << 20, o->rule_given ? o->rule_text : NULL,
                         precision, json, o->plot);
    gq_context_free(ctx);
    return rc;
  }
  if (o->cumulative.cumulative) { /* src/cli/cumulative.c */
    rc = cli_cumulative_run(ctx, f, a, b, n, spec.rule, precision, &o->cumulative, check, quiet, json,
                            o->t_start_ms);
    gq_context_free(ctx);
    return rc;
  }
  gq_rule_result r;
  int status = gq_integrate_box(ctx, f, spec, &box, precision, &r);
  if (status != GQ_SUCCESS) {
    rc = cli_error(cli_exit_status(status), "%s", gq_last_error());
    gq_context_free(ctx);
    return rc;
  }
  cli_jit_note(r.jit);

  /* result -> check (the library's verdict: check/check.h).  One not made is
   * no pass: the estimate is shown, unconfirmed, and the exit status is that
   * of a failed check. */
  gq_reference ref = {NAN, NAN, NAN, GQ_REFERENCE_EXACT, NAN};
  double tolerance = NAN;
  gq_check_outcome outcome = {GQ_CHECK_PASSED, 0, ""};
  if (check) {
    status = line ? gq_check_rule(f, a, b, &r, precision, &ref, &tolerance, &outcome)
                  : gq_check_box(f, &box, &r, precision, &ref, &tolerance, &outcome);
    if (status != GQ_SUCCESS) {
      rc = cli_error(EXIT_RUNTIME, "reference: %s", gq_last_error());
      gq_context_free(ctx);
      return rc;
    }
  }
  const int passed = outcome.verdict == GQ_CHECK_PASSED;
  const double wall_ms = cli_wall_ms() - o->t_start_ms;
  const double pps = r.kernel_ms > 0 ? r.points / (r.kernel_ms * 1e-3) : NAN;
  const char *backend = gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu";
  const char *ref_method = cli_reference_method(ref.method);
  char rule_name[32];
  if (spec.rule == GQ_RULE_GAUSS_LEGENDRE)
    snprintf(rule_name, sizeof rule_name, "gauss-legendre:%d", r.nodes);
  else
    snprintf(rule_name, sizeof rule_name, "%s", gq_rule_name(spec.rule));

  /* -> output */
  if (json) {
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "command", "integrate");
    json_string(&w, "integrand", gq_integrand_name(f));
    json_string(&w, "formula", gq_integrand_formula(f));
    if (!line)
      json_uint(&w, "dims", (uint64_t)dims);
    cli_json_limits(&w, "a", dims, box.a);
    cli_json_limits(&w, "b", dims, box.b);
    if (dims == 1) {
      json_uint(&w, "n", n);
    } else {
      char text[GQ_MAX_DIM * 24 + 4];
      size_t at = 0;
      for (int d = 0; d < dims; d++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%llu", d ? "," : "[", (unsigned long long)box.n[d]);
      snprintf(text + at, sizeof text - at, "]");
      json_raw(&w, "n", text);
    }
    json_number(&w, "points", r.points);
    json_string(&w, "rule", line ? gq_rule_name(spec.rule) : rule_name);
    if (spec.rule == GQ_RULE_GAUSS_LEGENDRE)
      json_uint(&w, "nodes", (uint64_t)r.nodes);
    if (*r.change)
      json_string(&w, "change_of_variables", r.change);
    json_string(&w, "precision", precision_text);
    json_number(&w, "estimate", r.result);
    json_number(&w, "coarse_estimate", r.coarse);
    json_number(&w, "error_estimate", r.abserr);
    json_string(&w, "error_formula", r.error_formula);
    if (check && outcome.has_reference) {
      json_number(&w, "reference", ref.value);
      json_number(&w, "reference_error", ref.abserr);
      json_string(&w, "reference_method", ref_method);
      json_number(&w, "difference", r.result - ref.value);
      json_number(&w, "tolerance", tolerance);
    }
    json_string(&w, "check", check ? gq_check_name(outcome.verdict) : "skipped");
    if (!passed)
      json_string(&w, "check_message", outcome.message);
    json_string(&w, "backend", backend);
    json_string(&w, "device", gq_context_device_name(ctx));
    json_number(&w, "kernel_ms", r.kernel_ms);
    json_number(&w, "wall_ms", wall_ms);
    json_number(&w, "points_per_second", pps);
    json_string(&w, "jit", cli_jit_name(r.jit));
    json_number(&w, "jit_ms", r.compile_ms);
    json_end(&w);
  } else if (quiet) {
    printf("%.17g\n", r.result);
  } else {
    if (line) {
      printf("integrate %s = %s on [%.17g, %.17g], n = %llu intervals (composite %s, %s)\n",
             gq_integrand_name(f), gq_integrand_formula(f), a, b, (unsigned long long)n, gq_rule_name(spec.rule),
             precision_text);
    } else {
      printf("integrate %s = %s on ", gq_integrand_name(f), gq_integrand_formula(f));
      for (int d = 0; d < dims; d++)
        printf("%s[%.17g, %.17g]", d ? " x " : "", box.a[d], box.b[d]);
      printf(", n = ");
      for (int d = 0; d < dims; d++)
        printf("%s%llu", d ? "," : "", (unsigned long long)box.n[d]);
      printf(" %s (%s%s, %s)\n", spec.rule == GQ_RULE_GAUSS_LEGENDRE ? "panels" : "intervals", rule_name,
             dims > 1 ? " product" : "", precision_text);
    }
    if (*r.change)
      printf("  change       %s: the rule sums f(x(t)) x'(t)\n", r.change);
    printf("  estimate     %.17g\n", r.result);
    printf("  error est.   %.3g  (%s, same pass)\n", r.abserr, r.error_formula);
    if (check && outcome.verdict != GQ_CHECK_NOT_MADE) {
      printf("  reference    %.17g  (%s, +/- %.2g)\n", ref.value, ref_method, ref.abserr);
      printf("  difference   %.3g  (tolerance %.3g): %s\n", r.result - ref.value, tolerance,
             passed ? "ok" : "FAILED");
    } else if (check) {
      printf("  reference    none: the check could not be made (see stderr)\n");
    }
    if (gq_context_backend(ctx) == GQ_BACKEND_CUDA)
      printf("  backend      cuda: %s, %d multiprocessors\n", gq_context_device_name(ctx),
             gq_context_threads(ctx));
    else
      printf("  backend      %s\n", gq_context_device_name(ctx));
    printf("  points       %.17g\n", r.points);
    if (r.jit != GQ_JIT_NONE)
      printf("  jit          %s in %.4g ms (NVRTC, kernel cache)\n", cli_jit_name(r.jit), r.compile_ms);
    printf("  kernel time  %.4g ms  (%.3g points/s)\n", r.kernel_ms, pps);
    printf("  wall time    %.4g ms\n", wall_ms);
  }
  gq_context_free(ctx);
  char how[96];
  if (dims == 2)
    snprintf(how, sizeof how, "%s, n = %llu x %llu", rule_name, (unsigned long long)box.n[0],
             (unsigned long long)box.n[1]);
  else
    snprintf(how, sizeof how, "%s, n = %llu", rule_name, (unsigned long long)n);
  if (o->plot && (rc = plot_integrand(o->plot, f, dims, box.a, box.b, how, r.result)) != EXIT_OK)
    return rc;
  if (!passed) {
    fprintf(stderr, "gpuquad: %s\n", outcome.message);
    return EXIT_CHECK;
  }
  return EXIT_OK;
}
