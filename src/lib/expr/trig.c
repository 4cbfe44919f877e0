/* trig.c — the sines, cosines and exponentials of a one-variable
 * expression whose argument is an affine function of x, θ(x) = α x + β with
 * α and β free of x: on a uniform grid a thread's points are x_c + k s, so
 * their θ are θ(x_c) + k α s, and sin and cos there follow from one sincos
 * at x_c and a table of sincos(k α s) by the angle-addition formulas, exp
 * from one exp and a table of exp(k α s) by exp(a + b) = exp a exp b (the GPU
 * grid's rotation: kernels/engine/grid_rot_source.cuh; emit_cuda.c writes
 * the functions it calls).  This file finds the terms; it decides nothing
 * about accuracy (the kernel does). */
#include "expr_internal.h"

#include <string.h>

/* Whether node i reads x (a variable below param_base). */
int gq_expr_trig_reads_x(const gq_expr *e, int i, int param_base)
{
  const gq_node *n = &e->nodes[i];
  if (n->is_const) return 0;
  if (n->op == GQ_OP_VAR) return n->var < param_base;
  for (int k = 0; k < 3; k++)
    if (n->kid[k] >= 0 && gq_expr_trig_reads_x(e, n->kid[k], param_base)) return 1;
  return 0;
}

/* Whether node i is α x + β with α and β free of x, built from x, x-free
 * subtrees, negation, + and -, a product with an x-free factor and a
 * quotient by an x-free divisor (emit_cuda.c's emit_slope follows the same
 * cases).  Recursion is bounded by GQ_EXPR_MAX_DEPTH. */
static int affine(const gq_expr *e, int i, int param_base)
{
  const gq_node *n = &e->nodes[i];
  if (!gq_expr_trig_reads_x(e, i, param_base)) return 1;
  switch (n->op) {
  case GQ_OP_VAR:
    return n->var == 0;
  case GQ_OP_NEG:
    return affine(e, n->kid[0], param_base);
  case GQ_OP_ADD:
  case GQ_OP_SUB:
    return affine(e, n->kid[0], param_base) && affine(e, n->kid[1], param_base);
  case GQ_OP_MUL:
    if (!gq_expr_trig_reads_x(e, n->kid[0], param_base)) return affine(e, n->kid[1], param_base);
    if (!gq_expr_trig_reads_x(e, n->kid[1], param_base)) return affine(e, n->kid[0], param_base);
    return 0;
  case GQ_OP_DIV:
    return !gq_expr_trig_reads_x(e, n->kid[1], param_base) && affine(e, n->kid[0], param_base);
  default:
    return 0;
  }
}

/* Whether subtrees i and j compute the same thing the same way. */
static int same_tree(const gq_expr *e, int i, int j)
{
  const gq_node *a = &e->nodes[i], *b = &e->nodes[j];
  if (i == j) return 1;
  if (a->is_const || b->is_const)
    return a->is_const && b->is_const && memcmp(&a->cval, &b->cval, sizeof a->cval) == 0;
  if (a->op != b->op) return 0;
  if (a->op == GQ_OP_VAR) return a->var == b->var;
  for (int k = 0; k < 3; k++) {
    if ((a->kid[k] < 0) != (b->kid[k] < 0)) return 0;
    if (a->kid[k] >= 0 && !same_tree(e, a->kid[k], b->kid[k])) return 0;
  }
  return 1;
}

/* A node's family: sin and cos of one argument share a term (one sincos),
 * exp has its own; -1 for any other node. */
static int family(const gq_node *n)
{
  if (n->is_const) return -1;
  return n->op == GQ_OP_SIN || n->op == GQ_OP_COS ? GQ_TRIG_SINCOS : n->op == GQ_OP_EXP ? GQ_TRIG_EXP : -1;
}

int gq_expr_trig_term_of(const gq_expr *e, const gq_trig_terms *t, int node)
{
  const gq_node *n = &e->nodes[node];
  const int fam = family(n);
  if (fam < 0) return -1;
  for (int j = 0; j < t->count; j++)
    if (t->family[j] == fam && same_tree(e, t->arg[j], n->kid[0])) return j;
  return -1;
}

static void collect(const gq_expr *e, int i, int param_base, gq_trig_terms *t)
{
  const gq_node *n = &e->nodes[i];
  if (n->is_const) return;
  const int fam = family(n);
  if (fam >= 0 && gq_expr_trig_reads_x(e, n->kid[0], param_base) && affine(e, n->kid[0], param_base)) {
    int j = gq_expr_trig_term_of(e, t, i);
    if (j < 0 && t->count < GQ_EXPR_MAX_TRIG) {
      j = t->count++;
      t->arg[j] = n->kid[0];
      t->family[j] = fam;
      t->uses[j] = 0;
    }
    if (j >= 0) t->uses[j] |= n->op == GQ_OP_SIN ? 1u : n->op == GQ_OP_COS ? 2u : 4u;
    return; /* an argument holds no further term: it is affine */
  }
  for (int k = 0; k < 3; k++)
    if (n->kid[k] >= 0) collect(e, n->kid[k], param_base, t);
}

int gq_expr_trig_find(const gq_expr *e, int param_base, gq_trig_terms *t)
{
  memset(t, 0, sizeof *t);
  if (!e) return 0;
  /* one variable only: a term's grid must be the only axis */
  for (int i = 0; i < e->nnodes; i++)
    if (e->nodes[i].op == GQ_OP_VAR && e->nodes[i].var < param_base && e->nodes[i].var != 0) return 0;
  collect(e, e->root, param_base, t);
  return t->count;
}
