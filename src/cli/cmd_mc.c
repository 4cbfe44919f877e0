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
#include "lib/check/check.h" /* the reference and the verdict (libgpuquad) */
#include "numparse.h"

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
        "  --method=fused       the one method (Philox inside the reduction), accepted\n"
        "                       for scripts; cuRAND's host API: bench/bench_mc_curand\n"
        "  --tol=ABS            stop once the standard error of the mean is below ABS;\n"
        "                       exit 1 if it is not after --n samples\n"
        "  --device=DEV         auto (default: the GPU if there is one), cuda, cuda:N, cpu\n"
        "  --precision=P        double (default) or float: f evaluated in float,\n"
        "                       the sums accumulated in double\n"
        "  --check, --no-check  compare with GSL (default on): VEGAS for a box, plain\n"
        "                       Monte Carlo (Mersenne Twister) for normal; exit 1 when\n"
        "                       the z-score of the difference is beyond 5, or when\n"
        "                       the check cannot be made (in one dimension: f has no\n"
        "                       mean or an infinite variance)\n"
        "  --exact=V            compare with this exact value of the integral instead\n"
        "  --no-cache           neither read nor write the GPU kernel cache\n"
        "  --json               one JSON object instead of the table\n"
        "  --quiet              print only the integral estimate\n"
        "  --param NAME=LO:HI:STEP, --param NAME=@FILE\n"
        "                       a sweep: one run per value (several: their product),\n"
        "                       in one process; --a/--b may use the parameters\n"
        "  --csv                a sweep's results as CSV (--json: JSON Lines)\n"
        "  --plot=FILE          a sweep's integrals, with error bars, against the\n"
        "                       swept parameter: FILE.png or FILE.svg (gnuplot)\n"
        "  --help               this help\n"
        "\n"
        "Long runs on a terminal show progress on stderr.\n"
        "Exit status: 0 ok, 1 check failed or not made, or --tol not reached,\n"
        "2 bad input, 3 computation failed.\n",
        out);
}

typedef struct {
  const char *fname, *dim_text, *a_text, *b_text, *dist_text, *n_text, *seed_text, *method_text, *tol_text,
      *device_text, *precision_text, *exact_text;
  int check, json, quiet, no_cache;
  double t_start_ms;
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

/* Progress on stderr: only when it is a terminal, the run has taken more than
 * 2 s, and at most twice a second. */
typedef struct {
  double last_ms;
  int shown;
} progress_state;

static void show_progress(const gq_mc_progress *p, void *user)
{
  progress_state *s = user;
  if (p->elapsed_ms < 2000.0 || p->elapsed_ms - s->last_ms < 500.0)
    return;
  s->last_ms = p->elapsed_ms;
  s->shown = 1;
  fprintf(stderr, "\rgpuquad: mc %.3g of %.3g samples (%.0f%%), mean %.10g +/- %.3g   ", (double)p->done,
          (double)p->n, 100.0 * (double)p->done / (double)p->n, p->mean, p->se);
  fflush(stderr);
}

static int run_mc(const gq_integrand *f, int dims, const mc_options *o);

int cmd_mc(int argc, char **argv, int first, double t_start_ms)
{
  mc_options o = {NULL, "1", "0", "1", "uniform", NULL, "0", "fused", NULL, "auto", "double", NULL,
                  1, 0, 0, 0, t_start_ms};
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
    {"device", OPT_VALUE, &o.device_text, NULL, 0},
    {"precision", OPT_VALUE, &o.precision_text, NULL, 0},
    {"exact", OPT_VALUE, &o.exact_text, NULL, 0},
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
  if (cli_parse(argc, argv, first, opts, sizeof opts / sizeof opts[0], positional, 0, &npos, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "%s", err);
  if (help) {
    usage_mc(stdout);
    return EXIT_OK;
  }
  if (!o.fname)
    return cli_error(EXIT_USAGE, "mc: --f=EXPR is required (see gpuquad mc --help)");
  if (batch_wanted(params, nparams, o.a_text, o.b_text) || csv || plot) { /* a sweep: batch_run.c */
    batch_problem p = {BATCH_MC, o.fname, o.dim_text, o.a_text, o.b_text, o.n_text, NULL, o.precision_text,
                       o.dist_text, o.seed_text, o.tol_text, o.exact_text, o.method_text, o.check,
                       .nparams = nparams};
    memcpy(p.params, params, (size_t)nparams * sizeof *params);
    return batch_sweep_command(&p, o.device_text, o.no_cache, batch_format_of(o.json, csv, o.quiet), plot);
  }
  uint64_t dims;
  if (gq_parse_count(o.dim_text, GQ_MC_MAX_DIMS, &dims, err, sizeof err) != 0)
    return cli_error(EXIT_USAGE, "--dim=%s: %s", o.dim_text, err);
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
  if (strcmp(o->method_text, "fused") != 0)
    return cli_error(EXIT_USAGE, "--method=%s: expected fused (the one method)", o->method_text);
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
  gq_context *ctx;
  if ((rc = cli_open_context(o->device_text, o->quiet, &ctx)) != EXIT_OK)
    return rc;
  if (o->no_cache)
    gq_context_set_jit_cache(ctx, 0);
  progress_state progress = {0.0, 0};
#ifdef HAVE_ISATTY
  if (isatty(STDERR_FILENO) && !o->quiet && !o->json) {
    opt.progress = show_progress;
    opt.progress_user = &progress;
  }
#endif
  gq_mc_result r;
  int status = gq_mc_mean(ctx, f, &opt, &r);
  if (progress.shown)
    fputc('\n', stderr);
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
    if (opt.dist == GQ_MC_UNIFORM)
      for (int d = 0; d < opt.dims; d++) {
        char key[16];
        snprintf(key, sizeof key, "a%d", d + 1);
        json_number(&w, key, opt.a[d]);
        snprintf(key, sizeof key, "b%d", d + 1);
        json_number(&w, key, opt.b[d]);
      }
    json_uint(&w, "n", r.n);
    json_uint(&w, "n_requested", opt.n);
    json_uint(&w, "seed", r.seed);
    json_string(&w, "method", o->method_text);
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
    printf(" (%s, %s)\n", o->method_text, o->precision_text);
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
    printf("  seed         %llu\n", (unsigned long long)r.seed);
    if (r.jit != GQ_JIT_NONE)
      printf("  jit          %s in %.4g ms (NVRTC, kernel cache)\n", cli_jit_name(r.jit), r.compile_ms);
    printf("  kernel time  %.4g ms  (%.3g samples/s)\n", r.kernel_ms, sps);
    printf("  wall time    %.4g ms\n", wall_ms);
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
