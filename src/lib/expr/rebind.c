/* rebind.c — an expression at new parameter values without parsing it
 * again (issue 23: a sweep's problems are one text at many values).
 *
 * The parser's tree does not depend on the values: every node is made
 * whatever they are, and a value only decides what folds (parse.c folds a
 * node as it makes it, from its children, which are always made before
 * it).  So the parse at other values is the same tree with the parameters'
 * numbers replaced and every node folded again in the order it was made;
 * the canonical text's limits are then checked and the bytecode compiled
 * as the parser does. */
#include "expr_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

/* e's nodes and fields in a new expression, without bytecode yet. */
static gq_expr *copy_of(const gq_expr *e)
{
  gq_expr *g = malloc(sizeof *g);
  if (!g) return NULL;
  *g = *e;
  g->code = NULL;
  g->ncode = g->nregs = 0;
  if (!(g->nodes = malloc((size_t)e->nnodes * sizeof *g->nodes))) {
    free(g);
    return NULL;
  }
  memcpy(g->nodes, e->nodes, (size_t)e->nnodes * sizeof *g->nodes);
  return g;
}

int gq_expr_rebind(const gq_expr *e, const double *values, gq_expr **out, gq_expr_error *err)
{
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  if (!e || !out || (e->nvalues > 0 && !values)) {
    gq_expr_set_error(err, GQ_EINVAL, GQ_EXPR_IN_TEXT, 0, 0, "invalid arguments to gq_expr_rebind");
    return GQ_EINVAL;
  }
  for (int j = 0; j < e->nvalues; j++)
    if (!isfinite(values[j])) {
      gq_expr_set_error(err, GQ_EINVAL, GQ_EXPR_IN_PARAM, (size_t)j, 0,
                        "bad value for parameter %d: expected a finite number", j + 1);
      return GQ_EINVAL;
    }
  gq_expr *g = copy_of(e);
  if (!g) {
    gq_expr_set_error(err, GQ_ENOMEM, GQ_EXPR_IN_TEXT, 0, 0, "out of memory");
    return GQ_ENOMEM;
  }
  for (int i = 0; i < g->nnodes && g->nvalues > 0; i++) {
    gq_node *n = &g->nodes[i];
    if (n->op == GQ_OP_NUM) {
      if (n->param) n->cval = n->negated ? -values[n->param - 1] : values[n->param - 1];
    } else if (n->op != GQ_OP_VAR) {
      n->is_const = 0;
      n->cval = 0.0;
      gq_expr_fold_node(g, n);
    }
  }
  int status = g->nvalues > 0 ? gq_expr_check_text(g, err) : GQ_SUCCESS;
  if (status == GQ_SUCCESS && gq_expr_compile(g) != GQ_SUCCESS) {
    gq_expr_set_error(err, GQ_ENOMEM, GQ_EXPR_IN_TEXT, 0, 0, "out of memory");
    status = GQ_ENOMEM;
  }
  if (status != GQ_SUCCESS) {
    gq_expr_free(g);
    return status;
  }
  *out = g;
  return GQ_SUCCESS;
}
