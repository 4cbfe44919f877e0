/* test_rebind.c — an expression rebound to new parameter values
 * (gq_expr_rebind) is the parse at those values to the bit: the same nodes,
 * folds, bytecode and canonical text, and the same refusal where that parse
 * refuses the values; an integrand instantiated from a template is
 * gq_integrand_parse's (formula, scale, evaluation, GPU key and values). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuquad.h"
#include "lib/expr/expr_internal.h"
#include "lib/internal.h"
#include "../tap.h"

static int same_bits(double a, double b)
{
  return memcmp(&a, &b, sizeof a) == 0;
}

static int same_arg(const gq_arg *a, const gq_arg *b)
{
  return a->kind == b->kind && a->index == b->index && same_bits(a->k, b->k);
}

/* Field by field: the parse's tree and code, and rebind's. */
static int same_expr(const gq_expr *a, const gq_expr *b, char *why, size_t size)
{
  if (a->nnodes != b->nnodes || a->root != b->root || a->dims_used != b->dims_used || a->ncode != b->ncode ||
      a->nregs != b->nregs || a->nvalues != b->nvalues) {
    snprintf(why, size, "shape: nodes %d/%d root %d/%d code %d/%d regs %d/%d", a->nnodes, b->nnodes, a->root,
             b->root, a->ncode, b->ncode, a->nregs, b->nregs);
    return 0;
  }
  for (int i = 0; i < a->nnodes; i++) {
    const gq_node *m = &a->nodes[i], *n = &b->nodes[i];
    if (m->op != n->op || m->numkind != n->numkind || m->is_const != n->is_const || m->var != n->var ||
        m->param != n->param || m->negated != n->negated || memcmp(m->kid, n->kid, sizeof m->kid) != 0 ||
        m->depth != n->depth || m->col != n->col || !same_bits(m->cval, n->cval)) {
      snprintf(why, size, "node %d: op %d/%d const %d/%d cval %a/%a", i, m->op, n->op, m->is_const, n->is_const,
               m->cval, n->cval);
      return 0;
    }
  }
  for (int i = 0; i < a->ncode; i++) {
    const gq_insn *p = &a->code[i], *q = &b->code[i];
    for (int k = 0; k < 3; k++)
      if (!same_arg(&p->a[k], &q->a[k])) {
        snprintf(why, size, "instruction %d operand %d", i, k);
        return 0;
      }
    if (p->op != q->op || p->dst != q->dst) {
      snprintf(why, size, "instruction %d", i);
      return 0;
    }
  }
  char *s = NULL, *t = NULL;
  const int same = gq_expr_to_string(a, &s) == GQ_SUCCESS && gq_expr_to_string(b, &t) == GQ_SUCCESS &&
                   strcmp(s, t) == 0;
  if (!same)
    snprintf(why, size, "text %s / %s", s ? s : "?", t ? t : "?");
  free(s);
  free(t);
  return same;
}

typedef struct {
  const char *text;
  int nparams;
  const char *names[3];
} form;

/* Each form's parameters take every combination of these values. */
static const double values[] = {1, 2, 3, 0, -0.0, -1, -2, 0.5, 0.1, 4, 64, 65, 2.5, -3, 1e300, -1e-300,
                                5e-324, 1e6, 123456.75, 1.0 / 3};
#define NVALUES (sizeof values / sizeof values[0])

static const form forms[] = {
  {"sin(k*x)/(1+x)", 1, {"k"}},
  {"k*sin(x)", 1, {"k"}},
  {"sin(x)/k", 1, {"k"}},
  {"k/(1+x)", 1, {"k"}},
  {"-k*x", 1, {"k"}},
  {"--k+x", 1, {"k"}},
  {"-(k)*x", 1, {"k"}},
  {"x^k", 1, {"k"}},
  {"x^-k", 1, {"k"}},
  {"(x^k)^2+k^2", 1, {"k"}},
  {"2^k*x", 1, {"k"}},
  {"if(k, x, 1)", 1, {"k"}},
  {"if(k > 1, x^2, k)", 1, {"k"}},
  {"if(x < k, k, x)", 1, {"k"}},
  {"sin(k)*x + cos(k)", 1, {"k"}},
  {"min(k, x) + max(x, k) + atan2(k, x)", 1, {"k"}},
  {"exp(-k*x^2)", 1, {"k"}},
  {"a*x^p + c", 3, {"a", "p", "c"}},
  {"a*k/x", 2, {"a", "k"}},
  {"(a+k)*x - a*k", 2, {"a", "k"}},
  {"x1*k + x2^k", 1, {"k"}},
  {"k", 1, {"k"}},
  {"x + 0*k", 1, {"k"}},
  {"sqrt(k)*log(x+k)", 1, {"k"}},
  {"k == 2", 1, {"k"}},
  {"pi*k*x + e", 1, {"k"}},
};

static int parse_at(const form *fm, const double *v, gq_expr **out, gq_expr_error *err)
{
  char text[3][96];
  const char *defs[3];
  for (int j = 0; j < fm->nparams; j++) {
    snprintf(text[j], sizeof text[j], "%s=%.17g", fm->names[j], v[j]);
    defs[j] = text[j];
  }
  gq_expr_params p = {defs, (size_t)fm->nparams};
  return gq_expr_parse(fm->text, &p, 2, out, err);
}

static void check_form(const form *fm)
{
  double first[3] = {1, 2, 3};
  gq_expr *template_expr = NULL;
  if (!tap_ok(parse_at(fm, first, &template_expr, NULL) == GQ_SUCCESS, "%s parses", fm->text))
    return;
  size_t cases = 0, failures = 0;
  size_t combos = 1;
  for (int j = 0; j < fm->nparams; j++)
    combos *= NVALUES;
  for (size_t c = 0; c < combos; c++) {
    double v[3];
    size_t rest = c;
    for (int j = 0; j < fm->nparams; j++, rest /= NVALUES)
      v[j] = values[rest % NVALUES];
    gq_expr *parsed = NULL, *rebound = NULL;
    gq_expr_error pe, re;
    const int ps = parse_at(fm, v, &parsed, &pe), rs = gq_expr_rebind(template_expr, v, &rebound, &re);
    char why[200] = "";
    const int same = ps == rs && (ps != GQ_SUCCESS ? strcmp(pe.message, re.message) == 0
                                                   : same_expr(parsed, rebound, why, sizeof why));
    cases++;
    if (!same && failures++ < 3)
      diag("%s at %.17g %.17g %.17g: parse %d, rebind %d: %s", fm->text, v[0], v[1], v[2], ps, rs,
           why[0] ? why : re.message);
    gq_expr_free(parsed);
    gq_expr_free(rebound);
  }
  tap_ok(failures == 0, "%s: rebound is the parse at %zu sets of values", fm->text, cases);
  gq_expr_free(template_expr);
}

/* Six groups "(k+...+k)" of 500 terms and x: short with k = 1, beyond the
 * limit of the canonical text with k a 23-character number; the parse and
 * rebind refuse it alike. */
static void check_limits(void)
{
  const size_t groups = 6, terms = 500;
  char *text = malloc(groups * (terms * 2 + 2) + 2), *at = text;
  for (size_t g = 0; g < groups; g++) {
    *at++ = '(';
    for (size_t i = 0; i < terms; i++)
      memcpy(at, i + 1 < terms ? "k+" : "k)", 2), at += 2;
    *at++ = '+';
  }
  strcpy(at, "x");
  form fm = {text, 1, {"k"}};
  const double one = 1, long_value = 1.2345678901234567e-300;
  gq_expr *t = NULL, *e = NULL;
  gq_expr_error pe, re;
  tap_ok(parse_at(&fm, &one, &t, NULL) == GQ_SUCCESS, "3000 terms of k in 6 groups parse at k = 1");
  const int ps = parse_at(&fm, &long_value, &e, &pe);
  const int rs = t ? gq_expr_rebind(t, &long_value, &e, &re) : GQ_SUCCESS;
  tap_ok(ps == GQ_EPARSE && rs == GQ_EPARSE && strcmp(pe.message, re.message) == 0 &&
             pe.column == re.column && pe.where == re.where,
         "...and both refuse k = %.17g: %s", long_value, re.message);
  const double nan_value = NAN;
  tap_ok(t && gq_expr_rebind(t, &nan_value, &e, &re) == GQ_EINVAL && !e, "a NaN value is refused");
  gq_expr_free(t);
  free(text);
}

typedef struct {
  const char *text;
  int dims;
} integrand_form;

/* Integrands: everything gq_integrand_parse sets, at each value. */
static void check_integrands(void)
{
  static const integrand_form texts[] = {
    {"sin(k*x)/(1+x)", 1}, {"k*sin(x)", 1}, {"sin(x)/k", 1}, {"k/(1+x)", 1}, {"x^k", 1},
    {"if(k > 1, 4*x, x)", 1}, {"k*x1*x2", 2},
  };
  for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
    const char *defs[1] = {"k=3"};
    gq_integrand_template *tp = NULL;
    if (!tap_ok(gq_integrand_template_parse(texts[t].text, defs, 1, texts[t].dims, &tp, NULL) == GQ_SUCCESS,
                "template %s", texts[t].text))
      continue;
    size_t failures = 0;
    for (size_t i = 0; i < NVALUES; i++) {
      char def[64];
      snprintf(def, sizeof def, "k=%.17g", values[i]);
      const char *one[1] = {def};
      gq_integrand *p = NULL, *q = NULL;
      const int ps = gq_integrand_parse(texts[t].text, one, 1, texts[t].dims, &p, NULL);
      const int qs = gq_integrand_instantiate(tp, &values[i], &q, NULL);
      int same = ps == qs;
      if (same && ps == GQ_SUCCESS) {
        const double *pv = NULL, *qv = NULL;
        const int pn = gq_integrand_gpu_params(p, &pv), qn = gq_integrand_gpu_params(q, &qv);
        double x[2] = {0.3, 0.7};
        same = strcmp(gq_integrand_formula(p), gq_integrand_formula(q)) == 0 && same_bits(p->scale, q->scale) &&
               strcmp(gq_integrand_jit_key(p), gq_integrand_jit_key(q)) == 0 && pn == qn &&
               (pn == 0 || memcmp(pv, qv, (size_t)pn * sizeof *pv) == 0) && (p->gpu_g == NULL) == (q->gpu_g == NULL) &&
               same_bits(gq_integrand_eval_point(p, x), gq_integrand_eval_point(q, x)) &&
               same_bits(gq_integrand_eval_in(p, GQ_PRECISION_FLOAT, 0.3), gq_integrand_eval_in(q, GQ_PRECISION_FLOAT, 0.3));
        char why[200], *ps_src = NULL, *qs_src = NULL;
        same = same && same_expr(p->g, q->g, why, sizeof why);
        if (same && p->gpu_g) /* the module's source: the same for every value */
          same = gq_expr_emit_cuda_params(p->gpu_g, "g", 0, &ps_src) == GQ_SUCCESS &&
                 gq_expr_emit_cuda_params(q->gpu_g, "g", 0, &qs_src) == GQ_SUCCESS && strcmp(ps_src, qs_src) == 0;
        free(ps_src);
        free(qs_src);
      }
      if (!same && failures++ < 3)
        diag("%s at k = %.17g differs", texts[t].text, values[i]);
      gq_integrand_free(p);
      gq_integrand_free(q);
    }
    tap_ok(failures == 0, "%s: instantiated is gq_integrand_parse's at %zu values", texts[t].text, NVALUES);
    gq_integrand_template_free(tp);
  }
  gq_integrand_template *tp = NULL;
  gq_integrand *f = NULL;
  tap_ok(gq_integrand_template_parse("circle", NULL, 0, 1, &tp, NULL) == GQ_SUCCESS &&
             gq_integrand_instantiate(tp, NULL, &f, NULL) == GQ_SUCCESS && f == gq_integrand_builtin("circle"),
         "a built-in's template gives the built-in");
  gq_integrand_template_free(tp);
  tap_ok(gq_integrand_template_parse("sin(q*x)", (const char *[]){"k=1"}, 1, 1, &tp, NULL) != GQ_SUCCESS && !tp,
         "a template that does not parse is refused");
}

/* The canonical text's whole numbers are written as %.0f writes them. */
static void check_whole_numbers(void)
{
  size_t bad = 0, count = 0;
  for (double v = -1e6 + 1; v < 1e6; v += v > -100 && v < 100 ? 1 : 97, count++) {
    char mine[40], theirs[40];
    gq_sb_number_format(mine, sizeof mine, v);
    snprintf(theirs, sizeof theirs, "%.0f", v);
    bad += strcmp(mine, theirs) != 0;
  }
  const double ends[] = {999999, -999999, 0, 10, 100000};
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++, count++) {
    char mine[40], theirs[40];
    gq_sb_number_format(mine, sizeof mine, ends[i]);
    snprintf(theirs, sizeof theirs, "%.0f", ends[i]);
    bad += strcmp(mine, theirs) != 0;
  }
  char zero[40];
  gq_sb_number_format(zero, sizeof zero, -0.0);
  tap_ok(bad == 0 && strcmp(zero, "-0") == 0, "%zu whole numbers and -0 written as %%.0f writes them", count);
}

int main(void)
{
  check_whole_numbers();
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
    check_form(&forms[i]);
  check_limits();
  check_integrands();
  return tap_done();
}
