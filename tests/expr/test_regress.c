/* test_regress.c — issue 13's expression defects, each as a deterministic
 * case: operations left with only constant operands ((x^0)^2 crashed the
 * block evaluator), canonical text that could not be read back (120 minus
 * signs), parameter values in the number grammar of the limits (pi, -e),
 * and the differential checks of fuzz_expr_diff.c (expr_diff.h) on every
 * input that the fuzzer or the issue found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr_diff.h"
#include "../tap.h"

static char *repeat(const char *pre, const char *unit, int n, const char *post)
{
  size_t lp = strlen(pre), lu = strlen(unit), lq = strlen(post);
  char *s = malloc(lp + (size_t)n * lu + lq + 1), *w = s;
  if (!s) abort();
  memcpy(w, pre, lp), w += lp;
  for (int i = 0; i < n; i++) memcpy(w, unit, lu), w += lu;
  memcpy(w, post, lq + 1);
  return s;
}

/* (k+k)+(k+k)... with n leaves: depth log2(n), length about 4n. */
static char *balanced_sum(int n)
{
  if (n == 1) return repeat("", "", 0, "k");
  char *l = balanced_sum(n / 2), *r = balanced_sum(n - n / 2);
  char *s = malloc(strlen(l) + strlen(r) + 4);
  if (!s) abort();
  sprintf(s, "(%s+%s)", l, r);
  free(l);
  free(r);
  return s;
}

static void differential(const char *text)
{
  char why[400];
  if (!tap_ok(expr_diff_check(text, why, sizeof why), "print, block, scale and CUDA agree: %.60s%s",
              text, strlen(text) > 60 ? "..." : ""))
    diag("%s", why);
}

/* Every point of the block evaluators (both precisions) and the scalar one
 * gives want; the CUDA source returns a constant without arithmetic. */
static void constant_everywhere(const char *text, const char *const *defs, size_t ndefs, double want)
{
  gq_expr_params params = {defs, ndefs};
  gq_expr *e = NULL;
  gq_expr_error err;
  if (!tap_ok(gq_expr_parse(text, ndefs ? &params : NULL, 2, &e, &err) == GQ_SUCCESS, "%s parses",
              text)) {
    diag("%s", err.message);
    return;
  }
  enum { N = 300 };
  static double x[N], y[N], out[N];
  static float outf[N];
  const double *vars[2] = {x, y};
  for (int i = 0; i < N; i++) {
    x[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? -INFINITY : i * 0.37 - 50);
    y[i] = -x[i];
  }
  double *scratch = malloc((gq_expr_block_scratch(e) + 1) * sizeof *scratch);
  float *scratchf = malloc((gq_expr_block_scratch(e) + 1) * sizeof *scratchf);
  if (!scratch || !scratchf) abort();
  gq_expr_eval_block(e, N, vars, out, scratch);
  gq_expr_eval_block_f(e, N, vars, outf, scratchf);
  int good = 1;
  for (int i = 0; i < N; i++) {
    const double point[2] = {x[i], y[i]};
    good &= out[i] == want && outf[i] == (float)want && gq_expr_eval(e, point) == want;
  }
  tap_ok(good, "%s is %g at every point (NaN and -inf included), block, float block and scalar",
         text, want);
  for (int fl = 0; fl < 2; fl++) {
    char *src = NULL, ret[64];
    snprintf(ret, sizeof ret, "return %s;", fl ? "1.0f" : "1.0");
    const int st = gq_expr_emit_cuda(e, "f", fl, &src);
    if (want == 1.0)
      tap_ok(st == GQ_SUCCESS && strstr(src, ret) && !strstr(src, " * "),
             "%s: the %s CUDA source returns the constant", text, fl ? "float" : "double");
    else
      tap_ok(st == GQ_SUCCESS, "%s: the %s CUDA source is emitted", text, fl ? "float" : "double");
    free(src);
  }
  free(scratch);
  free(scratchf);
  gq_expr_free(e);
}

static void constant_operands(void)
{
  static const char *const n0[] = {"n=0"};
  constant_everywhere("(x^0)^2", NULL, 0, 1);
  constant_everywhere("(x^0)^-1", NULL, 0, 1);
  constant_everywhere("(x^0)^64", NULL, 0, 1);
  constant_everywhere("(x^n)^2", n0, 1, 1);
  constant_everywhere("(1+x^n)^2", n0, 1, 4);
  constant_everywhere("-(x^0)", NULL, 0, -1);
  constant_everywhere("sin(x^0)*0+(y^0)^3", NULL, 0, 1);
  constant_everywhere("atan2(x^0,(y^0)^-2)*4/pi", NULL, 0, 1);
  constant_everywhere("if(x^0,(y^0)^2,x)", NULL, 0, 1);
  constant_everywhere("pow(x^0,3)+(x^0<2)", NULL, 0, 2);
}

/* What the canonical text of e is, and that it parses back. */
static void reads_back(const char *text, const char *const *defs, size_t ndefs, const char *want)
{
  gq_expr_params params = {defs, ndefs};
  gq_expr *e = NULL, *e2 = NULL;
  gq_expr_error err;
  char *s = NULL;
  int good = gq_expr_parse(text, ndefs ? &params : NULL, 3, &e, &err) == GQ_SUCCESS &&
             gq_expr_to_string(e, &s) == GQ_SUCCESS;
  if (good && want) good = strcmp(s, want) == 0;
  if (good) good = gq_expr_parse(s, NULL, 3, &e2, &err) == GQ_SUCCESS;
  if (!tap_ok(good, "canonical text of %.50s%s reads back%s%s", text, strlen(text) > 50 ? "..." : "",
              want ? " as " : "", want ? want : ""))
    diag("text %.100s, %s", s ? s : "-", err.message);
  free(s);
  gq_expr_free(e);
  gq_expr_free(e2);
}

static void refused(const char *text, const char *const *defs, size_t ndefs, const char *what,
                    const char *message)
{
  gq_expr_params params = {defs, ndefs};
  gq_expr *e = NULL;
  gq_expr_error err;
  const int st = gq_expr_parse(text, ndefs ? &params : NULL, 3, &e, &err);
  if (!tap_ok(st == GQ_EPARSE && !e && strstr(err.message, message), "%s is refused: %s", what,
              message))
    diag("status %d: %s", st, err.message);
  gq_expr_free(e);
}

static void round_trip(void)
{
  static const char *const neg[] = {"k=-2"}, *const big[] = {"k=0.12345678901234568"};
  char *s = repeat("", "-", 120, "x");
  reads_back(s, NULL, 0, s);
  differential(s);
  free(s);
  s = repeat("", "-", 199, "x"); /* the deepest the parser allows */
  reads_back(s, NULL, 0, s);
  free(s);
  s = repeat("", "-", 200, "x");
  refused(s, NULL, 0, "200 minus signs", "nested too deeply (limit 200)");
  free(s);
  /* 999 terms: tree depth 999, which full parentheses nested 999 deep */
  s = repeat("x", "+x", 998, "");
  reads_back(s, NULL, 0, s);
  differential(s);
  free(s);
  s = repeat("", "x*(", 150, "1");
  char *closed = repeat(s, ")", 150, "");
  reads_back(closed, NULL, 0, NULL);
  free(s);
  free(closed);
  /* A parameter needs no '-' where its negative value does: one frame deeper. */
  s = repeat("", "sin(", 199, "k");
  closed = repeat(s, ")", 199, "");
  refused(closed, neg, 1, "a negative parameter at the deepest nesting", "nested too deeply");
  free(s);
  free(closed);
  s = repeat("", "sin(", 198, "k");
  closed = repeat(s, ")", 198, "");
  reads_back(closed, neg, 1, NULL);
  free(s);
  free(closed);
  /* A parameter is written out as its value: the text grows past the
   * limit on what the parser reads, though the input was within it. */
  s = balanced_sum(4096);
  refused(s, big, 1, "a text that parameters lengthen past 65536 characters", "too long once written");
  free(s);
  reads_back("-x^2", NULL, 0, "-x^2");
  reads_back("(-x)^2", NULL, 0, "(-x)^2");
  reads_back("(-2)^x", NULL, 0, "(-2)^x");
  reads_back("k^2", neg, 1, "(-2)^2");
  reads_back("x^k", neg, 1, "x^-2");
  reads_back("x-k", neg, 1, "x--2");
  reads_back("2^3^2", NULL, 0, "2^3^2");
  reads_back("(2^3)^2", NULL, 0, "(2^3)^2");
  reads_back("1-(2-3)", NULL, 0, "1-(2-3)");
  reads_back("1/(2*3)", NULL, 0, "1/(2*3)");
  reads_back("(1<2)<(3<4)", NULL, 0, "(1<2)<(3<4)");
  reads_back("((x))+(((y)))", NULL, 0, "x+y");
  reads_back("-0*x", NULL, 0, "-0*x");
  reads_back("--2", NULL, 0, "2");
  reads_back("-pi", NULL, 0, "-pi");
  reads_back("1e5+1e-7+1e300+.5+100", NULL, 0, "100000+1e-7+1e300+0.5+100");
}

/* Parameter values take the number grammar of the limits. */
static void parameter_values(void)
{
  static const struct { const char *def; double want; } t[] = {
    {"k=pi", GQ_EXPR_PI}, {"k=-pi", -GQ_EXPR_PI}, {"k=+pi", GQ_EXPR_PI}, {"k=e", GQ_EXPR_E},
    {"k= -e ", -GQ_EXPR_E}, {"k=2.5", 2.5}, {"k=-1e-3", -1e-3}, {"k=1e308", 1e308},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    const char *defs[] = {t[i].def};
    gq_expr_params params = {defs, 1};
    gq_expr *e = NULL;
    gq_expr_error err;
    const double zero = 0;
    const int st = gq_expr_parse("k", &params, 1, &e, &err);
    if (!tap_ok(st == GQ_SUCCESS && gq_expr_eval(e, &zero) == t[i].want, "--param %s is %.17g",
                t[i].def, t[i].want))
      diag("status %d: %s", st, st ? err.message : "");
    gq_expr_free(e);
  }
  static const char *const bad[] = {"k=pie", "k=pi2", "k=-", "k=--1", "k=2pi", "k=pi*2", "k=inf",
                                    "k=nan", "k=0x10", "k=1e999", "k=", "k=ee", "k=e1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *defs[] = {bad[i]};
    gq_expr_params params = {defs, 1};
    gq_expr *e = NULL;
    gq_expr_error err;
    const int st = gq_expr_parse("k", &params, 1, &e, &err);
    tap_ok(st == GQ_EINVAL && !e && err.where == GQ_EXPR_IN_PARAM &&
               strstr(err.message, "bad value for parameter 'k'"),
           "--param %s is refused", bad[i]);
    gq_expr_free(e);
  }
}

/* The expression left when a power of two is split off prints as what it
 * computes. */
static void split_text(void)
{
  static const struct { const char *text, *g; double scale; } t[] = {
    {"(0-2)/x", "1/x", -2}, {"-2/x", "1/x", -2}, {"2^3/(x+1)", "1/(x+1)", 8}, {"x*(1+1)", "x", 2},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    gq_expr *e = NULL, *g = NULL;
    double scale = 0;
    char *s = NULL;
    int good = gq_expr_parse(t[i].text, NULL, 1, &e, NULL) == GQ_SUCCESS &&
               gq_expr_split_scale(e, &scale, &g) == GQ_SUCCESS && g && scale == t[i].scale &&
               gq_expr_to_string(g, &s) == GQ_SUCCESS && strcmp(s, t[i].g) == 0;
    if (!tap_ok(good, "split_scale(%s) = %g * %s", t[i].text, t[i].scale, t[i].g))
      diag("got %g * %s", scale, s ? s : "-");
    free(s);
    gq_expr_free(g);
    gq_expr_free(e);
  }
}

/* Inputs the differential fuzzer was seeded with or found. */
static void fuzz_findings(void)
{
  static const char *const t[] = {
    "(x^0)^2", "(1+x^n)^2", "(x^0)^-1", "if(1,x,y)^2", "if(0,x,2)^3*y", "x*-y", "x- -2",
    "2^-1^2", "-0", "k^2", "w^2", "x^w", "(-2)^x", "y/(1/(1/(1/z)))", "4/(x^0)^-3",
    "1/(1/x)", "2/x", "x/0.25", "0.5*sin(x)", "2^-1074/x", "2^1023/x", "x/2^-1074",
    "if(x<y,k,w)", "min(x,0/0)+max(0/0,y)", "(x<y)==(y<z)", "x^64*y^-64",
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) differential(t[i]);
}

/* No public function of the expression library crashes on NULL. */
static void null_arguments(void)
{
  gq_expr *e = NULL, *g = (gq_expr *)1;
  gq_expr_error err;
  char *s = (char *)1, buf[64] = "x";
  double out[3] = {0, 0, 0}, scratch[4 * GQ_EXPR_TILE], scale = 0;
  float outf[3] = {0, 0, 0};
  const double x = 0.5;
  static const char *const with_null[] = {"k=1", NULL};
  gq_expr_params no_defs = {NULL, 2}, null_def = {with_null, 2};

  tap_ok(gq_expr_parse("k*x", &no_defs, 1, &e, &err) == GQ_EINVAL && !e &&
             err.where == GQ_EXPR_IN_PARAM && strstr(err.message, "no definitions"),
         "parse: parameters with a NULL array are GQ_EINVAL: %s", err.message);
  tap_ok(gq_expr_parse("k*x", &null_def, 1, &e, &err) == GQ_EINVAL && !e && err.param_index == 1,
         "parse: a NULL parameter definition is GQ_EINVAL: %s", err.message);
  tap_ok(gq_expr_parse(NULL, NULL, 1, &e, &err) == GQ_EINVAL && gq_expr_parse("x", NULL, 1, NULL, NULL) == GQ_EINVAL,
         "parse: NULL text or out is GQ_EINVAL");
  tap_ok(isnan(gq_expr_eval(NULL, &x)) && isnan(gq_expr_eval_gsl(0.5, NULL)) && gq_expr_dims_used(NULL) == 0 &&
             gq_expr_block_scratch(NULL) == 0,
         "eval, eval_gsl, dims_used and block_scratch of NULL: NaN, NaN, 0, 0");
  gq_expr_free(NULL);
  gq_expr_eval_block(NULL, 3, NULL, out, scratch);
  gq_expr_eval_block_f(NULL, 3, NULL, outf, NULL);
  if (!tap_ok(gq_expr_parse("x*y", NULL, 2, &e, &err) == GQ_SUCCESS, "parse x*y")) return;
  tap_ok(isnan(gq_expr_eval(e, NULL)), "eval with NULL variables is NaN");
  tap_ok(isnan(gq_expr_eval_gsl(0.5, e)), "eval_gsl of a two-variable expression is NaN, not a read past x");
  gq_expr_eval_block(e, 3, NULL, out, scratch);
  gq_expr_eval_block_f(e, 3, NULL, outf, (float *)scratch);
  tap_ok(isnan(out[0]) && isnan(out[2]) && isnan(outf[1]), "block evaluation with NULL variables gives NaN");
  const double *one_null[2] = {&x, NULL};
  out[0] = 0;
  gq_expr_eval_block(e, 1, one_null, out, scratch);
  tap_ok(isnan(out[0]), "block evaluation with a NULL variable array gives NaN");
  out[0] = 0;
  const double *both[2] = {&x, &x};
  gq_expr_eval_block(e, 1, both, out, NULL);
  tap_ok(isnan(out[0]), "block evaluation with NULL scratch gives NaN");
  gq_expr_eval_block(e, 1, both, NULL, scratch);
  tap_ok(gq_expr_to_string(NULL, &s) == GQ_EINVAL && s == NULL && gq_expr_to_string(e, NULL) == GQ_EINVAL,
         "to_string: NULL is GQ_EINVAL");
  s = (char *)1;
  tap_ok(gq_expr_emit_cuda(NULL, "f", 0, &s) == GQ_EINVAL && s == NULL && gq_expr_emit_cuda(e, "f", 0, NULL) == GQ_EINVAL &&
             gq_expr_emit_cuda(e, NULL, 1, &s) == GQ_EINVAL,
         "emit_cuda: NULL is GQ_EINVAL");
  tap_ok(gq_expr_split_scale(NULL, &scale, &g) == GQ_EINVAL && gq_expr_split_scale(e, NULL, &g) == GQ_EINVAL &&
             gq_expr_split_scale(e, &scale, NULL) == GQ_EINVAL,
         "split_scale: NULL is GQ_EINVAL");
  g = (gq_expr *)1;
  tap_ok(gq_expr_scaled_copy(NULL, 2, &g) == GQ_EINVAL && g == NULL && gq_expr_scaled_copy(e, 2, NULL) == GQ_EINVAL &&
             gq_expr_scaled_copy(e, INFINITY, &g) == GQ_EINVAL,
         "scaled_copy: NULL or a factor that is not finite is GQ_EINVAL");
  gq_expr_error_caret(NULL, &err, buf, sizeof buf);
  tap_ok(buf[0] == '\0', "error_caret of a NULL line is empty");
  gq_expr_error_caret("x", NULL, buf, sizeof buf);
  gq_expr_error_caret("x", &err, NULL, 10);
  gq_expr_free(e);
}

int main(void)
{
  null_arguments();
  constant_operands();
  round_trip();
  parameter_values();
  fuzz_findings();
  split_text();
  return tap_done();
}
