/* integrand.c — integrands from text: built-in names or expressions, and
 * their host evaluation in either precision. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/expr/expr.h"

/* f's symbolic form, for a GPU module shared by every value of the
 * parameters: g parsed with the parameters as run-time values, its
 * power-of-two scale and its JIT key. */
typedef struct {
  gq_expr *g;
  double scale;
  char *key;
} symbolic_module;

static void symbolic_free(symbolic_module *m)
{
  gq_expr_free(m->g);
  free(m->key);
  memset(m, 0, sizeof *m);
}

/* The symbolic form of text, or none (m->g NULL: no parameter, out of
 * memory). */
static void symbolic_parse(const char *text_in, const gq_expr_params *params, int dims, symbolic_module *m)
{
  memset(m, 0, sizeof *m);
  if (params->count == 0)
    return;
  gq_expr *e = NULL, *g = NULL;
  char *text = NULL;
  m->scale = 1.0;
  if (gq_expr_parse_symbolic(text_in, params, dims, &e, NULL) != GQ_SUCCESS ||
      gq_expr_split_scale(e, &m->scale, &g) != GQ_SUCCESS || gq_expr_to_string(g ? g : e, &text) != GQ_SUCCESS) {
    gq_expr_free(g);
    gq_expr_free(e);
    free(text);
    memset(m, 0, sizeof *m);
    return;
  }
  /* no canonical text holds '|': the key differs from every expression's */
  m->key = malloc(strlen(text) + 32);
  if (m->key)
    sprintf(m->key, "%s|params:%d:%d", text, dims, (int)params->count);
  free(text);
  if (g)
    gq_expr_free(e);
  m->g = g ? g : e;
  if (!m->key)
    symbolic_free(m);
}

/* The symbolic form is kept only where it splits off the same power-of-two
 * scale as the baked g (the host multiplies the sums by f->scale).  Without
 * it (out of memory, another scale) the GPU compiles the baked g. */
static int symbolic_fits(const gq_integrand *f, const symbolic_module *m)
{
  return m->g && m->scale == f->scale;
}

/* The integrand of a parsed expression (taken: freed on failure), with
 * room for nvalues GPU parameter values after it. */
static int expression_integrand(gq_expr *expr, int dims, size_t nvalues, gq_integrand **out, gq_parse_error *err)
{
  gq_integrand *f = calloc(1, sizeof *f + nvalues * sizeof(double));
  char *canonical = NULL;
  double scale = 1.0;
  gq_expr *g = NULL;
  if (!f || gq_expr_to_string(expr, &canonical) != GQ_SUCCESS ||
      gq_expr_split_scale(expr, &scale, &g) != GQ_SUCCESS) {
    free(f);
    free(canonical);
    gq_expr_free(expr);
    err->status = GQ_ENOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return gq_fail(GQ_ENOMEM, "out of memory parsing an expression");
  }
  f->id = -1;
  f->name = "expression";
  f->formula = canonical;
  f->canonical = canonical;
  f->description = "user expression";
  f->a = 0.0;
  f->b = 1.0;
  f->scale = scale;
  f->expr = expr;
  f->g = g ? g : expr;
  f->dims = dims;
  *out = f;
  return GQ_SUCCESS;
}

static int expression_error(const gq_expr_error *e, gq_parse_error *err)
{
  err->status = e->status;
  err->in_param = e->where == GQ_EXPR_IN_PARAM;
  err->param_index = e->param_index;
  err->column = e->column;
  snprintf(err->message, sizeof err->message, "%s", e->message);
  return gq_fail(e->status, "%s", e->message);
}

int gq_integrand_parse(const char *text, const char *const *params, size_t nparams, int dims,
                       gq_integrand **out, gq_parse_error *err)
{
  gq_parse_error local;
  if (!err)
    err = &local;
  memset(err, 0, sizeof *err);
  if (out)
    *out = NULL;
  const char *bad = !out ? "f is NULL" : !text ? "text is NULL" : nparams && !params ? "params is NULL"
                  : !gq_span_fits(params, nparams, sizeof *params) ? "nparams is more than an array can hold"
                                                                   : NULL;
  for (size_t k = 0; !bad && k < nparams; k++)
    if (!params[k])
      bad = "a parameter string is NULL";
  if (bad) {
    err->status = GQ_EINVAL;
    snprintf(err->message, sizeof err->message, "gq_integrand_parse: %s", bad);
    return gq_fail(GQ_EINVAL, "%s", err->message);
  }
  const gq_integrand *builtin = gq_integrand_builtin(text);
  if (builtin && dims == 1) {
    if (nparams > 0) {
      err->status = GQ_EINVAL;
      err->in_param = 1;
      err->column = (size_t)-1;
      snprintf(err->message, sizeof err->message,
               "parameter '%s' is never used (the built-in %s takes none)", params[0], text);
      return gq_fail(GQ_EINVAL, "%s", err->message);
    }
    *out = (gq_integrand *)builtin;
    return GQ_SUCCESS;
  }
  if (builtin) { /* in several dimensions a built-in's x would be ambiguous */
    err->status = GQ_EPARSE;
    err->column = (size_t)-1;
    snprintf(err->message, sizeof err->message,
             "the built-in %s is a function of one variable; in %d dimensions give an expression in x1..x%d "
             "(%s is %s)", text, dims, dims, text, builtin->formula);
    return gq_fail(GQ_EPARSE, "%s", err->message);
  }

  /* A bare name that is no built-in: say so, rather than "unknown name". */
  size_t len = strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  if (len > 0 && text[len] == '\0' && !(text[0] >= '0' && text[0] <= '9') && strcmp(text, "x") != 0 &&
      strcmp(text, "pi") != 0 && strcmp(text, "e") != 0 && !(dims > 1 && (strcmp(text, "y") == 0 ||
      strcmp(text, "z") == 0 || (text[0] == 'x' && strspn(text + 1, "0123456789") == len - 1)))) {
    int known_param = 0;
    for (size_t k = 0; k < nparams; k++)
      known_param |= strncmp(params[k], text, len) == 0 && params[k][len] == '=';
    if (!known_param) {
      err->status = GQ_EPARSE;
      err->column = (size_t)-1; /* no caret: the whole text is the problem */
      snprintf(err->message, sizeof err->message,
               "unknown integrand '%.100s': not a built-in (gpuquad --list) nor an expression in x", text);
      return gq_fail(GQ_EPARSE, "%s", err->message);
    }
  }

  gq_expr_params p = {params, nparams};
  gq_expr_error e;
  gq_expr *expr = NULL;
  int status = gq_expr_parse(text, nparams ? &p : NULL, dims, &expr, &e);
  if (status != GQ_SUCCESS)
    return expression_error(&e, err);
  gq_integrand *f;
  if ((status = expression_integrand(expr, dims, 0, &f, err)) != GQ_SUCCESS)
    return status;
  symbolic_module m;
  symbolic_parse(text, &p, dims, &m);
  if (symbolic_fits(f, &m)) {
    f->gpu_g = m.g;
    f->gpu_key = m.key;
  } else {
    symbolic_free(&m);
  }
  *out = f;
  return GQ_SUCCESS;
}

/* A template: the parse at the first values, whose expression is rebound
 * (expr.h) to each problem's; a built-in is itself at every value. */
struct gq_integrand_template {
  gq_integrand *first;
  int dims;
  size_t nparams;
  symbolic_module symbolic;
};

int gq_integrand_template_parse(const char *text, const char *const *params, size_t nparams, int dims,
                                gq_integrand_template **out, gq_parse_error *err)
{
  gq_parse_error local;
  if (!err)
    err = &local;
  if (out)
    *out = NULL;
  gq_integrand_template *t = out ? calloc(1, sizeof *t) : NULL;
  if (!t) {
    memset(err, 0, sizeof *err);
    err->status = out ? GQ_ENOMEM : GQ_EINVAL;
    snprintf(err->message, sizeof err->message, "%s", out ? "out of memory" : "gq_integrand_template_parse: out is NULL");
    return gq_fail(err->status, "%s", err->message);
  }
  const int status = gq_integrand_parse(text, params, nparams, dims, &t->first, err);
  if (status != GQ_SUCCESS) {
    free(t);
    return status;
  }
  t->dims = dims;
  t->nparams = nparams;
  if (t->first->id < 0) {
    gq_expr_params p = {params, nparams};
    symbolic_parse(text, &p, dims, &t->symbolic);
  }
  *out = t;
  return GQ_SUCCESS;
}

int gq_integrand_instantiate(const gq_integrand_template *t, const double *values, gq_integrand **out,
                             gq_parse_error *err)
{
  gq_parse_error local;
  if (!err)
    err = &local;
  memset(err, 0, sizeof *err);
  if (out)
    *out = NULL;
  if (!t || !out || (t->nparams && !values)) {
    err->status = GQ_EINVAL;
    snprintf(err->message, sizeof err->message, "gq_integrand_instantiate: NULL argument");
    return gq_fail(GQ_EINVAL, "%s", err->message);
  }
  if (t->first->id >= 0) {
    *out = t->first;
    return GQ_SUCCESS;
  }
  gq_expr_error e;
  gq_expr *expr = NULL;
  int status = gq_expr_rebind(t->first->expr, values, &expr, &e);
  if (status != GQ_SUCCESS)
    return expression_error(&e, err);
  gq_integrand *f;
  if ((status = expression_integrand(expr, t->dims, t->nparams, &f, err)) != GQ_SUCCESS)
    return status;
  if (symbolic_fits(f, &t->symbolic)) {
    f->gpu_g = t->symbolic.g;
    f->gpu_key = t->symbolic.key;
    f->gpu_shared = 1;
    f->gpu_values = (double *)(f + 1);
    memcpy(f->gpu_values, values, t->nparams * sizeof *values);
  }
  *out = f;
  return GQ_SUCCESS;
}

void gq_integrand_template_free(gq_integrand_template *t)
{
  if (!t)
    return;
  gq_integrand_free(t->first);
  symbolic_free(&t->symbolic);
  free(t);
}

void gq_integrand_free(gq_integrand *f)
{
  if (!f || f->id >= 0)
    return;
  if (f->g != f->expr)
    gq_expr_free(f->g);
  gq_expr_free(f->expr);
  if (!f->gpu_shared) {
    gq_expr_free(f->gpu_g);
    free(f->gpu_key);
  }
  free(f->canonical);
  free(f);
}

const char *gq_integrand_jit_key(const gq_integrand *f)
{
  return f->gpu_g ? f->gpu_key : f->canonical;
}

int gq_integrand_gpu_params(const gq_integrand *f, const double **values)
{
  *values = NULL;
  const int count = f->gpu_g ? gq_expr_param_values(f->gpu_g, values) : 0;
  if (f->gpu_values)
    *values = f->gpu_values;
  return count;
}

int gq_integrand_is_builtin(const gq_integrand *f)
{
  return f ? f->id >= 0 : (gq_null_arg(__func__, "f"), 0);
}
int gq_integrand_dims(const gq_integrand *f)
{
  return !f ? (gq_null_arg(__func__, "f"), 0) : f->id >= 0 ? 1 : f->dims;
}

double gq_integrand_eval(const gq_integrand *f, double x)
{
  if (!f)
    return gq_null_arg(__func__, "f"), NAN;
  if (f->id >= 0)
    return f->eval(x);
  double vars[GQ_EXPR_MAX_DIMS] = {x};
  return gq_expr_eval(f->expr, vars);
}

double gq_integrand_eval_point(const gq_integrand *f, const double *x)
{
  if (!f || !x)
    return gq_null_arg(__func__, !f ? "f" : "x"), NAN;
  if (f->id >= 0)
    return f->eval(x[0]);
  double vars[GQ_EXPR_MAX_DIMS] = {0};
  for (int d = 0; d < gq_integrand_dims(f) && d < GQ_EXPR_MAX_DIMS; d++)
    vars[d] = x[d];
  return gq_expr_eval(f->expr, vars);
}

double gq_integrand_eval_in(const gq_integrand *f, int precision, double x)
{
  if (precision != GQ_PRECISION_FLOAT)
    return gq_integrand_eval(f, x);
  if (f->id >= 0)
    return (double)f->eval_f((float)x);
  /* the float path of the block evaluator, for one point */
  float *scratch = malloc(gq_expr_block_scratch(f->g) * sizeof *scratch + sizeof(float));
  if (!scratch)
    return NAN;
  const double *vars[GQ_EXPR_MAX_DIMS] = {&x};
  double zero[GQ_EXPR_MAX_DIMS - 1] = {0};
  for (int d = 1; d < GQ_EXPR_MAX_DIMS; d++)
    vars[d] = &zero[d - 1];
  float v;
  gq_expr_eval_block_f(f->g, 1, vars, &v, scratch);
  free(scratch);
  return f->scale * (double)v;
}

/* An expression made from f (scaled, or with its variable changed) keeps f's
 * name, formula and description for the output. */
static void derived_from(gq_integrand *r, const gq_integrand *f)
{
  r->id = -1;
  r->name = f->name;
  r->formula = f->formula;
  r->description = f->description;
  r->a = f->a;
  r->b = f->b;
}

int gq_integrand_scaled(const gq_integrand *f, int k, gq_integrand **out)
{
  if (out)
    *out = NULL;
  if (!out || !f || k < 1 || k > 1000)
    return gq_fail(GQ_EINVAL, "gq_integrand_scaled: %s", !out ? "out is NULL" : !f ? "f is NULL"
                                                        : "k must be between 1 and 1000");
  gq_integrand *r = calloc(1, sizeof *r);
  gq_expr *own = NULL, *split = NULL;
  const char *text = f->id >= 0 ? f->formula : f->canonical;
  char *key = malloc(strlen(text) + 16);
  const double c = ldexp(1.0, -k);
  double scale = f->scale;
  int status = r && key ? GQ_SUCCESS : GQ_ENOMEM;
  /* A built-in's formula is the same function as its compiled form
   * (tests/t_integrands.c checks it to the bit). */
  if (status == GQ_SUCCESS && f->id >= 0) {
    status = gq_expr_parse(f->formula, NULL, 1, &own, NULL);
    if (status == GQ_SUCCESS)
      status = gq_expr_split_scale(own, &scale, &split);
  }
  if (status == GQ_SUCCESS)
    status = gq_expr_scaled_copy(f->id >= 0 ? own : f->expr, c, &r->expr);
  if (status == GQ_SUCCESS)
    status = gq_expr_scaled_copy(f->id >= 0 ? (split ? split : own) : f->g, c, &r->g);
  gq_expr_free(own);
  gq_expr_free(split);
  if (status != GQ_SUCCESS) {
    if (r) {
      gq_expr_free(r->expr);
      gq_expr_free(r->g);
    }
    free(r);
    free(key);
    return gq_fail(status == GQ_ENOMEM ? GQ_ENOMEM : GQ_EINVAL, "cannot scale the integrand %s",
                   text);
  }
  /* The JIT key must differ from every expression's: no canonical text
   * holds '|'. */
  sprintf(key, "%s|2^-%d", text, k);
  derived_from(r, f);
  r->scale = scale;
  r->canonical = key;
  r->dims = f->id >= 0 ? 1 : f->dims;
  *out = r;
  return GQ_SUCCESS;
}

int gq_integrand_changed(const gq_integrand *f, const char *phi, const char *dphi, const char *guard,
                         gq_integrand **out)
{
  if (out)
    *out = NULL;
  if (!out || !f || !phi || !dphi || !guard)
    return gq_fail(GQ_EINVAL, "gq_integrand_changed: NULL argument");
  if (gq_integrand_dims(f) != 1)
    return gq_fail(GQ_EINVAL, "a change of variables needs an integrand of one variable");
  return gq_integrand_changed_axes(f, 1, &phi, &dphi, &guard, out);
}

int gq_integrand_changed_axes(const gq_integrand *f, int dims, const char *const *phi, const char *const *dphi,
                              const char *const *guard, gq_integrand **out)
{
  if (out)
    *out = NULL;
  if (!out || !f || !phi || !dphi || !guard || dims < 1 || dims > GQ_EXPR_MAX_DIMS)
    return gq_fail(GQ_EINVAL, "gq_integrand_changed_axes: bad argument");
  /* f(phi(t)) is f with each changed x_d replaced by phi_d; g(t) =
   * if(guard_1, ... if(guard_D, f(phi(t)) * phi_1'(t_1) ... , 0) ..., 0) is
   * then read from text, whose parse folds the constants of a constant f
   * (the canonical text reads back as the same tree). */
  gq_integrand *r = calloc(1, sizeof *r);
  gq_expr *own = NULL, *map[GQ_EXPR_MAX_DIMS] = {NULL}, *inner = NULL, *g = NULL;
  char *inner_text = NULL, *text = NULL;
  int status = r ? GQ_SUCCESS : GQ_ENOMEM;
  if (status == GQ_SUCCESS && f->id >= 0) /* the formula is the built-in, to the bit */
    status = gq_expr_parse(f->formula, NULL, dims, &own, NULL);
  for (int d = 0; d < dims && status == GQ_SUCCESS; d++)
    if (phi[d])
      status = gq_expr_parse(phi[d], NULL, dims, &map[d], NULL);
  if (status == GQ_SUCCESS)
    status = gq_expr_substitute(own ? own : f->expr, (const gq_expr *const *)map, dims, &inner);
  if (status == GQ_SUCCESS)
    status = gq_expr_to_string(inner, &inner_text);
  size_t size = inner_text ? strlen(inner_text) + 16 : 0;
  for (int d = 0; d < dims; d++)
    if (phi[d])
      size += strlen(guard[d]) + strlen(dphi[d]) + 16;
  if (status == GQ_SUCCESS && !(text = malloc(size)))
    status = GQ_ENOMEM;
  if (status == GQ_SUCCESS) {
    size_t at = 0;
    for (int d = 0; d < dims; d++)
      if (phi[d])
        at += (size_t)snprintf(text + at, size - at, "if(%s,", guard[d]);
    at += (size_t)snprintf(text + at, size - at, "(%s)", inner_text);
    for (int d = 0; d < dims; d++)
      if (phi[d])
        at += (size_t)snprintf(text + at, size - at, "*(%s)", dphi[d]);
    for (int d = 0; d < dims; d++)
      if (phi[d])
        at += (size_t)snprintf(text + at, size - at, ",0)");
    status = gq_expr_parse(text, NULL, dims, &g, NULL);
  }
  if (status == GQ_SUCCESS)
    status = gq_expr_to_string(g, &r->canonical);
  gq_expr_free(own);
  for (int d = 0; d < dims; d++)
    gq_expr_free(map[d]);
  gq_expr_free(inner);
  free(inner_text);
  free(text);
  if (status != GQ_SUCCESS) {
    gq_expr_free(g);
    free(r);
    return gq_fail(status == GQ_ENOMEM ? GQ_ENOMEM : GQ_EINVAL,
                   "cannot change the variables of %s: the expression of the changed integrand is too large",
                   f->id >= 0 ? f->formula : f->canonical);
  }
  derived_from(r, f);
  r->scale = 1.0;
  r->expr = r->g = g;
  r->dims = dims;
  *out = r;
  return GQ_SUCCESS;
}
