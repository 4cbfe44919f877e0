/* expr_diff.h — the differential check of one expression text, shared by
 * the libFuzzer target fuzz_expr_diff.c and the unit test test_regress.c:
 * every consumer of a parsed expression must agree with every other.
 *
 *   print:  the canonical text parses again (with no parameters) to the same
 *           tree, and prints to the same text; the length and nesting that
 *           the printer measures for it are what the parser counts;
 *   block:  block evaluation equals scalar evaluation to the bit (NaN equals
 *           NaN) at points that include 0, -0, infinities, NaN and the ends
 *           of the double range, in partial and whole tiles; the float
 *           block evaluator runs on them too;
 *   scale:  when a power of two c is split off, c * g(x) is e(x) to the bit
 *           wherever neither value is subnormal, and g prints as itself;
 *   emit:   the CUDA emitter accepts it in both precisions.
 *
 * expr_diff_check returns 1 when the text does not parse or every check
 * holds, and 0 with the reason in why otherwise.  Uses expr_internal.h to
 * compare trees, so it is linked with the library's own objects. */
#ifndef GQ_TESTS_EXPR_DIFF_H
#define GQ_TESTS_EXPR_DIFF_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuquad.h"
#include "lib/expr/expr_internal.h"

#define EXPR_DIFF_DIMS 3
#define EXPR_DIFF_POINTS 300 /* more than one tile of GQ_EXPR_TILE */

static int expr_diff_fail(char *why, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int expr_diff_fail(char *why, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
  return 0;
}

static int expr_diff_same(double a, double b)
{
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Same tree: operations, variables and constants (bitwise); where the
 * constants came from (literal or parameter) may differ. */
static int expr_diff_same_tree(const gq_expr *a, int i, const gq_expr *b, int j)
{
  const gq_node *n = &a->nodes[i], *m = &b->nodes[j];
  if (n->op != m->op || n->is_const != m->is_const) return 0;
  if (n->is_const && !expr_diff_same(n->cval, m->cval)) return 0;
  if (n->op == GQ_OP_VAR) return n->var == m->var;
  for (int k = 0; k < 3; k++) {
    if ((n->kid[k] < 0) != (m->kid[k] < 0)) return 0;
    if (n->kid[k] >= 0 && !expr_diff_same_tree(a, n->kid[k], b, m->kid[k])) return 0;
  }
  return 1;
}

/* Point k of variable d: special values first, then a spread of finite ones. */
static double expr_diff_point(int d, int k)
{
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0,
                                   1e-300, -1e300, DBL_MAX, DBL_MIN, 4.9e-324,
                                   INFINITY, -INFINITY, NAN, 64.0, -0.75};
  const int nspecial = (int)(sizeof special / sizeof special[0]);
  int at = (k + 5 * d) % EXPR_DIFF_POINTS;
  if (at < nspecial) return special[at];
  return -8.0 + 16.0 * (double)((at * 7919 + d * 104729) % 1000) / 999.0;
}

static int expr_diff_values(const gq_expr *e, char *why, size_t size)
{
  static double in[EXPR_DIFF_DIMS][EXPR_DIFF_POINTS];
  double out[EXPR_DIFF_POINTS];
  float outf[EXPR_DIFF_POINTS];
  const double *vars[EXPR_DIFF_DIMS] = {in[0], in[1], in[2]};
  size_t nscratch = gq_expr_block_scratch(e);
  double *scratch = malloc((nscratch ? nscratch : 1) * sizeof *scratch);
  float *scratchf = malloc((nscratch ? nscratch : 1) * sizeof *scratchf);
  int good = 1;
  if (!scratch || !scratchf) {
    free(scratch);
    free(scratchf);
    return 1; /* out of memory is no disagreement */
  }
  for (int d = 0; d < EXPR_DIFF_DIMS; d++)
    for (int k = 0; k < EXPR_DIFF_POINTS; k++) in[d][k] = expr_diff_point(d, k);
  /* 7 points: a partial tile; all of them: a whole tile and a partial one. */
  for (int pass = 0; pass < 2 && good; pass++) {
    const size_t count = pass ? EXPR_DIFF_POINTS : 7;
    gq_expr_eval_block(e, count, vars, out, scratch);
    gq_expr_eval_block_f(e, count, vars, outf, scratchf);
    for (size_t k = 0; k < count && good; k++) {
      const double point[EXPR_DIFF_DIMS] = {in[0][k], in[1][k], in[2][k]};
      const double scalar = gq_expr_eval(e, point);
      if (!expr_diff_same(out[k], scalar))
        good = expr_diff_fail(why, size, "block %.17g != scalar %.17g at (%g, %g, %g)", out[k],
                              scalar, point[0], point[1], point[2]);
    }
  }
  free(scratch);
  free(scratchf);
  return good;
}

static int expr_diff_scale(const gq_expr *e, char *why, size_t size)
{
  double c = 1.0;
  gq_expr *g = NULL;
  int good = 1;
  if (gq_expr_split_scale(e, &c, &g) != GQ_SUCCESS || !g) return 1;
  char *text = NULL;
  gq_expr *g2 = NULL;
  /* g prints as what it computes */
  if (gq_expr_to_string(g, &text) == GQ_SUCCESS &&
      gq_expr_parse(text, NULL, EXPR_DIFF_DIMS, &g2, NULL) == GQ_SUCCESS &&
      !expr_diff_same_tree(g, g->root, g2, g2->root))
    good = expr_diff_fail(why, size, "split-off g prints as '%.80s', another tree", text);
  free(text);
  gq_expr_free(g2);
  for (int k = 0; k < EXPR_DIFF_POINTS && good; k++) {
    const double point[EXPR_DIFF_DIMS] = {expr_diff_point(0, k), expr_diff_point(1, k),
                                          expr_diff_point(2, k)};
    const double ve = gq_expr_eval(e, point), vg = gq_expr_eval(g, point);
    const int subnormal = (ve != 0 && fabs(ve) < DBL_MIN) || (vg != 0 && fabs(vg) < DBL_MIN);
    if (!subnormal && !expr_diff_same(ve, c * vg))
      good = expr_diff_fail(why, size, "e = %.17g but %g * g = %.17g at (%g, %g, %g)", ve, c,
                            c * vg, point[0], point[1], point[2]);
  }
  gq_expr_free(g);
  return good;
}

/* The nesting the printer counts is the parser's: the text in 200 - m
 * parentheses parses and in 201 - m does not. */
static int expr_diff_nesting(const gq_expr *e, const char *text, char *why, size_t size)
{
  size_t length;
  int nesting, good = 1;
  gq_expr_measure_text(e, &length, &nesting);
  if (length != strlen(text))
    return expr_diff_fail(why, size, "measured length %zu, printed %zu", length, strlen(text));
  const int room = GQ_EXPR_MAX_NEST - nesting;
  if (length + 2 * (size_t)room + 2 > GQ_EXPR_MAX_LEN) return 1;
  char *wrapped = malloc(length + 2 * (size_t)room + 3);
  if (!wrapped) return 1;
  for (int extra = 0; extra < 2 && good; extra++) {
    const int k = room + extra;
    gq_expr *w = NULL;
    gq_expr_error err;
    memset(wrapped, '(', (size_t)k);
    memcpy(wrapped + k, text, length);
    memset(wrapped + k + length, ')', (size_t)k);
    wrapped[length + 2 * (size_t)k] = '\0';
    const int st = gq_expr_parse(wrapped, NULL, EXPR_DIFF_DIMS, &w, &err);
    if (extra == 0 && st != GQ_SUCCESS && st != GQ_ENOMEM)
      good = expr_diff_fail(why, size, "nesting %d measured, but %d parentheses more fail: %s", nesting, k,
                            err.message);
    else if (extra == 1 && (st == GQ_SUCCESS || !strstr(err.message, "nested too deeply")))
      good = expr_diff_fail(why, size, "nesting %d measured, but %d parentheses more do not fail: %s",
                            nesting, k, st == GQ_SUCCESS ? "parsed" : err.message);
    gq_expr_free(w);
  }
  free(wrapped);
  return good;
}

static int expr_diff_check_parsed(const gq_expr *e, char *why, size_t size)
{
  char *s1 = NULL, *s2 = NULL, *src = NULL;
  gq_expr *e2 = NULL;
  gq_expr_error err;
  int good = 1;
  if (gq_expr_to_string(e, &s1) != GQ_SUCCESS) return 1; /* out of memory */
  if (gq_expr_parse(s1, NULL, EXPR_DIFF_DIMS, &e2, &err) != GQ_SUCCESS) {
    good = err.status == GQ_ENOMEM ||
           expr_diff_fail(why, size, "canonical text '%.80s' does not parse: %s", s1, err.message);
  } else if (gq_expr_to_string(e2, &s2) == GQ_SUCCESS && strcmp(s1, s2) != 0) {
    good = expr_diff_fail(why, size, "canonical text '%.80s' prints again as '%.80s'", s1, s2);
  } else if (!expr_diff_same_tree(e, e->root, e2, e2->root)) {
    good = expr_diff_fail(why, size, "canonical text '%.80s' parses to another tree", s1);
  }
  if (good) good = expr_diff_nesting(e, s1, why, size);
  if (good) good = expr_diff_values(e, why, size);
  if (good) good = expr_diff_scale(e, why, size);
  for (int fl = 0; fl < 2 && good; fl++) {
    const int st = gq_expr_emit_cuda(e, "f", fl, &src);
    if (st != GQ_SUCCESS && st != GQ_ENOMEM)
      good = expr_diff_fail(why, size, "the CUDA emitter (%s) fails: status %d",
                            fl ? "float" : "double", st);
    free(src);
    src = NULL;
  }
  free(s1);
  free(s2);
  gq_expr_free(e2);
  return good;
}

/* With as many of the parameters k=3, w=-0.5 and n=0 as the text uses (an
 * unused parameter is an error by design). */
static int expr_diff_check(const char *text, char *why, size_t size)
{
  static const char *const all[] = {"k=3", "w=-0.5", "n=0"};
  gq_expr *e = NULL;
  int good = 1;
  why[0] = '\0';
  for (int mask = 7; mask >= 0 && !e; mask--) {
    const char *defs[3];
    gq_expr_params params = {defs, 0};
    for (int k = 0; k < 3; k++)
      if (mask & (1 << k)) defs[params.count++] = all[k];
    gq_expr_parse(text, &params, EXPR_DIFF_DIMS, &e, NULL);
  }
  if (e) good = expr_diff_check_parsed(e, why, size);
  gq_expr_free(e);
  return good;
}

#endif /* GQ_TESTS_EXPR_DIFF_H */
