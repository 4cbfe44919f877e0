/* cmd_mc.c — `gpuquad mc`: Monte Carlo mean and integral of f over a box
 * (uniform) or under N(0, I): options -> problem -> library -> check against
 * GSL -> output. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h" /* sweeps (issue 23) */
#include "cli.h"
#include "progress.h"
#include "lib/check/check.h" /* the reference and the verdict (libgpuquad) */
#include "mc_plot.h"
#include "numparse.h"
#include "plot.h"

void usage_mc(FILE *out)
{
  fputs("Usage: gpuquad mc --f=EXPR [--dim=D] [--a=A,...] [--b=B,...] [--n=N] [OPTION]...\n"
        "Monte Carlo: the mean of f over n random points, its standard deviation and\n"
        "standard error, a 95% confidence interval and the integral (volume x mean),\n"
        "on the GPU (Philox4x32-10 generated inside the reduction) or the CPU.\n"
        "\n"
        "  --f=F                an expression in x1..xD (x, y, z for x1, x2, x3) or a\n"
        "                       built-in name (D = 1), e.g. --f='exp(-(x1^2+x2^2))'\n"
        "  --param NAME=VALUE   a parameter the expression uses (repeatable)\n"
        "  --dim=D              dimensions, 1..16 (default 1)\n"
        "  --a=A[,A2,...]       lower corner of the box: one value for every dimension\n"
        "  --b=B[,B2,...]       or one per dimension (default 0 and 1); a <= b\n"
        "  --dist=DIST          uniform (default: on the box) or normal: the mean of\n"
        "                       f(X) for X ~ N(0, I); --a/--b do not apply\n"
        "  --n=N                samples (default 1e6, at least 2, at most 2^63); with\n"
        "                       --tol, the most samples to draw (default 2^30)\n"
        "  --seed=S             Philox key, 0..2^64-1 (default 0): the same seed, n and\n"
        "                       device give the same result\n"
        "  --method=M           plain (default; 'fused' is the same): n independent\n"
        "                       points; or vegas: VEGAS+ (adaptive importance grids and\n"
        "                       stratification; uniform only), n samples split evenly\n"
        "                       over --warmup + --iterations iterations\n"
        "  --sampler=S          philox (default) or sobol (plain, uniform): Owen-scrambled\n"
        "                       Sobol points, --scramblings of n / scramblings points\n"
        "                       each, rounded up to a power of two (said)\n"
        "  --scramblings=R      sobol: independent scramblings, 2..4096 (default 16);\n"
        "                       the standard error is their spread, the 95% interval\n"
        "                       Student's t with R - 1 degrees of freedom\n"
        "  --iterations=K       vegas: iterations averaged, 1..1000 (default 10)\n"
        "  --warmup=W           vegas: iterations that only adapt, 0..1000 (default 5)\n"
        "  --bins=B             vegas: grid increments per axis, 2..4096 (default 512;\n"
        "                       at most the samples of an iteration / 8)\n"
        "  --alpha=A            vegas: grid damping, 0 (fixed grid) .. 2 (default 0.5)\n"
        "  --beta=B             vegas: stratification, 0 (even) .. 1 (default 0.75)\n"
        "  --tol=ABS            stop once the standard error of the mean is below ABS;\n"
        "                       exit 1 if it is not after --n samples\n"
        "  --device=DEV         auto (default: the GPU if there is one), cuda, cuda:N, cpu\n",
        out);
  cli_usage_deterministic(out);
  cli_usage_progress(out);
  fputs("  --precision=P        double (default) or float: f evaluated in float,\n"
        "                       the sums accumulated in double\n"
        "  --check, --no-check  compare with GSL (default on): VEGAS for a box, plain\n"
        "                       Monte Carlo (Mersenne Twister) for normal; exit 1 when\n"
        "                       the z-score of the difference is beyond 5, or when\n"
        "                       the check cannot be made (in one dimension: f has no\n"
        "                       mean or an infinite variance); vegas: also when the\n"
        "                       iterations disagree (chi2/dof with a tail below 1e-5)\n"
        "  --exact=V            compare with this exact value of the integral instead\n"
        "  --no-cache           neither read nor write the GPU kernel cache\n"
        "  --json               one JSON object instead of the table\n"
        "  --quiet              print only the integral estimate\n"
        "  --param NAME=LO:HI:STEP, --param NAME=@FILE\n"
        "                       a sweep: one run per value (several: their product),\n"
        "                       in one process; --a/--b may use the parameters\n"
        "  --csv                a sweep's results as CSV (--json: JSON Lines)\n"
        "  --plot=FILE          draw into FILE.png or FILE.svg (gnuplot): the running\n"
        "                       estimate +/- its standard error against n (plain: over\n"
        "                       the first n/2, n/4, ... samples, a run as long again;\n"
        "                       Sobol: the scramblings so far; VEGAS: each iteration);\n"
        "                       a sweep's integrals with error bars, as integrate's\n"
        "  --help               this help\n"
        "\n"
        "Exit status: 0 ok, 1 check failed or not made, or --tol not reached,\n"
        "2 bad input, 3 computation failed.\n",
        out);
}

typedef struct {
  const char *fname, *dim_text, *a_text, *b_text, *dist_text, *n_text, *seed_text, *method_text, *tol_text,
      *device_text, *precision_text, *exact_text;
  /* issue 17: VEGAS+ and Sobol (NULL: not given) */
  const char *sampler_text, *scramblings_text, *iterations_text, *warmup_text, *bins_text, *alpha_text, *beta_text;
  int check, json, quiet, no_cache;
  double t_start_ms;
  const char *plot; /* --plot of one run: its running estimate (mc_plot.h) */
} mc_options;

/* "v" or "v1,v2,...,vD" -> out[0..dims-1]; the count must be 1 or dims. */
static int parse_list(const char *name, const char *text, int dims, double *out)
{
  char tok[GQ_MC_MAX_DIMS][CLI_TOKEN], err[256];
  const int rc = cli_split_list(name, text, dims, tok);
  if (rc != EXIT_OK)
    return rc;
  for (int d = 0; d < dims; d++)
    if (gq_parse_real(tok[d], &out[d], err, sizeof err) != 0)
      return cli_error(EXIT_USAGE, "--%s=%s: '%s' %s", name, text, tok[d], err);
  return EXIT_OK;
}

static int parse_seed(const char *text, uint64_t *seed)
{
  char err[128];
  if (gq_parse_whole(text, 0, UINT64_MAX, seed, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--seed=%s: %s", text, err);
  return EXIT_OK;
}

static int run_mc(const gq_integrand *f, int dims, const mc_options *o);

int cmd_mc(int argc, char **argv, int first, double t_start_ms)
{
  mc_options o = {NULL, "1", "0", "1", "uniform", NULL, "0", "plain", NULL, "auto", "double", NULL,
                  "philox", NULL, NULL, NULL, NULL, NULL, NULL, 1, 0, 0, 0, t_start_ms, NULL};
  int help = 0, nparams = 0, csv = 0;
  const char *plot = NULL;
  enum { MAX_PARAMS = 64 };
  const char *params[MAX_PARAMS];
  const cli_option opts[] = {
    {"f", OPT_VALUE, &o.fname, NULL, 0},
    {"dim", OPT_VALUE, &o.dim_text, NULL, 0},
    {"a", OPT_VALUE, &o.a_text, NULL, 0},
    {"b", OPT_VALUE, &o.b_text, NULL, 0},
    {"dist", OPT_VALUE, &o.dist_text, NULL, 0},
    {"n", OPT_VALUE, &o.n_text, NULL, 0},
    {"seed", OPT_VALUE, &o.seed_text, NULL, 0},
    {"method", OPT_VALUE, &o.method_text, NULL, 0},
    {"tol", OPT_VALUE, &o.tol_text, NULL, 0},
    {"device", OPT_VALUE, &o.device_text, NULL, 0}, CLI_OPT_DETERMINISTIC, CLI_OPT_PROGRESS,
    {"precision", OPT_VALUE, &o.precision_text, NULL, 0},
    {"exact", OPT_VALUE, &o.exact_text, NULL, 0},
    {"sampler", OPT_VALUE, &o.sampler_text, NULL, 0},
    {"scramblings", OPT_VALUE, &o.scramblings_text, NULL, 0},
    {"iterations", OPT_VALUE, &o.iterations_text, NULL, 0},
    {"warmup", OPT_VALUE, &o.warmup_text, NULL, 0},
    {"bins", OPT_VALUE, &o.bins_text, NULL, 0},
    {"alpha", OPT_VALUE, &o.alpha_text, NULL, 0},
    {"beta", OPT_VALUE, &o.beta_text, NULL, 0},
    {"check", OPT_FLAG, NULL, &o.check, 1},
    {"no-check", OPT_FLAG, NULL, &o.check, 0},
    {"json", OPT_FLAG, NULL, &o.json, 1},
    {"quiet", OPT_FLAG, NULL, &o.quiet, 1},
    {"param", OPT_LIST, params, &nparams, MAX_PARAMS},
    {"no-cache", OPT_FLAG, NULL, &o.no_cache, 1},
    {"help", OPT_FLAG, NULL, &help, 1},
    {"csv", OPT_FLAG, NULL, &csv, 1},
    {"plot", OPT_VALUE, &plot, NULL, 0},
  };
  char err[256];
  const char *positional[1];
  int npos;
  const int parse_rc = cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], positional, 0, &npos, err, sizeof err);
  if (parse_rc != 0)
    return parse_rc < 0 ? cli_error(EXIT_USAGE, "%s", err) : EXIT_OK;
  if (help) {
    usage_mc(stdout);
    return EXIT_OK;
  }
  if (!o.fname)
    return cli_error(EXIT_USAGE, "mc: --f=EXPR is required (see 'gpuquad help mc')");
  if (batch_wanted(params, nparams, o.a_text, o.b_text) || csv) { /* a sweep: batch_run.c */
    /* Sweeps draw plain Philox samples; VEGAS and Sobol are refused rather
     * than silently replaced. */
    const char *adaptive[][2] = {{"sampler", o.sampler_text},   {"scramblings", o.scramblings_text},
                                 {"iterations", o.iterations_text}, {"warmup", o.warmup_text},
                                 {"bins", o.bins_text},         {"alpha", o.alpha_text},
                                 {"beta", o.beta_text}};
    if (strcmp(o.method_text, "vegas") == 0)
      return cli_error(EXIT_USAGE, "--method=vegas: a sweep runs plain Monte Carlo only; run each value alone");
    for (size_t k = 0; k < sizeof adaptive / sizeof adaptive[0]; k++)
      if (adaptive[k][1] && !(k == 0 && strcmp(adaptive[k][1], "philox") == 0))
        return cli_error(EXIT_USAGE, "--%s: a sweep runs plain Monte Carlo with Philox only; run each value alone",
                         adaptive[k][0]);
    batch_problem p = {BATCH_MC, o.fname, o.dim_text, o.a_text, o.b_text, o.n_text, NULL, o.precision_text,
                       o.dist_text, o.seed_text, o.tol_text, o.exact_text, o.method_text, o.check,
                       .nparams = nparams};
    memcpy(p.params, params, (size_t)nparams * sizeof *params);
    return batch_sweep_command(&p, o.device_text, o.no_cache, batch_format_of(o.json, csv, o.quiet), plot);
  }
  uint64_t dims;
  if (gq_parse_count(o.dim_text, GQ_MC_MAX_DIMS, &dims, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--dim=%s: %s", o.dim_text, err);
  if ((o.plot = plot) && plot_check(plot) != EXIT_OK)
    return EXIT_USAGE;
  gq_integrand *f = NULL;
  gq_parse_error perr;
  cli_params resolved;
  int rc = cli_params_resolve(&resolved, params, nparams);
  if (rc != EXIT_OK)
    return rc;
  const int parsed = gq_integrand_parse(o.fname, resolved.text, (size_t)nparams, (int)dims, &f, &perr);
  cli_params_free(&resolved);
  if (parsed != GQ_SUCCESS)
    return cli_parse_error(o.fname, params, &perr);
  rc = run_mc(f, (int)dims, &o);
  gq_integrand_free(f);
  return rc;
}

/* How the points are drawn: --method, --sampler and their options. */
typedef struct {
  int vegas, sobol, scramblings;
  gq_vegas_options v;
} sampling;

static int parse_bounded(const char *name, const char *text, uint64_t min, uint64_t max, int *out)
{
  char err[128];
  uint64_t v;
  if (gq_parse_whole(text, min, max, &v, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--%s=%s: %s", name, text, err);
  *out = (int)v;
  return EXIT_OK;
}

static int parse_unit(const char *name, const char *text, double max, double *out)
{
  char err[128];
  if (gq_parse_real(text, out, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--%s=%s: %s", name, text, err);
  if (!(*out >= 0.0 && *out <= max))
    return cli_error(EXIT_USAGE, "--%s=%s: must be between 0 and %g", name, text, max);
  return EXIT_OK;
}

/* --method, --sampler and the options of each; an option of the method or
 * sampler not chosen is an error rather than silently ignored. */
static int parse_sampling(const mc_options *o, const gq_mc_options *opt, sampling *s)
{
  memset(s, 0, sizeof *s);
  gq_vegas_options_init(&s->v);
  s->scramblings = GQ_SOBOL_SCRAMBLINGS;
  /* The cuRAND host-API comparison left the library for bench/, so that
   * gpuquad links no cuRAND; --method=fused (plain) stays valid for scripts. */
  if (strcmp(o->method_text, "host-api") == 0)
    return cli_error(EXIT_USAGE, "--method=host-api: the cuRAND host-API comparison is bench/bench_mc_curand "
                                 "(make bench), no longer gpuquad mc");
  if (strcmp(o->method_text, "vegas") == 0)
    s->vegas = 1;
  else if (strcmp(o->method_text, "plain") != 0 && strcmp(o->method_text, "fused") != 0)
    return cli_error(EXIT_USAGE, "--method=%s: expected plain or vegas", o->method_text);
  if (strcmp(o->sampler_text, "sobol") == 0)
    s->sobol = 1;
  else if (strcmp(o->sampler_text, "philox") != 0)
    return cli_error(EXIT_USAGE, "--sampler=%s: expected philox or sobol", o->sampler_text);
  const char *vegas_only[][2] = {{"iterations", o->iterations_text}, {"warmup", o->warmup_text},
                                 {"bins", o->bins_text}, {"alpha", o->alpha_text}, {"beta", o->beta_text}};
  for (size_t k = 0; k < sizeof vegas_only / sizeof vegas_only[0]; k++)
    if (vegas_only[k][1] && !s->vegas)
      return cli_error(EXIT_USAGE, "--%s applies to --method=vegas only", vegas_only[k][0]);
  if (o->scramblings_text && !s->sobol)
    return cli_error(EXIT_USAGE, "--scramblings applies to --sampler=sobol only");
  if (s->vegas && s->sobol)
    return cli_error(EXIT_USAGE, "--sampler=sobol: VEGAS draws its own points (Philox); use one or the other");
  if ((s->vegas || s->sobol) && opt->dist != GQ_MC_UNIFORM)
    return cli_error(EXIT_USAGE, "--%s: %s fills a box; --dist=normal is plain Philox sampling only",
                     s->vegas ? "method=vegas" : "sampler=sobol", s->vegas ? "VEGAS" : "Sobol");
  if ((s->vegas || s->sobol) && o->tol_text)
    return cli_error(EXIT_USAGE, "--tol: stopping early is plain Philox sampling only");
  /* Their GPU passes add with atomics in whatever order the blocks run:
   * refused rather than promised (README, "Deterministic mode"). */
  if (s->vegas && cli_deterministic)
    return cli_error(EXIT_USAGE,
                     "--deterministic: --method=vegas is not covered yet (plain sampling, Philox or Sobol, is)");
  int rc = EXIT_OK;
  if (o->iterations_text && (rc = parse_bounded("iterations", o->iterations_text, 1, GQ_VEGAS_MAX_ITERATIONS,
                                                &s->v.iterations)) != EXIT_OK)
    return rc;
  if (o->warmup_text && (rc = parse_bounded("warmup", o->warmup_text, 0, GQ_VEGAS_MAX_ITERATIONS, &s->v.warmup)))
    return rc;
  if (o->bins_text && (rc = parse_bounded("bins", o->bins_text, 2, GQ_VEGAS_MAX_BINS, &s->v.bins)) != EXIT_OK)
    return rc;
  if (o->alpha_text && (rc = parse_unit("alpha", o->alpha_text, 2.0, &s->v.alpha)) != EXIT_OK)
    return rc;
  if (o->beta_text && (rc = parse_unit("beta", o->beta_text, 1.0, &s->v.beta)) != EXIT_OK)
    return rc;
  if (o->scramblings_text &&
      (rc = parse_bounded("scramblings", o->scramblings_text, 2, GQ_SOBOL_MAX_SCRAMBLINGS, &s->scramblings)))
    return rc;
  return EXIT_OK;
}

/* the command line -> gq_mc_options */
static int build_options(const mc_options *o, int dims, gq_mc_options *opt, double *exact, int *has_exact)
{
  char err[256];
  gq_mc_options_init(opt);
  opt->dims = dims;
  int rc;
  if ((rc = parse_list("a", o->a_text, dims, opt->a)) != EXIT_OK || (rc = parse_list("b", o->b_text, dims, opt->b)))
    return rc;
  if (strcmp(o->dist_text, "uniform") == 0)
    opt->dist = GQ_MC_UNIFORM;
  else if (strcmp(o->dist_text, "normal") == 0)
    opt->dist = GQ_MC_NORMAL;
  else
    return cli_error(EXIT_USAGE, "--dist=%s: expected uniform or normal", o->dist_text);
  /* N(0, I) has no box: limits given with it would be silently ignored */
  if (opt->dist == GQ_MC_NORMAL && (strcmp(o->a_text, "0") != 0 || strcmp(o->b_text, "1") != 0))
    return cli_error(EXIT_USAGE, "--%s: --dist=normal samples N(0, I) on the whole space, with no limits",
                     strcmp(o->a_text, "0") != 0 ? "a" : "b");
  if (opt->dist == GQ_MC_UNIFORM)
    for (int d = 0; d < dims; d++)
      if (opt->a[d] > opt->b[d])
        return cli_error(EXIT_USAGE, "a > b in dimension %d (a = %g, b = %g)", d + 1, opt->a[d], opt->b[d]);
  /* With --tol, n is the most samples to draw: a default that a GPU draws in
   * well under a second and a CPU core in some tens of seconds. */
  const char *n_text = o->n_text ? o->n_text : o->tol_text ? "2^30" : "1e6";
  if (gq_parse_count(n_text, GQ_MC_MAX_N, &opt->n, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--n=%s: %s", n_text, err);
  if (opt->n < 2)
    return cli_error(EXIT_USAGE, "--n=%s: a standard deviation needs at least 2 samples", n_text);
  if ((rc = parse_seed(o->seed_text, &opt->seed)) != EXIT_OK)
    return rc;
  /* The cuRAND host-API comparison left the library for bench/, so that
   * gpuquad links no cuRAND; --method=fused stays valid for scripts. */
  if (strcmp(o->method_text, "host-api") == 0)
    return cli_error(EXIT_USAGE, "--method=host-api: the cuRAND host-API comparison is bench/bench_mc_curand "
                                 "(make bench), no longer gpuquad mc");
  if (o->tol_text && gq_parse_real(o->tol_text, &opt->tol, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--tol=%s: %s", o->tol_text, err);
  if (o->tol_text && !(opt->tol > 0))
    return cli_error(EXIT_USAGE, "--tol=%s: must be positive", o->tol_text);
  if (strcmp(o->precision_text, "double") == 0)
    opt->precision = GQ_PRECISION_DOUBLE;
  else if (strcmp(o->precision_text, "float") == 0)
    opt->precision = GQ_PRECISION_FLOAT;
  else
    return cli_error(EXIT_USAGE, "--precision=%s: expected double or float", o->precision_text);
  *has_exact = o->exact_text != NULL;
  if (o->exact_text && gq_parse_real(o->exact_text, exact, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--exact=%s: %s", o->exact_text, err);
  return EXIT_OK;
}

static void print_box(const gq_mc_options *opt)
{
  if (opt->dist == GQ_MC_NORMAL) {
    printf("X ~ N(0, I)");
    return;
  }
  for (int d = 0; d < opt->dims; d++)
    printf("%s[%.6g, %.6g]", d ? " x " : "", opt->a[d], opt->b[d]);
}

static int run_mc(const gq_integrand *f, int dims, const mc_options *o)
{
  gq_mc_options opt;
  double exact = NAN;
  int has_exact = 0;
  int rc = build_options(o, dims, &opt, &exact, &has_exact);
  if (rc != EXIT_OK)
    return rc;
  sampling how;
  if ((rc = parse_sampling(o, &opt, &how)) != EXIT_OK)
    return rc;
  gq_context *ctx;
  cli_prestart(o->device_text, !gq_integrand_is_builtin(f)); /* NVRTC opens beside the context */
  if ((rc = cli_open_context(o->device_text, o->quiet, &ctx)) != EXIT_OK)
    return rc;
  if (o->no_cache)
    gq_context_set_jit_cache(ctx, 0);
  static mc_trace trace; /* --plot: VEGAS's and Sobol's reports */
  if (o->plot)
    mc_trace_attach(&trace, &opt);
  gq_mc_result r;
  gq_vegas_result vr;
  int status;
  if (how.vegas) {
    status = gq_mc_vegas(ctx, f, &opt, &how.v, &vr);
    r = vr.mc;
  } else if (how.sobol) {
    status = gq_mc_sobol(ctx, f, &opt, how.scramblings, &r);
  } else {
    status = gq_mc_mean(ctx, f, &opt, &r);
  }
  if (status != GQ_SUCCESS) {
    rc = cli_error(cli_exit_status(status), "%s", gq_last_error());
    gq_context_free(ctx);
    return rc;
  }
  cli_jit_note(r.jit);

  /* result -> check (the library's verdict: check/check.h), always against
   * an exact value given, against GSL with --check */
  gq_mc_reference ref = {NAN, NAN, NAN, 0, GQ_MC_REFERENCE_EXACT};
  double z = NAN;
  const int checked = has_exact || o->check;
  gq_check_outcome outcome = {GQ_CHECK_PASSED, 0, ""};
  if (checked) {
    status = gq_check_mc(f, &opt, &r, has_exact ? &exact : NULL, &ref, &z, &outcome);
    if (status != GQ_SUCCESS) {
      rc = cli_error(EXIT_RUNTIME, "reference: %s", gq_last_error());
      gq_context_free(ctx);
      return rc;
    }
  }
  /* VEGAS's own check: iterations that disagree make its error a guess */
  const int chi2_failed = how.vegas && vr.chi2_q < GQ_VEGAS_CHI2_Q;
  if (checked && chi2_failed) {
    char first[sizeof outcome.message];
    snprintf(first, sizeof first, "%s", outcome.verdict == GQ_CHECK_PASSED ? "" : outcome.message);
    outcome.verdict = GQ_CHECK_FAILED;
    snprintf(outcome.message, sizeof outcome.message,
             "vegas: the iterations disagree, chi2/dof = %.3g over %d iterations (tail probability %.2g < %g): "
             "the error estimate is not to be trusted (more samples, more --warmup, or a smaller --alpha)%s%.200s",
             vr.chi2_dof, vr.iterations, vr.chi2_q, GQ_VEGAS_CHI2_Q, first[0] ? "; " : "", first);
  }
  const int passed = outcome.verdict == GQ_CHECK_PASSED;
  const int tol_missed = opt.tol > 0.0 && !r.stopped_by_tol;
  const char *ref_method = ref.method == GQ_MC_REFERENCE_VEGAS  ? "gsl_monte_vegas"
                           : ref.method == GQ_MC_REFERENCE_PLAIN ? "gsl_monte_plain_mt19937"
                                                                 : "exact";
  const double wall_ms = cli_wall_ms() - o->t_start_ms;
  const double sps = r.kernel_ms > 0 ? (double)r.n / (r.kernel_ms * 1e-3) : NAN;
  const char *backend = gq_context_backend(ctx) == GQ_BACKEND_CUDA ? "cuda" : "cpu";

  if (o->json) {
    json_writer w;
    json_begin(&w, stdout);
    json_string(&w, "command", "mc");
    json_string(&w, "integrand", gq_integrand_name(f));
    json_string(&w, "formula", gq_integrand_formula(f));
    json_uint(&w, "dims", (uint64_t)opt.dims);
    json_string(&w, "dist", o->dist_text);
    if (opt.dist == GQ_MC_UNIFORM) { /* as integrate's: a number in one dimension, else an array */
      cli_json_limits(&w, "a", opt.dims, opt.a);
      cli_json_limits(&w, "b", opt.dims, opt.b);
    }
    json_uint(&w, "n", r.n);
    json_uint(&w, "n_requested", opt.n);
    json_uint(&w, "seed", r.seed);
    json_string(&w, "method", how.vegas ? "vegas" : "plain");
    json_string(&w, "sampler", how.sobol ? "sobol" : "philox");
    if (how.sobol)
      json_uint(&w, "scramblings", (uint64_t)how.scramblings);
    if (how.vegas) {
      json_number(&w, "chi2_dof", vr.chi2_dof);
      json_number(&w, "chi2_q", vr.chi2_q);
      json_uint(&w, "iterations", (uint64_t)vr.iterations);
      json_uint(&w, "warmup", (uint64_t)how.v.warmup);
      json_uint(&w, "strata", (uint64_t)vr.strata);
      json_uint(&w, "bins", (uint64_t)vr.bins);
      json_number(&w, "alpha", how.v.alpha);
      json_number(&w, "beta", how.v.beta);
    }
    json_string(&w, "precision", o->precision_text);
    json_number(&w, "mean", r.mean);
    json_number(&w, "sd", r.sd);
    json_number(&w, "stderr", r.se);
    json_number(&w, "ci95_low", r.ci_low);
    json_number(&w, "ci95_high", r.ci_high);
    json_number(&w, "volume", r.volume);
    json_number(&w, "integral", r.integral);
    json_number(&w, "integral_stderr", r.integral_se);
    json_bool(&w, "stopped_by_tol", r.stopped_by_tol);
    if (opt.tol > 0.0) {
      json_number(&w, "tol", opt.tol);
      json_bool(&w, "tol_reached", !tol_missed);
    }
    if (checked && outcome.has_reference) {
      json_number(&w, "reference", ref.value);
      json_number(&w, "reference_stderr", ref.se);
      json_string(&w, "reference_method", ref_method);
      json_number(&w, "z", z);
      json_number(&w, "z_threshold", GQ_MC_CHECK_Z);
    }
    json_string(&w, "check", checked ? gq_check_name(outcome.verdict) : "skipped");
    if (!passed)
      json_string(&w, "check_message", outcome.message);
    json_string(&w, "backend", backend);
    json_string(&w, "device", gq_context_device_name(ctx));
    json_number(&w, "kernel_ms", r.kernel_ms);
    json_number(&w, "wall_ms", wall_ms);
    json_number(&w, "samples_per_second", sps);
    json_string(&w, "jit", cli_jit_name(r.jit));
    json_number(&w, "jit_ms", r.compile_ms);
    json_end(&w);
  } else if (o->quiet) {
    printf("%.17g\n", r.integral);
  } else {
    printf("mc %s, %d dimension%s, ", gq_integrand_formula(f), opt.dims, opt.dims == 1 ? "" : "s");
    print_box(&opt);
    printf(" (%s, %s, %s)\n", how.vegas ? "vegas" : "plain", how.sobol ? "sobol" : "philox", o->precision_text);
    printf("  mean         %.17g\n", r.mean);
    printf("  sd           %.6g\n", r.sd);
    printf("  std. error   %.6g\n", r.se);
    printf("  95%% CI       [%.17g, %.17g]\n", r.ci_low, r.ci_high);
    printf("  integral     %.17g  (volume %.6g x mean, +/- %.3g)\n", r.integral, r.volume, r.integral_se);
    if (checked && outcome.verdict != GQ_CHECK_NOT_MADE) {
      printf("  reference    %.17g  (%s, +/- %.2g)\n", ref.value, ref_method, ref.se);
      printf("  z-score      %.3f  (threshold %g): %s\n", z, GQ_MC_CHECK_Z, passed ? "ok" : "FAILED");
    } else if (checked) {
      printf("  reference    none: the check could not be made (see stderr)\n");
    }
    if (gq_context_backend(ctx) == GQ_BACKEND_CUDA)
      printf("  backend      cuda: %s, %d multiprocessors\n", gq_context_device_name(ctx), gq_context_threads(ctx));
    else
      printf("  backend      %s\n", gq_context_device_name(ctx));
    printf("  samples      %llu%s\n", (unsigned long long)r.n,
           r.stopped_by_tol ? "  (stopped: --tol reached)" : tol_missed ? "  (all drawn: --tol NOT reached)" : "");
    if (how.sobol)
      printf("  scramblings  %d x %llu points%s\n", how.scramblings, (unsigned long long)(r.n / how.scramblings),
             r.n != opt.n ? "  (n rounded up: a power of two per scrambling)" : "");
    if (how.vegas) {
      printf("  chi2/dof     %.3f  (%d iterations after %d of warm-up; tail %.2g)%s\n", vr.chi2_dof, vr.iterations,
             how.v.warmup, vr.chi2_q, chi2_failed ? ": the iterations DISAGREE" : "");
      printf("  adaptation   %d bins per axis (alpha %g), %d^%d hypercubes (beta %g)\n", vr.bins, how.v.alpha,
             vr.strata, opt.dims, how.v.beta);
    }
    printf("  seed         %llu\n", (unsigned long long)r.seed);
    if (r.jit != GQ_JIT_NONE)
      printf("  jit          %s in %.4g ms (NVRTC, kernel cache)\n", cli_jit_name(r.jit), r.compile_ms);
    printf("  kernel time  %.4g ms  (%.3g samples/s)\n", r.kernel_ms, sps);
    printf("  wall time    %.4g ms\n", wall_ms);
  }
  if (o->plot) {
    const mc_sampler sampler = how.vegas ? MC_VEGAS : how.sobol ? MC_SOBOL : MC_PLAIN;
    if ((rc = mc_plot(o->plot, ctx, f, &opt, sampler, &trace, &r, has_exact ? exact : NAN)) != EXIT_OK) {
      gq_context_free(ctx);
      return rc;
    }
  }
  gq_context_free(ctx);
  if (tol_missed)
    fprintf(stderr,
            "gpuquad: --tol=%s not reached: the standard error is %.3g after %llu samples, the most "
            "allowed (raise --n)\n",
            o->tol_text, r.se, (unsigned long long)r.n);
  if (!passed)
    fprintf(stderr, "gpuquad: %s\n", outcome.message);
  return tol_missed || !passed ? EXIT_CHECK : EXIT_OK;
}
