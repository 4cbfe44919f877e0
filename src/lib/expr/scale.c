/* scale.c — split a constant power-of-two factor off an expression.
 *
 * A sum of c*g(x_i) with c a power of two equals c times the sum of g(x_i)
 * bit for bit (scaling by 2^k is exact barring overflow and underflow), so
 * the reductions sum g and multiply once: one multiplication per point
 * saved.  c / h becomes c * (1/h): fl(c/h) = c * fl(1/h) for the same
 * reason. */
#include "expr_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

static int is_power_of_two(const gq_node *n)
{
  int exponent;
  if (!n->is_const || !isfinite(n->cval) || n->cval == 0.0 || fabs(n->cval) == 1.0)
    return 0; /* a factor of +-1 saves nothing */
  return frexp(fabs(n->cval), &exponent) == 0.5;
}

/* A constant leaf (whatever node the constant replaces: 1 in c/h may stand
 * for -2, a folded operation with children). */
static gq_node number_node(double v)
{
  gq_node n;
  memset(&n, 0, sizeof n);
  n.op = GQ_OP_NUM;
  n.numkind = GQ_NUM_LITERAL;
  n.is_const = 1;
  n.cval = v;
  n.kid[0] = n.kid[1] = n.kid[2] = -1;
  n.depth = 1;
  return n;
}

/* A copy of e with room for `extra` more nodes; the root is set by the caller. */
static gq_expr *copy_with_room(const gq_expr *e, int extra)
{
  gq_expr *g = calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->nodes = malloc((size_t)(e->nnodes + extra) * sizeof *g->nodes);
  if (!g->nodes) {
    free(g);
    return NULL;
  }
  memcpy(g->nodes, e->nodes, (size_t)e->nnodes * sizeof *g->nodes);
  g->nnodes = e->nnodes;
  g->dims_used = e->dims_used;
  g->param_base = e->param_base; /* symbolic parameters keep their values */
  g->nparams = e->nparams;
  memcpy(g->params, e->params, sizeof g->params);
  return g;
}

int gq_expr_split_scale(const gq_expr *e, double *scale, gq_expr **out)
{
  if (!e || !scale || !out)
    return GQ_EINVAL;
  *scale = 1.0;
  *out = NULL;
  const gq_node *root = &e->nodes[e->root];
  if (root->is_const || (root->op != GQ_OP_MUL && root->op != GQ_OP_DIV))
    return GQ_SUCCESS;
  const gq_node *l = &e->nodes[root->kid[0]], *r = &e->nodes[root->kid[1]];
  gq_expr *g = NULL;
  double c = 1.0;
  if (root->op == GQ_OP_MUL && is_power_of_two(l)) { /* c * g */
    c = l->cval;
    if (!(g = copy_with_room(e, 0)))
      return GQ_ENOMEM;
    g->root = root->kid[1];
  } else if (is_power_of_two(r)) { /* g * c, g / c */
    c = root->op == GQ_OP_MUL ? r->cval : 1.0 / r->cval;
    if (!(g = copy_with_room(e, 0)))
      return GQ_ENOMEM;
    g->root = root->kid[0];
  } else if (root->op == GQ_OP_DIV && is_power_of_two(l) && fabs(l->cval) > 1.0) {
    /* c / h -> c * (1 / h).  Only for |c| > 1: where 1/h overflows, c/h
     * then overflows too, but with c < 1 it may not (2^-1074/x at the
     * smallest x is 1, and 2^-1074 * (1/x) would be inf). */
    c = l->cval;
    if (!(g = copy_with_room(e, 2)))
      return GQ_ENOMEM;
    gq_node one = number_node(1.0), div = *root;
    div.kid[0] = g->nnodes;
    g->nodes[g->nnodes++] = one;
    g->nodes[g->nnodes++] = div;
    g->root = g->nnodes - 1;
  } else {
    return GQ_SUCCESS;
  }
  if (!isfinite(c) || c == 0.0) {
    gq_expr_free(g);
    return GQ_SUCCESS;
  }
  const int status = gq_expr_compile(g);
  if (status != GQ_SUCCESS) {
    gq_expr_free(g);
    return status;
  }
  *scale = c;
  *out = g;
  return GQ_SUCCESS;
}

int gq_expr_scaled_copy(const gq_expr *e, double c, gq_expr **out)
{
  if (!out)
    return GQ_EINVAL;
  *out = NULL;
  if (!e || !isfinite(c))
    return GQ_EINVAL;
  gq_expr *g = copy_with_room(e, 2);
  if (!g)
    return GQ_ENOMEM;
  const gq_node *root = &e->nodes[e->root];
  gq_node factor = number_node(c), product = {0};
  product.op = GQ_OP_MUL;
  product.kid[0] = g->nnodes;
  product.kid[1] = e->root;
  product.kid[2] = -1;
  product.depth = root->depth + 1;
  product.is_const = root->is_const;
  product.cval = c * root->cval;
  g->nodes[g->nnodes++] = factor;
  g->nodes[g->nnodes++] = product;
  g->root = g->nnodes - 1;
  const int status = gq_expr_compile(g);
  if (status != GQ_SUCCESS) {
    gq_expr_free(g);
    return status;
  }
  *out = g;
  return GQ_SUCCESS;
}
