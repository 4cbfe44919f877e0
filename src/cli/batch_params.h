/* batch_params.h — a problem's parameters in a sweep (issue 23): the
 * values of its axes, the definitions its single run is given ("k=1",
 * written only when something asks for them), and what the problems of one
 * sweep share, set up by the first problem whose setup succeeds: the
 * integrand parsed once (a template, instantiated at each problem's values:
 * the same integrand to the bit, lib/internal.h), and each limit option
 * read once, its numbers kept and its expressions of the parameters parsed
 * once and rebound to each problem's values.  Whatever the shared setup
 * cannot give exactly as the single run would (a value it refuses), the
 * problem's own parse gives, with its own message. */
#ifndef GQ_CLI_BATCH_PARAMS_H
#define GQ_CLI_BATCH_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/expr/expr.h"
#include "lib/internal.h"
#include "sweep.h"

/* One limit option (--a or --b) of a sweep, read once: per dimension a
 * number, or an expression of the axes axis[d][0 .. naxes[d]-1]. */
typedef struct {
  int ready;
  char *text;                    /* the option's text it was read from    */
  int dims;
  double value[GQ_MC_MAX_DIMS];
  gq_expr *expr[GQ_MC_MAX_DIMS]; /* NULL: value[d] is the limit          */
  int axis[GQ_MC_MAX_DIMS][CLI_MAX_PARAMS];
  int naxes[GQ_MC_MAX_DIMS];
} limit_cache;

/* What the problems of one sweep share (all zero: nothing yet). */
typedef struct {
  gq_integrand_template *f;      /* NULL: each problem parses its own     */
  uint64_t dims;                 /* the sweep's --dim                     */
  int axis[CLI_MAX_PARAMS];      /* the axes f uses, in order             */
  int naxes;
  limit_cache limit[2];          /* --a, --b                              */
} sweep_cache;

void sweep_cache_free(sweep_cache *c);

/* One problem: the sweep (NULL for none), its values axis by axis, the
 * sweep's cache (NULL: nothing shared). */
typedef struct {
  const sweep *s;
  const double *values;
  sweep_cache *cache;
  char text[CLI_MAX_PARAMS][96];
  const char *defs[CLI_MAX_PARAMS];
  int written;                   /* defs are written                      */
} problem_params;

void problem_params_init(problem_params *pp, const sweep *s, const double *values, sweep_cache *cache);
/* The definitions "NAME=VALUE" of every axis (sweep_definition's text),
 * written on the first call; their count. */
const char *const *problem_defs(problem_params *pp);
size_t problem_ndefs(const problem_params *pp);
/* "k=1 c=2" into buf. */
void problem_label(problem_params *pp, char *buf, size_t size);

/* Whether text uses name (len characters) as a whole name. */
int uses_name(const char *text, const char *name, size_t len);

/* The sweep's integrand at this problem's values: 1 with *f and *dims set
 * when the cache holds it and the instantiation succeeds, else 0 (the
 * problem parses its own). */
int cached_integrand(problem_params *pp, gq_integrand **f, uint64_t *dims);
/* After a problem's setup checks passed: the template of text with the
 * definitions f_defs of the axes it uses, kept in the cache, and this
 * problem's integrand from it (cached_integrand's answer).  The parse's
 * status, err filled as gq_integrand_parse fills it. */
int cache_integrand(problem_params *pp, const char *text, const char *const *f_defs, size_t nf, uint64_t dims,
                    gq_integrand **f, gq_parse_error *err);

/* Limit option side (0: --a, 1: --b) given as text over dims dimensions:
 * 1 with out[] when the cache read it and every expression gives a limit
 * at this problem's values as the single run would (not NaN), else 0. */
int cached_limits(problem_params *pp, int side, const char *text, int dims, double *out);
/* After a problem read text's limits without error: kept, the numbers
 * out[d] and the expressions expr[d] of the tokens tok[d] (NULL where a
 * number), which the cache takes (it owns or frees them from now). */
void cache_limits(problem_params *pp, int side, const char *text, int dims, const double *out, gq_expr **expr,
                  const char (*tok)[CLI_TOKEN]);

#endif
