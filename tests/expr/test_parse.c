/* test_parse.c — grammar, values of every function and constant,
 * parameters, variables, canonical text, built-in integrands. */
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <math.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"
#include "../tap.h"

#define X0 0.37
#define Y0 1.3
#define Z0 -0.85

static int close_rel(double got, double want, double rel)
{
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  return fabs(got - want) <= rel * fabs(want) + 1e-300;
}

/* Parse with max_dims 3 and no parameters, evaluate at (X0, Y0, Z0). */
static int value_of(const char *text, double *v)
{
  const double vars[3] = {X0, Y0, Z0};
  gq_expr *e;
  gq_expr_error err;
  if (gq_expr_parse(text, NULL, 3, &e, &err) != GQ_SUCCESS) {
    diag("'%s': %s", text, err.message);
    return 0;
  }
  *v = gq_expr_eval(e, vars);
  gq_expr_free(e);
  return 1;
}

static void check_value(const char *text, double want, double rel)
{
  double v = NAN;
  int parsed = value_of(text, &v);
  if (!tap_ok(parsed && close_rel(v, want, rel), "value of %s", text))
    diag("got %.17g, want %.17g", v, want);
}

static void check_string(const char *text, const char *want)
{
  gq_expr *e;
  char *s = NULL;
  if (gq_expr_parse(text, NULL, 3, &e, NULL) != GQ_SUCCESS) {
    tap_ok(0, "canonical %s (parse failed)", text);
    return;
  }
  gq_expr_to_string(e, &s);
  if (!tap_ok(s && strcmp(s, want) == 0, "canonical %s is %s", text, want))
    diag("got %s", s ? s : "(null)");
  free(s);
  gq_expr_free(e);
}

/* to_string is a fixed point after one round and keeps the value. */
static void check_roundtrip(const char *text, const gq_expr_params *params)
{
  const double vars[3] = {X0, Y0, Z0};
  gq_expr *e1 = NULL, *e2 = NULL;
  char *s1 = NULL, *s2 = NULL;
  int good = gq_expr_parse(text, params, 3, &e1, NULL) == GQ_SUCCESS &&
             gq_expr_to_string(e1, &s1) == GQ_SUCCESS &&
             gq_expr_parse(s1, NULL, 3, &e2, NULL) == GQ_SUCCESS &&
             gq_expr_to_string(e2, &s2) == GQ_SUCCESS;
  if (good) {
    double a = gq_expr_eval(e1, vars), b = gq_expr_eval(e2, vars);
    good = strcmp(s1, s2) == 0 && (a == b || (isnan(a) && isnan(b)));
  }
  if (!tap_ok(good, "round trip of %s", text))
    diag("s1=%s s2=%s", s1 ? s1 : "-", s2 ? s2 : "-");
  free(s1);
  free(s2);
  gq_expr_free(e1);
  gq_expr_free(e2);
}

static void test_grammar(void)
{
  check_value("-x^2", -X0 * X0, 0);
  check_value("2^3^2", 512, 0);
  check_value("1-2-3", -4, 0);
  check_value("2*3+4", 10, 0);
  check_value("2+3*4", 14, 0);
  check_value("8/4/2", 1, 0);
  check_value("-2^2", -4, 0);
  check_value("(-2)^2", 4, 0);
  check_value("2^-1", 0.5, 0);
  check_value("2^-1^2", 0.5, 0);  /* 2^(-(1^2)) */
  check_value("--x", X0, 0);
  check_value("+x", X0, 0);
  check_value("-+-x", X0, 0);
  check_value("1+2<4", 1, 0);      /* comparisons bind loosest */
  check_value("1+2<3", 0, 0);
  check_value("x<y", 1, 0);
  check_value("x<=x", 1, 0);
  check_value("x>y", 0, 0);
  check_value("y>=x", 1, 0);
  check_value("x==x", 1, 0);
  check_value("x!=x", 0, 0);
  check_value("2*x==x+x", 1, 0);
  check_value(" \t1 + \n2 ", 3, 0);
  check_value(".5", 0.5, 0);
  check_value("1.", 1, 0);
  check_value("1e-3", 1e-3, 0);
  check_value("2.5E+10", 2.5e10, 0);
  check_value("1E2", 100, 0);
  check_value("1e-400", 0, 0);     /* underflow to 0 is allowed */
  check_value("x^3", X0 * X0 * X0, 0);
  check_value("x^-2", 1 / (X0 * X0), 1e-15);
  check_value("x^0", 1, 0);
  check_value("x^0.5", sqrt(X0), 1e-15);
  check_value("x^64", pow(X0, 64), 1e-13);
  check_value("x^65", pow(X0, 65), 1e-15);

  check_string("-x^2", "-x^2");
  check_string("2^3^2", "2^3^2");
  check_string("1-2-3", "1-2-3");
  check_string("2*3+4", "2*3+4");
  check_string("x+1 < 2*y", "x+1<2*y");
  check_string("if(x>=0, sqrt(x), 0)", "if(x>=0,sqrt(x),0)");
  check_string("atan2( y , x1 )", "atan2(y,x)");
  check_string("x3 + pi - e", "z+pi-e");
  check_string("0.1 + 1e300 + .5e-3", "0.1+1e300+0.0005");
}

static void test_functions(void)
{
  const double x = X0, y = Y0;
  struct { const char *text; double want; } t[] = {
    {"sin(x)", sin(x)},       {"cos(x)", cos(x)},     {"tan(x)", tan(x)},
    {"asin(x)", asin(x)},     {"acos(x)", acos(x)},   {"atan(x)", atan(x)},
    {"sinh(x)", sinh(x)},     {"cosh(x)", cosh(x)},   {"tanh(x)", tanh(x)},
    {"asinh(x)", asinh(x)},   {"acosh(y)", acosh(y)}, {"atanh(x)", atanh(x)},
    {"exp(x)", exp(x)},       {"exp2(x)", exp2(x)},   {"expm1(x)", expm1(x)},
    {"log(x)", log(x)},       {"log2(x)", log2(x)},   {"log10(x)", log10(x)},
    {"log1p(x)", log1p(x)},   {"sqrt(x)", sqrt(x)},   {"cbrt(-x)", cbrt(-x)},
    {"abs(-x)", fabs(-x)},    {"floor(y)", 1.0},      {"ceil(y)", 2.0},
    {"floor(-y)", -2.0},      {"erf(x)", erf(x)},     {"erfc(x)", erfc(x)},
    {"tgamma(x)", tgamma(x)}, {"lgamma(x)", lgamma(x)},
    {"atan2(x,y)", atan2(x, y)}, {"pow(x,y)", pow(x, y)},
    {"hypot(x,y)", hypot(x, y)}, {"min(x,y)", x},     {"max(x,y)", y},
    {"if(x<y, 1, 2)", 1},     {"if(x>y, 1, 2)", 2},   {"if(x-x, 1, 2)", 2},
    {"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536},
    {"sqrt(-x)", NAN},        {"log(x-x)", -INFINITY}, {"1/(x-x)", INFINITY},
    {"if(0/0, 1, 2)", 1},     /* NaN != 0 is true */
    {"min(0/0, x)", x},       /* fmin ignores a NaN */
    {"exp(1000)", INFINITY},
  };
  /* Same libm calls on both sides: allow only rounding of the constant
   * fold (a few ulp). */
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    check_value(t[i].text, t[i].want, 4 * DBL_EPSILON);
}

static void test_params_and_vars(void)
{
  const char *defs[] = {"k=3", " w = -2.5e-1 ", "_a1=7"};
  gq_expr_params params = {defs, 3};
  const double v3[3] = {X0, Y0, Z0};
  double v16[16];
  gq_expr *e;
  int s = gq_expr_parse("k*x + w*y + _a1", &params, 3, &e, NULL);
  if (tap_ok(s == GQ_SUCCESS, "parameters parse")) {
    tap_ok(gq_expr_eval(e, v3) == 3 * X0 + -0.25 * Y0 + 7, "parameter values");
    char *str = NULL;
    gq_expr_to_string(e, &str);
    if (!tap_ok(str && !strcmp(str, "3*x+-0.25*y+7"),
            "parameters are inlined in the canonical text"))
      diag("got %s", str ? str : "(null)");
    free(str);
    gq_expr_free(e);
  }
  check_roundtrip("k*x + w*y + _a1", &params);

  for (int i = 0; i < 16; i++) v16[i] = 0.5 + i;
  s = gq_expr_parse("x16 - x1 + 2*x2 + x3*y", NULL, 16, &e, NULL);
  if (tap_ok(s == GQ_SUCCESS, "x1..x16 with max_dims 16")) {
    tap_ok(gq_expr_dims_used(e) == 16, "dims_used is 16");
    tap_ok(gq_expr_eval(e, v16) == 15.5 - 0.5 + 2 * 1.5 + 2.5 * 1.5,
       "multi-variable value");
    gq_expr_free(e);
  }
  s = gq_expr_parse("(x + y + z) == (x1 + x2 + x3)", NULL, 3, &e, NULL);
  if (tap_ok(s == GQ_SUCCESS, "x y z alias x1 x2 x3")) {
    tap_ok(gq_expr_eval(e, v3) == 1, "x+y+z equals x1+x2+x3");
    gq_expr_free(e);
  }
  s = gq_expr_parse("y*y", NULL, 2, &e, NULL);
  if (tap_ok(s == GQ_SUCCESS, "y alone")) {
    tap_ok(gq_expr_dims_used(e) == 2, "dims_used counts the highest index");
    gq_expr_free(e);
  }
  s = gq_expr_parse("sin(pi)/2", NULL, 1, &e, NULL);
  if (tap_ok(s == GQ_SUCCESS, "constant expression")) {
    tap_ok(gq_expr_dims_used(e) == 0, "dims_used of a constant is 0");
    tap_ok(gq_expr_eval(e, NULL) == sin(3.14159265358979323846) / 2,
       "constant expression needs no variables");
    gq_expr_free(e);
  }
  s = gq_expr_parse("x*x", NULL, 1, &e, NULL);
  if (tap_ok(s == GQ_SUCCESS, "gsl adapter parse")) {
    tap_ok(gq_expr_eval_gsl(1.5, e) == 2.25, "gq_expr_eval_gsl");
    gq_expr_free(e);
  }
}

static void test_roundtrips(void)
{
  const char *t[] = {
    "exp(-x*x)*cos(3*x)", "-x^2", "2^3^2", "1-2-3", "-(1-x)^-y",
    "if(x < 0.1, 1e-300*x, 6.02214076e23/y)", "atan2(y, x) + hypot(z, 3)",
    "x^5 - 3*x^3 + 2*x - 1", "1/(1+25*x^2)", "min(max(x, y), z) != 0",
    "0.1 + 0.2", "123456789012345678901234567890", "4.9406564584124654e-324",
    "-(-(-x))", "pow(x, y) ^ 2", "lgamma(tgamma(x))",
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) check_roundtrip(t[i], NULL);
}

static void test_split_scale(void)
{
  struct { const char *text; double scale; const char *g; } t[] = {
    {"4*sqrt(1-x^2)", 4, "sqrt(1-x^2)"},
    {"sqrt(1-x^2)*0.25", 0.25, "sqrt(1-x^2)"},
    {"4/(1+x^2)", 4, "1/(1+x^2)"},
    {"exp(x)/8", 0.125, "exp(x)"},
    {"-2*x", -2, "x"},
    {"3*x", 1, NULL},
    {"x*x", 1, NULL},
    {"1*x", 1, NULL},
    {"sin(x)", 1, NULL},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    gq_expr *e = NULL, *g = NULL;
    double scale = 7;
    char *s = NULL;
    int ok1 = gq_expr_parse(t[i].text, NULL, 1, &e, NULL) == GQ_SUCCESS &&
              gq_expr_split_scale(e, &scale, &g) == GQ_SUCCESS && scale == t[i].scale;
    if (ok1 && t[i].g) {
      ok1 = g && gq_expr_to_string(g, &s) == GQ_SUCCESS;
      if (ok1 && strcmp(s, t[i].g) != 0) {
        diag("g = %s, want %s", s, t[i].g);
        ok1 = 0;
      }
      /* scale * g(x) == e(x) to the bit at many points */
      for (int k = 0; ok1 && k < 200; k++) {
        double x = -0.99 + 0.0099 * k;
        if (t[i].scale * gq_expr_eval(g, &x) != gq_expr_eval(e, &x)) {
          diag("%s: scale*g(%g) != e(%g)", t[i].text, x, x);
          ok1 = 0;
        }
      }
      double *scratch = malloc(gq_expr_block_scratch(g) * sizeof *scratch);
      double xs[3] = {0.1, 0.2, 0.3}, out[3];
      const double *vars[1] = {xs};
      gq_expr_eval_block(g, 3, vars, out, scratch);
      ok1 = ok1 && out[1] * t[i].scale == gq_expr_eval(e, &xs[1]);
      free(scratch);
    } else if (ok1) {
      ok1 = g == NULL;
    }
    tap_ok(ok1, "split_scale(%s) = %g * %s", t[i].text, t[i].scale, t[i].g ? t[i].g : "itself");
    free(s);
    gq_expr_free(e);
    gq_expr_free(g);
  }
}

int main(void)
{
  test_grammar();
  test_functions();
  test_params_and_vars();
  test_roundtrips();
  test_split_scale();
  return tap_done();
}
