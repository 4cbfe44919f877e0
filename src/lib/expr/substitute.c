/* substitute.c — an expression with its variables replaced by expressions:
 * f(phi(t)), the integrand of a change of variables.
 *
 * The replacement's nodes are appended once and every variable node that
 * it replaces becomes a copy of its root, so a variable used k times shares
 * one subtree (the AST becomes a DAG).  Every consumer walks the tree from
 * the root and never marks nodes, so a shared subtree is simply visited, and
 * computed, once per use: exactly what the text of the result would do. */
#include "expr_internal.h"

#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

/* Depths are recomputed from the root: node order is no longer children
 * first.  Recursion is bounded by the two operands' own depth limits. */
static int depth_of(gq_node *nodes, int i, unsigned char *done)
{
  gq_node *n = &nodes[i];
  if (done[i])
    return n->depth;
  int depth = 0;
  for (int k = 0; k < 3; k++)
    if (n->kid[k] >= 0) {
      const int d = depth_of(nodes, n->kid[k], done);
      depth = d > depth ? d : depth;
    }
  n->depth = depth + 1;
  done[i] = 1;
  return n->depth;
}

int gq_expr_substitute(const gq_expr *e, const gq_expr *const *by, int count, gq_expr **out)
{
  if (!out)
    return GQ_EINVAL;
  *out = NULL;
  if (!e || (count > 0 && !by) || count < 0 || count > GQ_EXPR_MAX_DIMS)
    return GQ_EINVAL;
  long total = e->nnodes;
  for (int k = 0; k < count; k++)
    if (by[k]) {
      /* a constant replacement would leave nodes above it unfolded */
      if (by[k]->nodes[by[k]->root].is_const)
        return GQ_EINVAL;
      total += by[k]->nnodes;
    }
  if (total > 16L * GQ_EXPR_MAX_LEN)
    return GQ_EINVAL;
  gq_expr *g = calloc(1, sizeof *g);
  unsigned char *done = calloc((size_t)total, 1);
  if (g)
    g->nodes = malloc((size_t)total * sizeof *g->nodes);
  if (!g || !g->nodes || !done) {
    free(done);
    gq_expr_free(g);
    return GQ_ENOMEM;
  }
  memcpy(g->nodes, e->nodes, (size_t)e->nnodes * sizeof *g->nodes);
  int root_of[GQ_EXPR_MAX_DIMS];
  g->nnodes = e->nnodes;
  for (int k = 0; k < count; k++) {
    if (!by[k])
      continue;
    const int offset = g->nnodes;
    for (int i = 0; i < by[k]->nnodes; i++) {
      gq_node n = by[k]->nodes[i];
      for (int j = 0; j < 3; j++)
        n.kid[j] += n.kid[j] >= 0 ? offset : 0;
      g->nodes[g->nnodes++] = n;
    }
    root_of[k] = offset + by[k]->root;
  }
  for (int i = 0; i < e->nnodes; i++) {
    gq_node *n = &g->nodes[i];
    if (n->op == GQ_OP_VAR && n->var < count && by[n->var]) {
      const size_t col = n->col;
      *n = g->nodes[root_of[n->var]];
      n->col = col;
    }
  }
  g->root = e->root;
  for (int i = 0; i < g->nnodes; i++) /* reachable or not: an upper bound */
    if (g->nodes[i].op == GQ_OP_VAR && g->nodes[i].var + 1 > g->dims_used)
      g->dims_used = g->nodes[i].var + 1;
  const int depth = depth_of(g->nodes, g->root, done);
  free(done);
  size_t length;
  int nesting;
  int status = depth > GQ_EXPR_MAX_DEPTH ? GQ_EINVAL : GQ_SUCCESS;
  if (status == GQ_SUCCESS) {
    /* the canonical text must read back, as for a parsed expression */
    gq_expr_measure_text(g, &length, &nesting);
    if (length > GQ_EXPR_MAX_LEN || nesting > GQ_EXPR_MAX_NEST)
      status = GQ_EINVAL;
  }
  if (status == GQ_SUCCESS)
    status = gq_expr_compile(g);
  if (status != GQ_SUCCESS) {
    gq_expr_free(g);
    return status;
  }
  *out = g;
  return GQ_SUCCESS;
}
