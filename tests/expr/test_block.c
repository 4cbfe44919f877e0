/* test_block.c — the block evaluator (double and float) against the
 * scalar evaluator, for every operation and for compound expressions, at
 * block sizes that cover partial, exact and multiple tiles. */
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <math.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"
#include "../tap.h"

#define NMAX 1000

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static double uniform(double lo, double hi)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * ((double)(rng_state >> 11) / 9007199254740992.0);
}

typedef struct {
  const char *text;
  double lo, hi;  /* range of every variable; never containing 0 points */
} block_case;

static const block_case cases[] = {
  {"sin(x)", 0.1, 3}, {"cos(x)", -3, -0.1}, {"tan(x)", 0.1, 1.5},
  {"asin(x)", 0.01, 0.99}, {"acos(x)", -0.99, -0.01}, {"atan(x)", 0.1, 10},
  {"sinh(x)", 0.1, 5}, {"cosh(x)", -5, -0.1}, {"tanh(x)", 0.1, 3},
  {"asinh(x)", 0.1, 10}, {"acosh(x)", 1.01, 10}, {"atanh(x)", 0.01, 0.99},
  {"exp(x)", -10, -0.1}, {"exp2(x)", 0.1, 10}, {"expm1(x)", 0.01, 1},
  {"log(x)", 0.01, 100}, {"log2(x)", 0.01, 100}, {"log10(x)", 0.01, 100},
  {"log1p(x)", 0.01, 10}, {"sqrt(x)", 0.01, 100}, {"cbrt(x)", -10, -0.1},
  {"abs(x)", -5, -0.1}, {"floor(x)", 0.1, 5}, {"ceil(x)", -5, -0.1},
  {"erf(x)", 0.1, 3}, {"erfc(x)", 0.1, 3}, {"tgamma(x)", 0.1, 10},
  {"lgamma(x)", 2.1, 10},
  {"atan2(x, y)", 0.1, 3}, {"pow(x, y)", 0.1, 3}, {"hypot(x, y)", 0.1, 3},
  {"min(x, y)", 0.1, 3}, {"max(x, y)", 0.1, 3},
  {"x + y", 0.1, 3}, {"x - y", 0.1, 3}, {"x * y", 0.1, 3}, {"x / y", 0.1, 3},
  {"x ^ y", 0.1, 3}, {"-x", 0.1, 3},
  {"x < y", 0.1, 3}, {"x <= y", 0.1, 3}, {"x > y", 0.1, 3},
  {"x >= y", 0.1, 3}, {"x == y", 0.1, 3}, {"x != y", 0.1, 3},
  {"if(x < y, x*y, x - y)", 0.1, 3},
  /* constants on either side of each binary operation */
  {"2 - x", 0.1, 3}, {"x - 2", 0.1, 3}, {"2 / x", 0.1, 3}, {"x / 2", 0.1, 3},
  {"x < 1.5", 0.1, 3}, {"1.5 < x", 0.1, 3}, {"pow(2, x)", 0.1, 3},
  {"atan2(1, x)", 0.1, 3}, {"if(x < 1.5, 1, y)", 0.1, 3},
  {"if(x < 1.5, y, 2)", 0.1, 3}, {"if(1, x, y)", 0.1, 3},
  /* compound */
  {"exp(-x*x)*cos(3*x)", 0.1, 3}, {"4*sqrt(1-x^2)", 0.01, 0.99},
  {"x^5 - 3*x^3 + 2*x - 1", 0.1, 3}, {"x^-3 + y^7 - z^12", 0.1, 1.2},
  {"(x + y)^2.5", 0.1, 3}, {"-x^2 + pi*e", 0.1, 3}, {"1/(1+25*x^2)", 0.1, 1},
  {"if(x > 1, log(x), -log(2 - x))", 0.1, 1.9}, {"x*y*z - z/(x + 4)", 0.1, 3},
  {"(x^2)^0 + x^1 + sin(x^0)", 0.1, 3}, {"x", 0.1, 3}, {"sin(pi/4)*2", 0.1, 3},
  {"sqrt(x - 1)", 0.1, 0.9}, /* NaN everywhere */
  {"x16 - x1*x9", 0.1, 3},
  {"((((x+y)*(y+z))-((z+x)*(x-y)))/(((x*y)+(y*z))+((z*x)+1)))^3", 0.1, 3},
};

static int same_double(double a, double b)
{
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (isinf(a) || isinf(b)) return a == b;
  return fabs(a - b) <= 2 * DBL_EPSILON * fabs(b) + 1e-300;
}

/* Float path: inputs rounded to float and float libm; the error is a few
 * float ulps times the condition number of the expression in its range. */
static int close_float(double a, double b)
{
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (isinf(b)) return a == b;
  return fabs(a - b) <= 2e-5 * (fabs(b) + 1);
}

int main(void)
{
  static const size_t sizes[] = {1, 7, 256, 257, 1000};
  static double in[16][NMAX], out[NMAX];
  static float outf[NMAX];
  const double *vars[16];
  for (int d = 0; d < 16; d++) vars[d] = in[d];

  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    gq_expr *e;
    gq_expr_error err;
    if (!tap_ok(gq_expr_parse(cases[c].text, NULL, 16, &e, &err) == GQ_SUCCESS,
            "parse %s", cases[c].text)) {
      diag("%s", err.message);
      continue;
    }
    size_t nscratch = gq_expr_block_scratch(e);
    double *scratch = malloc((nscratch ? nscratch : 1) * sizeof *scratch);
    float *scratchf = malloc((nscratch ? nscratch : 1) * sizeof *scratchf);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      int good = 1, goodf = 1, identical = 1;
      for (int d = 0; d < 16; d++)
        for (size_t k = 0; k < n; k++) in[d][k] = uniform(cases[c].lo, cases[c].hi);
      /* guard entries catch writes past count */
      out[n < NMAX ? n : 0] = n < NMAX ? 12345.0 : out[0];
      gq_expr_eval_block(e, n, vars, out, scratch);
      gq_expr_eval_block_f(e, n, vars, outf, scratchf);
      for (size_t k = 0; k < n; k++) {
        double point[16];
        for (int d = 0; d < 16; d++) point[d] = in[d][k];
        double want = gq_expr_eval(e, point);
        if (!same_double(out[k], want)) {
          if (good) diag("k=%zu block %.17g scalar %.17g", k, out[k], want);
          good = 0;
        }
        if (memcmp(&out[k], &want, sizeof want) != 0) identical = 0;
        if (!close_float(outf[k], want)) {
          if (goodf) diag("k=%zu float %.9g scalar %.17g", k, (double)outf[k], want);
          goodf = 0;
        }
      }
      if (n < NMAX && out[n] != 12345.0) good = 0;
      tap_ok(good, "block of %zu equals scalar for %s%s", n, cases[c].text,
         identical ? " (bitwise)" : "");
      tap_ok(goodf, "float block of %zu is close for %s", n, cases[c].text);
    }
    free(scratch);
    free(scratchf);
    gq_expr_free(e);
  }

  /* One expression, many threads, each with its own scratch. */
  {
    gq_expr *e;
    int bad = 0;
    gq_expr_parse("exp(-x*x)*cos(3*x) + if(x < 1, x^3, 1/x)", NULL, 1, &e, NULL);
    for (size_t k = 0; k < NMAX; k++) in[0][k] = uniform(0.1, 3);
#pragma omp parallel for reduction(+ : bad)
    for (int rep = 0; rep < 64; rep++) {
      double local[NMAX];
      double *scratch = malloc(gq_expr_block_scratch(e) * sizeof *scratch);
      gq_expr_eval_block(e, NMAX, vars, local, scratch);
      for (size_t k = 0; k < NMAX; k++)
        if (local[k] != gq_expr_eval(e, &in[0][k])) bad++;
      free(scratch);
    }
    tap_ok(bad == 0, "concurrent block evaluation from many threads");
    gq_expr_free(e);
  }
  /* count 0 writes nothing and reads nothing. */
  {
    gq_expr *e;
    gq_expr_parse("x", NULL, 1, &e, NULL);
    gq_expr_eval_block(e, 0, NULL, NULL, NULL);
    tap_ok(1, "count 0 is a no-op");
    gq_expr_free(e);
  }
  return tap_done();
}
