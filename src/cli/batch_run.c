/* batch_run.c — one problem of a sweep or a batch file on a shared context:
 * option text -> integrand, box or Monte Carlo options -> the library ->
 * the check -> a record.  Every problem is the library call a single run
 * makes, on the same kind of context, so each result is bitwise the single
 * run's (tests/batch_cli.sh compares them); only the context, and on a GPU
 * the expression's compiled module, are shared. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "batch_params.h"
#include "lib/check/check.h"
#include "lib/expr/expr.h"
#include "lib/packed.h"
#include "numparse.h"
#include "progress.h"

void batch_problem_init(batch_problem *p, batch_command command)
{
  memset(p, 0, sizeof *p);
  p->command = command;
  p->check = 1;
}

batch_format batch_format_of(int json, int csv, int quiet)
{
  return json ? BATCH_JSONL : csv ? BATCH_CSV : quiet ? BATCH_QUIET : BATCH_TABLE;
}

/* Every comma-separated value of text is a limit (a number, pi, e, inf). */
static int plain_limits(const char *text)
{
  char tok[CLI_TOKEN], why[128];
  double v;
  for (const char *p = text; p;) {
    const size_t len = strcspn(p, ",");
    if (len >= sizeof tok)
      return 1; /* too long for any limit: the single run says so */
    memcpy(tok, p, len);
    tok[len] = '\0';
    if (gq_parse_limit(tok, &v, why, sizeof why) != 0)
      return 0;
    p = p[len] ? p + len + 1 : NULL;
  }
  return 1;
}

int batch_wanted(const char *const *params, int nparams, const char *a, const char *b)
{
  return sweep_wanted(params, nparams) || (nparams > 0 && ((a && !plain_limits(a)) || (b && !plain_limits(b))));
}

/* What a problem failed with: the message, and the status it exits with. */
typedef struct {
  char text[400];
  int status;
} problem_error;

static int refuse(problem_error *e, int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
static int refuse(problem_error *e, int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->text, sizeof e->text, fmt, ap);
  va_end(ap);
  e->status = status;
  return status;
}

/* The definitions among defs whose name appears in text as a whole name,
 * for an expression that must use every parameter it is given. */
static size_t used_definitions(const char *text, const char *const *defs, size_t ndefs, const char **used)
{
  size_t count = 0;
  for (size_t k = 0; k < ndefs; k++)
    if (uses_name(text, defs[k], strcspn(defs[k], "=")))
      used[count++] = defs[k];
  return count;
}

/* A limit: a number, pi, e or inf as for a single run; otherwise, with
 * parameters, a constant expression of them (--b=k, --b='2*pi/k'), which
 * goes to *kept (NULL for a number) when the limit is good. */
static int limit_value(const char *name, const char *text, const char *const *defs, size_t ndefs, double *v,
                       gq_expr **kept, problem_error *e)
{
  char why[128];
  *kept = NULL;
  if (gq_parse_limit(text, v, why, sizeof why) == 0)
    return EXIT_OK;
  if (ndefs == 0)
    return refuse(e, EXIT_USAGE, "--%s=%s: %s", name, text, why);
  const char *used[CLI_MAX_PARAMS];
  const size_t nused = used_definitions(text, defs, ndefs, used);
  gq_expr_params params = {used, nused};
  gq_expr *x = NULL;
  gq_expr_error err;
  if (gq_expr_parse(text, nused ? &params : NULL, 1, &x, &err) != GQ_SUCCESS)
    return refuse(e, EXIT_USAGE, "--%s=%s: %s", name, text, err.message);
  const int constant = gq_expr_dims_used(x) == 0;
  const double no_variables[1] = {0.0};
  *v = gq_expr_eval(x, no_variables);
  if (!constant || isnan(*v)) {
    gq_expr_free(x);
    return refuse(e, EXIT_USAGE, "--%s=%s: %s", name, text,
                  !constant ? "a limit may use the parameters, not x" : "the limit is NaN");
  }
  *kept = x;
  return EXIT_OK;
}

/* "v" or "v1,v2,...": one value for every axis, or exactly dims. */
static int split_list(const char *name, const char *text, int dims, char tok[][CLI_TOKEN], problem_error *e)
{
  int count = 0;
  for (const char *p = text;; count++) {
    const size_t len = strcspn(p, ",");
    if (count >= dims || len >= CLI_TOKEN)
      return refuse(e, EXIT_USAGE, "--%s=%s: %s", name, text,
                    len >= CLI_TOKEN ? "a value is too long" : "more values than dimensions");
    memcpy(tok[count], p, len);
    tok[count][len] = '\0';
    if (!p[len])
      break;
    p += len + 1;
  }
  count++;
  if (count == 1)
    for (int d = 1; d < dims; d++)
      memcpy(tok[d], tok[0], CLI_TOKEN);
  else if (count != dims)
    return refuse(e, EXIT_USAGE, "--%s=%s: %d values for %d dimensions (give one, or one per dimension)", name,
                  text, count, dims);
  return EXIT_OK;
}

/* --a or --b (name) over dims dimensions: from the sweep's cache, or read
 * as the single run reads it (and then cached). */
static int limits(const char *name, const char *text, int dims, double *out, problem_params *pp, problem_error *e)
{
  const int side = strcmp(name, "b") == 0;
  if (cached_limits(pp, side, text, dims, out))
    return EXIT_OK;
  char tok[GQ_MC_MAX_DIMS][CLI_TOKEN];
  gq_expr *expr[GQ_MC_MAX_DIMS] = {NULL};
  if (split_list(name, text, dims, tok, e) != EXIT_OK)
    return e->status;
  const char *const *defs = problem_defs(pp);
  for (int d = 0; d < dims; d++)
    if (limit_value(name, tok[d], defs, problem_ndefs(pp), &out[d], &expr[d], e) != EXIT_OK) {
      for (int k = 0; k < d; k++)
        gq_expr_free(expr[k]);
      return e->status;
    }
  cache_limits(pp, side, text, dims, out, expr, (const char(*)[CLI_TOKEN])tok);
  return EXIT_OK;
}

static int precision_of(const char *text, gq_precision *precision, problem_error *e)
{
  if (!text || strcmp(text, "double") == 0)
    *precision = GQ_PRECISION_DOUBLE;
  else if (strcmp(text, "float") == 0)
    *precision = GQ_PRECISION_FLOAT;
  else
    return refuse(e, EXIT_USAGE, "--precision=%s: expected double or float", text);
  return EXIT_OK;
}

static const char *reference_check(int checked, const gq_check_outcome *o)
{
  return checked ? gq_check_name(o->verdict) : "skipped";
}

/* A rule over a box: integrate's problem, as cmd_integrate builds it. */
static int rule_setup(const batch_problem *p, const gq_integrand *f, int dims, problem_params *pp,
                      gq_box *box_out, gq_rule_spec *spec_out, gq_precision *precision_out, problem_error *e)
{
  gq_box box = {.dims = dims};
  double ends[2];
  gq_integrand_limits(f, &ends[0], &ends[1]);
  const char *texts[2] = {p->a, p->b}, *names[2] = {"a", "b"};
  double *sides[2] = {box.a, box.b};
  for (int side = 0; side < 2; side++) {
    if (texts[side] && limits(names[side], texts[side], dims, sides[side], pp, e) != EXIT_OK)
      return e->status;
    for (int d = 0; d < dims && !texts[side]; d++)
      sides[side][d] = ends[side];
  }
  for (int d = 0; d < dims; d++)
    if (isinf(box.a[d]) && box.a[d] == box.b[d])
      return refuse(e, EXIT_USAGE, "--a, --b: the interval [%g, %g] is empty", box.a[d], box.b[d]);
  const char *n_text = p->n ? p->n : dims == 1 ? "1e6" : "100";
  char tok[GQ_MAX_DIM][CLI_TOKEN], why[256];
  if (split_list("n", n_text, dims, tok, e) != EXIT_OK)
    return e->status;
  for (int d = 0; d < dims; d++)
    if (gq_parse_count(tok[d], GQ_TRAPEZOID_MAX_N, &box.n[d], why, sizeof why) != 0)
      return refuse(e, EXIT_USAGE, "--n=%s: %s", n_text, why);
  gq_rule_spec spec;
  if (gq_rule_spec_parse(p->rule ? p->rule : "trapezoid", &spec) != GQ_SUCCESS)
    return refuse(e, EXIT_USAGE, "--rule=%s: %s", p->rule, gq_last_error());
  if (spec.rule != GQ_RULE_GAUSS_LEGENDRE)
    for (int d = 0; d < dims; d++)
      if (gq_rule_check_n(spec.rule, box.n[d]) != GQ_SUCCESS)
        return refuse(e, EXIT_USAGE, "--n=%s: %s", n_text, gq_last_error());
  gq_precision precision;
  if (precision_of(p->precision, &precision, e) != EXIT_OK)
    return e->status;
  *box_out = box;
  *spec_out = spec;
  *precision_out = precision;
  return EXIT_OK;
}

static int run_rule(gq_context *ctx, const batch_problem *p, const gq_integrand *f, int dims, problem_params *pp,
                    batch_record *r, gq_check_outcome *outcome, problem_error *e)
{
  gq_box box;
  gq_rule_spec spec;
  gq_precision precision;
  if (rule_setup(p, f, dims, pp, &box, &spec, &precision, e) != EXIT_OK)
    return e->status;
  gq_rule_result res;
  const int status = gq_integrate_box(ctx, f, spec, &box, precision, &res);
  if (status != GQ_SUCCESS)
    return refuse(e, cli_exit_status(status), "%s", gq_last_error());
  r->estimate = res.result;
  r->error_estimate = res.abserr;
  r->kernel_ms = res.kernel_ms;
  r->jit = cli_jit_name(res.jit);
  if (p->check) {
    gq_reference ref = {NAN, NAN, NAN, GQ_REFERENCE_EXACT, NAN};
    const int line = dims == 1 && spec.rule != GQ_RULE_GAUSS_LEGENDRE;
    const int s = line ? gq_check_rule(f, box.a[0], box.b[0], &res, precision, &ref, &r->tolerance, outcome)
                       : gq_check_box(f, &box, &res, precision, &ref, &r->tolerance, outcome);
    if (s != GQ_SUCCESS)
      return refuse(e, EXIT_RUNTIME, "reference: %s", gq_last_error());
    if (outcome->has_reference) {
      r->reference = ref.value;
      r->difference = res.result - ref.value;
    }
  }
  return EXIT_OK;
}

/* Monte Carlo: mc's problem, as cmd_mc builds it. */
static int run_mc(gq_context *ctx, const batch_problem *p, const gq_integrand *f, int dims, problem_params *pp,
                  batch_record *r, gq_check_outcome *outcome, int *checked, problem_error *e)
{
  gq_mc_options opt;
  char why[256];
  gq_mc_options_init(&opt);
  opt.dims = dims;
  const char *dist = p->dist ? p->dist : "uniform";
  if (strcmp(dist, "uniform") == 0)
    opt.dist = GQ_MC_UNIFORM;
  else if (strcmp(dist, "normal") == 0)
    opt.dist = GQ_MC_NORMAL;
  else
    return refuse(e, EXIT_USAGE, "--dist=%s: expected uniform or normal", dist);
  /* the single run's defaults, 0 and 1, are no limits given */
  const int a_given = p->a && strcmp(p->a, "0") != 0, b_given = p->b && strcmp(p->b, "1") != 0;
  if (opt.dist == GQ_MC_NORMAL && (a_given || b_given))
    return refuse(e, EXIT_USAGE, "--%s: --dist=normal samples N(0, I) on the whole space, with no limits",
                  a_given ? "a" : "b");
  if (limits("a", p->a ? p->a : "0", dims, opt.a, pp, e) != EXIT_OK ||
      limits("b", p->b ? p->b : "1", dims, opt.b, pp, e) != EXIT_OK)
    return e->status;
  for (int d = 0; d < dims && opt.dist == GQ_MC_UNIFORM; d++)
    if (!(opt.a[d] <= opt.b[d]) || isinf(opt.a[d]) || isinf(opt.b[d]))
      return refuse(e, EXIT_USAGE, "a > b, or an infinite limit, in dimension %d (a = %g, b = %g)", d + 1,
                    opt.a[d], opt.b[d]);
  const char *n_text = p->n ? p->n : p->tol ? "2^30" : "1e6";
  if (gq_parse_count(n_text, GQ_MC_MAX_N, &opt.n, why, sizeof why) != 0)
    return refuse(e, EXIT_USAGE, "--n=%s: %s", n_text, why);
  if (opt.n < 2)
    return refuse(e, EXIT_USAGE, "--n=%s: a standard deviation needs at least 2 samples", n_text);
  if (p->seed && gq_parse_whole(p->seed, 0, UINT64_MAX, &opt.seed, why, sizeof why) != 0)
    return refuse(e, EXIT_USAGE, "--seed=%s: %s", p->seed, why);
  if (p->tol && (gq_parse_real(p->tol, &opt.tol, why, sizeof why) != 0 || !(opt.tol > 0)))
    return refuse(e, EXIT_USAGE, "--tol=%s: %s", p->tol, opt.tol > 0 ? why : "must be positive");
  if (precision_of(p->precision, &opt.precision, e) != EXIT_OK)
    return e->status;
  if (p->method && strcmp(p->method, "plain") != 0 && strcmp(p->method, "fused") != 0)
    return refuse(e, EXIT_USAGE, "--method=%s: a sweep or batch line runs plain Monte Carlo only (plain, or "
                  "fused, its old name; VEGAS runs alone; cuRAND's host API is bench/bench_mc_curand)", p->method);
  double exact = NAN;
  if (p->exact && gq_parse_real(p->exact, &exact, why, sizeof why) != 0)
    return refuse(e, EXIT_USAGE, "--exact=%s: %s", p->exact, why);

  gq_mc_result res;
  const int status = gq_mc_mean(ctx, f, &opt, &res);
  if (status != GQ_SUCCESS)
    return refuse(e, cli_exit_status(status), "%s", gq_last_error());
  r->estimate = res.integral;
  r->error_estimate = res.integral_se;
  r->kernel_ms = res.kernel_ms;
  r->jit = cli_jit_name(res.jit);
  *checked = p->exact || p->check;
  if (*checked) {
    gq_mc_reference ref = {NAN, NAN, NAN, 0, GQ_MC_REFERENCE_EXACT};
    if (gq_check_mc(f, &opt, &res, p->exact ? &exact : NULL, &ref, &r->tolerance, outcome) != GQ_SUCCESS)
      return refuse(e, EXIT_RUNTIME, "reference: %s", gq_last_error());
    if (outcome->has_reference) {
      r->reference = ref.value;
      r->difference = res.integral - ref.value;
    }
  }
  if (opt.tol > 0.0 && !res.stopped_by_tol && outcome->verdict == GQ_CHECK_PASSED)
    return refuse(e, EXIT_CHECK, "--tol=%s not reached: the standard error is %.3g after %llu samples", p->tol,
                  res.se, (unsigned long long)res.n);
  return EXIT_OK;
}

/* A parameter must be used, by f or by a limit. */
static int unused_parameter(const batch_problem *p, const char *const *defs, size_t ndefs, problem_error *e)
{
  const char *texts[3] = {p->f ? p->f : "", p->a ? p->a : "", p->b ? p->b : ""}, *used[1];
  for (size_t k = 0; k < ndefs; k++) {
    int found = 0;
    for (int t = 0; t < 3 && !found; t++)
      found = used_definitions(texts[t], &defs[k], 1, used) == 1;
    if (!found)
      return refuse(e, EXIT_USAGE, "--param %s: the parameter is used neither by --f nor by --a or --b", defs[k]);
  }
  return EXIT_OK;
}

/* A problem's integrand and dimension: from the sweep's cache, or from its
 * parameters' definitions as the single run parses them (and then
 * cached): EXIT_OK, or the refusal in e. */
static int problem_integrand(const batch_problem *p, problem_params *pp, uint64_t *dims, gq_integrand **f,
                             problem_error *e)
{
  if (cached_integrand(pp, f, dims))
    return EXIT_OK;
  const char *const *defs = problem_defs(pp);
  const size_t ndefs = problem_ndefs(pp);
  char why[256];
  gq_parse_error perr;
  const uint64_t max_dims = p->command == BATCH_MC ? GQ_MC_MAX_DIMS : GQ_MAX_DIM;
  const char *f_defs[CLI_MAX_PARAMS]; /* those f uses; the others are the limits' */
  *dims = 1;
  if (p->command == BATCH_MC && !p->f)
    return refuse(e, EXIT_USAGE, "mc: --f=EXPR is required");
  if (p->dim && gq_parse_count(p->dim, max_dims, dims, why, sizeof why) != 0)
    return refuse(e, EXIT_USAGE, "--dim=%s: %s", p->dim, why);
  if (unused_parameter(p, defs, ndefs, e) != EXIT_OK)
    return e->status;
  if (cache_integrand(pp, p->f ? p->f : "circle", f_defs, used_definitions(p->f ? p->f : "", defs, ndefs, f_defs),
                      *dims, f, &perr) != GQ_SUCCESS)
    return refuse(e, perr.status == GQ_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "--f=%s: %s", p->f ? p->f : "circle",
                  perr.message);
  return EXIT_OK;
}

/* The record's "k=1 c=2": every format but --quiet prints it, --quiet
 * with a problem's error, a plot keys its curves by it. */
static void label(problem_params *pp, const batch_writer *w, batch_record *r)
{
  if (!r->params[0] && (w->format != BATCH_QUIET || w->points || r->status >= EXIT_USAGE))
    problem_label(pp, r->params, sizeof r->params);
}

/* One problem: its parameters -> a record. */
static void run_one(gq_context *ctx, const batch_problem *p, problem_params *pp, gq_integrand *parsed,
                    uint64_t parsed_dims, batch_record *r, batch_writer *w)
{
  problem_error e = {"", EXIT_OK};
  gq_check_outcome outcome = {GQ_CHECK_PASSED, 0, ""};
  int checked = p->check;
  uint64_t dims = parsed_dims;
  gq_integrand *f = parsed;
  if (!f && problem_integrand(p, pp, &dims, &f, &e) != EXIT_OK)
    ;
  else if (p->command == BATCH_MC)
    run_mc(ctx, p, f, (int)dims, pp, r, &outcome, &checked, &e);
  else
    run_rule(ctx, p, f, (int)dims, pp, r, &outcome, &e);
  r->formula = f ? gq_integrand_formula(f) : p->f ? p->f : "circle";
  if (e.status != EXIT_OK) {
    r->status = e.status;
    r->check = e.status == EXIT_CHECK ? reference_check(checked, &outcome) : "error";
    r->message = e.text;
  } else {
    r->check = reference_check(checked, &outcome);
    r->status = outcome.verdict == GQ_CHECK_PASSED ? EXIT_OK : EXIT_CHECK;
    r->message = outcome.message;
  }
  label(pp, w, r);
  batch_write(w, r);
  gq_integrand_free(f);
}

/* Problems of a sweep packed together (packed.h): their integrands in
 * memory at once (~2.5 KB each, ~40 MB).  The first chunk is set up while
 * the context opens (batch_sweep_command): 16384 problems take ~30 ms of its
 * ~200, so a sweep of up to that many has all its setup done by then, and
 * its sums in one launch. */
#define PACK_CHUNK 16384

/* Problems start .. start + here - 1 of a sweep, set up on the host as
 * run_one would set them up, before anything goes to a context: their
 * integrands (f[i], NULL where the parse failed, for run_one to parse again
 * and report), the sweep's dimension, and where they are one-dimensional
 * Newton-Cotes problems, their limits and n for one packed launch. */
typedef struct {
  size_t here;
  gq_integrand **f;
  uint64_t dims;
  double *a, *b; /* NULL: nothing to pack */
  uint64_t n;
  gq_precision precision;
} chunk;

static void chunk_setup(const batch_problem *p, const sweep *s, sweep_cache *cache, size_t start, size_t here,
                        gq_integrand **f, chunk *c)
{
  *c = (chunk){.here = here, .f = f, .dims = 1, .precision = GQ_PRECISION_DOUBLE};
  if (!f || p->command != BATCH_INTEGRATE || here < 2)
    return;
  double *a = malloc(here * sizeof *a), *b = malloc(here * sizeof *b);
  double values[CLI_MAX_PARAMS];
  int line = a && b, any = 0;
  for (size_t i = 0; i < here && line; i++) {
    problem_params pp;
    sweep_values(s, start + i, values);
    problem_params_init(&pp, s, values, cache);
    problem_error e = {"", EXIT_OK};
    uint64_t dims;
    gq_box box;
    gq_rule_spec spec;
    a[i] = b[i] = NAN; /* not packed */
    if (problem_integrand(p, &pp, &dims, &f[i], &e) != EXIT_OK)
      continue;
    c->dims = dims; /* the sweep's --dim, the same for all */
    if (rule_setup(p, f[i], (int)dims, &pp, &box, &spec, &c->precision, &e) != EXIT_OK)
      continue;
    /* the rule and n are the sweep's too */
    line = dims == 1 && spec.rule != GQ_RULE_GAUSS_LEGENDRE;
    any = 1;
    c->n = box.n[0];
    a[i] = box.a[0];
    b[i] = box.b[0];
  }
  if (line && any) {
    c->a = a;
    c->b = b;
  } else {
    free(a);
    free(b);
  }
}

/* The chunk's grid sums, computed together (one launch on a GPU, side by
 * side on the CPU's threads); NULL where nothing is packed. */
static gq_packed *chunk_pack(gq_context *ctx, chunk *c)
{
  gq_packed *pk = NULL;
  if (c->a && gq_packed_prepare(ctx, (const gq_integrand *const *)c->f, c->a, c->b, c->n, c->precision, c->here,
                                &pk) != GQ_SUCCESS)
    pk = NULL; /* the problems run alone, each reporting its own outcome */
  free(c->a);
  free(c->b);
  c->a = c->b = NULL;
  return pk;
}

/* A sweep on its way through batch_run: parsed, its first chunk possibly set
 * up before the context was opened (batch_sweep_command), then run. */
typedef struct {
  sweep s;
  sweep_cache cache, *shared; /* a sweep's problems share their setup */
  gq_integrand **parsed;      /* a chunk's integrands; NULL: each problem parses its own */
  chunk first;
  int first_ready;
} plan;

/* EXIT_OK, or the sweep's error in why. */
static int plan_open(plan *pl, const batch_problem *p, char *why, size_t len)
{
  memset(pl, 0, sizeof *pl);
  const int rc = sweep_parse(&pl->s, p->params, p->nparams, why, len);
  if (rc != EXIT_OK)
    return rc;
  pl->shared = pl->s.problems > 1 ? &pl->cache : NULL;
  pl->parsed = calloc(pl->s.problems < PACK_CHUNK ? pl->s.problems : PACK_CHUNK, sizeof *pl->parsed);
  return EXIT_OK;
}

static void plan_first(plan *pl, const batch_problem *p)
{
  const size_t here = pl->s.problems < PACK_CHUNK ? pl->s.problems : PACK_CHUNK;
  chunk_setup(p, &pl->s, pl->shared, 0, here, pl->parsed, &pl->first);
  pl->first_ready = 1;
}

static void plan_free(plan *pl)
{
  if (pl->first_ready) { /* set up and never run */
    for (size_t i = 0; pl->parsed && i < pl->first.here; i++)
      gq_integrand_free(pl->parsed[i]);
    free(pl->first.a);
    free(pl->first.b);
  }
  free(pl->parsed);
  sweep_cache_free(&pl->cache);
  sweep_free(&pl->s);
}

static void plan_run(gq_context *ctx, plan *pl, const batch_problem *p, size_t line, batch_writer *w)
{
  sweep *s = &pl->s;
  if (w->plot && !w->axis[0] && s->naxes > 0) {
    /* the plot's x axis: the first parameter that takes several values */
    for (int k = 0; k < s->naxes && !w->axis[0]; k++)
      if (s->axis[k].count > 1)
        snprintf(w->axis, sizeof w->axis, "%s", s->axis[k].name);
    snprintf(w->title, sizeof w->title, "%s %s", p->command == BATCH_MC ? "mc" : "integrate",
             p->f ? p->f : "circle");
    w->mc = p->command == BATCH_MC;
  }
  double values[CLI_MAX_PARAMS];
  for (size_t start = 0; start < s->problems; start += PACK_CHUNK) {
    const size_t here = s->problems - start < PACK_CHUNK ? s->problems - start : PACK_CHUNK;
    chunk c;
    if (start == 0 && pl->first_ready)
      c = pl->first;
    else
      chunk_setup(p, s, pl->shared, start, here, pl->parsed, &c);
    pl->first_ready = 0;
    gq_packed *pk = chunk_pack(ctx, &c);
    for (size_t i = start; i < start + here; i++) {
      batch_record r = {.line = line, .index = i, .command = p->command, .jit = "none"};
      r.estimate = r.error_estimate = r.reference = r.difference = r.tolerance = r.kernel_ms = r.x = NAN;
      problem_params pp;
      sweep_values(s, i, values);
      problem_params_init(&pp, s, values, pl->shared);
      for (int k = 0; k < s->naxes; k++)
        if (strcmp(s->axis[k].name, w->axis) == 0)
          r.x = values[k];
      if (s->problems > 1) /* a sweep's progress: its integrals */
        cli_progress_problems(ctx, i, s->problems);
      gq_packed_select(ctx, pk, i - start);
      run_one(ctx, p, &pp, pl->parsed ? pl->parsed[i - start] : NULL, c.dims, &r, w);
      if (pl->parsed)
        pl->parsed[i - start] = NULL; /* run_one freed it */
    }
    gq_packed_select(ctx, NULL, 0);
    gq_packed_free(pk);
  }
  if (s->problems > 1) {
    cli_progress_problems(ctx, s->problems, s->problems);
    cli_progress_attach(ctx);
  }
}

void batch_run(gq_context *ctx, const batch_problem *p, size_t line, batch_writer *w)
{
  plan pl;
  char why[400];
  const int rc = plan_open(&pl, p, why, sizeof why);
  if (rc != EXIT_OK) {
    batch_record r = {.line = line, .command = p->command, .formula = p->f ? p->f : "", .check = "error",
                      .message = why, .status = rc, .jit = "none"};
    r.estimate = r.error_estimate = r.reference = r.difference = r.tolerance = r.kernel_ms = r.x = NAN;
    batch_write(w, &r);
    plan_free(&pl);
    return;
  }
  plan_run(ctx, &pl, p, line, w);
  plan_free(&pl);
}

void batch_write_error(batch_writer *w, size_t line, const char *message)
{
  batch_record r = {.line = line, .formula = "", .check = "error", .message = message, .status = EXIT_USAGE,
                    .jit = "none"};
  r.estimate = r.error_estimate = r.reference = r.difference = r.tolerance = r.kernel_ms = r.x = NAN;
  batch_write(w, &r);
}

int batch_sweep_command(const batch_problem *p, const char *device, int no_cache, batch_format format,
                        const char *plot)
{
  /* bad input found before any work: a sweep that cannot be read */
  plan pl;
  char why[400];
  int rc = plan_open(&pl, p, why, sizeof why);
  if (rc != EXIT_OK) {
    plan_free(&pl);
    return cli_error(rc, "%s", why);
  }
  /* the context opens in the background while the first chunk is set up */
  cli_prestart(device, p->f && !gq_integrand_builtin(p->f));
  plan_first(&pl, p);
  gq_context *ctx;
  if ((rc = cli_open_context(device, format != BATCH_TABLE, &ctx)) != EXIT_OK) {
    plan_free(&pl);
    return rc;
  }
  if (no_cache)
    gq_context_set_jit_cache(ctx, 0);
  batch_writer w;
  if ((rc = batch_writer_open(&w, stdout, format, plot)) == EXIT_OK) {
    plan_run(ctx, &pl, p, 0, &w);
    rc = batch_writer_close(&w);
  }
  plan_free(&pl);
  gq_context_free(ctx);
  return rc;
}
