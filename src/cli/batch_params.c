/* batch_params.c — a problem's parameters in a sweep, and what the
 * problems of one sweep share (batch_params.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_params.h"

void sweep_cache_free(sweep_cache *c)
{
  gq_integrand_template_free(c->f);
  for (int side = 0; side < 2; side++) {
    for (int d = 0; d < c->limit[side].dims; d++)
      gq_expr_free(c->limit[side].expr[d]);
    free(c->limit[side].text);
  }
  memset(c, 0, sizeof *c);
}

void problem_params_init(problem_params *pp, const sweep *s, const double *values, sweep_cache *cache)
{
  pp->s = s;
  pp->values = values;
  pp->cache = cache;
  pp->written = 0;
}

size_t problem_ndefs(const problem_params *pp)
{
  return pp->s ? (size_t)pp->s->naxes : 0;
}

const char *const *problem_defs(problem_params *pp)
{
  for (int k = 0; !pp->written && k < (int)problem_ndefs(pp); k++) {
    sweep_definition(pp->s, k, pp->values[k], pp->text[k], sizeof pp->text[k]);
    pp->defs[k] = pp->text[k];
  }
  pp->written = 1;
  return pp->defs;
}

void problem_label(problem_params *pp, char *buf, size_t size)
{
  const char *const *defs = problem_defs(pp);
  size_t at = 0;
  if (size)
    buf[0] = '\0';
  for (size_t k = 0; k < problem_ndefs(pp); k++)
    at += (size_t)snprintf(buf + at, at < size ? size - at : 0, "%s%s", k ? " " : "", defs[k]);
}

static int is_name_char(char c)
{
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int uses_name(const char *text, const char *name, size_t len)
{
  for (const char *at = text; len > 0 && *at; at++)
    if (strncmp(at, name, len) == 0 && (at == text || !is_name_char(at[-1])) && !is_name_char(at[len]))
      return 1;
  return 0;
}

/* The axes whose names text uses, in order: the definitions a parse of
 * text is given (batch_run.c, used_definitions). */
static int used_axes(const sweep *s, const char *text, int *axis)
{
  int count = 0;
  for (int k = 0; s && k < s->naxes; k++)
    if (uses_name(text, s->axis[k].name, strlen(s->axis[k].name)))
      axis[count++] = k;
  return count;
}

static void values_of(const problem_params *pp, const int *axis, int count, double *out)
{
  for (int j = 0; j < count; j++)
    out[j] = pp->values[axis[j]];
}

int cached_integrand(problem_params *pp, gq_integrand **f, uint64_t *dims)
{
  const sweep_cache *c = pp->cache;
  double v[CLI_MAX_PARAMS];
  if (!c || !c->f)
    return 0;
  values_of(pp, c->axis, c->naxes, v);
  if (gq_integrand_instantiate(c->f, v, f, NULL) != GQ_SUCCESS)
    return 0;
  *dims = c->dims;
  return 1;
}

int cache_integrand(problem_params *pp, const char *text, const char *const *f_defs, size_t nf, uint64_t dims,
                    gq_integrand **f, gq_parse_error *err)
{
  sweep_cache *c = pp->cache;
  if (!c || c->f)
    return gq_integrand_parse(text, f_defs, nf, (int)dims, f, err);
  int axis[CLI_MAX_PARAMS];
  const int naxes = used_axes(pp->s, text, axis);
  gq_integrand_template *t = NULL;
  int status = gq_integrand_template_parse(text, f_defs, nf, (int)dims, &t, err);
  if (status != GQ_SUCCESS)
    return status;
  if ((size_t)naxes != nf) { /* cannot happen: the same names, the same test */
    gq_integrand_template_free(t);
    return gq_integrand_parse(text, f_defs, nf, (int)dims, f, err);
  }
  c->f = t;
  c->dims = dims;
  memcpy(c->axis, axis, sizeof axis);
  c->naxes = naxes;
  if (!cached_integrand(pp, f, &dims))
    status = gq_integrand_parse(text, f_defs, nf, (int)dims, f, err);
  return status;
}

int cached_limits(problem_params *pp, int side, const char *text, int dims, double *out)
{
  const limit_cache *l = pp->cache ? &pp->cache->limit[side] : NULL;
  if (!l || !l->ready || l->dims != dims || strcmp(l->text, text) != 0)
    return 0;
  for (int d = 0; d < dims; d++) {
    if (!l->expr[d]) {
      out[d] = l->value[d];
      continue;
    }
    double v[CLI_MAX_PARAMS];
    gq_expr *x = NULL;
    values_of(pp, l->axis[d], l->naxes[d], v);
    if (gq_expr_rebind(l->expr[d], v, &x, NULL) != GQ_SUCCESS)
      return 0;
    const double no_variables[1] = {0.0};
    out[d] = gq_expr_eval(x, no_variables);
    gq_expr_free(x);
    if (isnan(out[d]))
      return 0; /* the single run's refusal says why */
  }
  return 1;
}

void cache_limits(problem_params *pp, int side, const char *text, int dims, const double *out, gq_expr **expr,
                  const char (*tok)[CLI_TOKEN])
{
  limit_cache *l = pp->cache ? &pp->cache->limit[side] : NULL;
  int keep = l && !l->ready && dims <= GQ_MC_MAX_DIMS && (l->text = strdup(text)) != NULL;
  for (int d = 0; d < dims; d++) {
    if (keep) {
      l->value[d] = out[d];
      l->expr[d] = expr[d];
      l->naxes[d] = expr[d] ? used_axes(pp->s, tok[d], l->axis[d]) : 0;
    } else {
      gq_expr_free(expr[d]);
    }
  }
  if (keep) {
    l->dims = dims;
    l->ready = 1;
  }
}
