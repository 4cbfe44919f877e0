/* eval.c — the scalar evaluator (AST walk) and the block evaluator
 * (bytecode over tiles), the latter instantiated for double and float from
 * eval_block.h. */
#include "expr_internal.h"

#include <math.h>
#include <stddef.h>

/* Recursion depth is bounded by GQ_EXPR_MAX_DEPTH.  Only the branch that
 * if() picks is evaluated. */
static double eval_node(const gq_expr *e, int i, const double *vars)
{
  const gq_node *n = &e->nodes[i];
  int k;
  if (n->is_const) return n->cval;
  switch (n->op) {
  case GQ_OP_VAR:
    return vars[n->var];
  case GQ_OP_IF:
    return eval_node(e, eval_node(e, n->kid[0], vars) != 0 ? n->kid[1]
                                                           : n->kid[2],
                     vars);
  case GQ_OP_CARET:
    if (gq_expr_node_powi(e, n, &k))
      return gq_expr_powi(eval_node(e, n->kid[0], vars), k);
    break;
  default:
    break;
  }
  double a = eval_node(e, n->kid[0], vars);
  double b = n->kid[1] >= 0 ? eval_node(e, n->kid[1], vars) : 0.0;
  return gq_expr_apply(n->op, a, b);
}

/* NaN for a missing expression, or missing variables that it reads. */
double gq_expr_eval(const gq_expr *e, const double *vars)
{
  if (!e || (!vars && e->dims_used > 0)) return NAN;
  return eval_node(e, e->root, vars);
}

double gq_expr_eval_gsl(double x, void *params)
{
  const gq_expr *e = params;
  if (!e || e->dims_used > 1) return NAN;
  return eval_node(e, e->root, &x);
}

#define GQ_BLOCK_REAL double
#define GQ_BLOCK_NAME gq_expr_eval_block
#define GQ_BLOCK_PICK(fd, ff) fd
#include "eval_block.h"

#define GQ_BLOCK_REAL float
#define GQ_BLOCK_NAME gq_expr_eval_block_f
#define GQ_BLOCK_PICK(fd, ff) ff
#define GQ_BLOCK_FLOAT 1
#include "eval_block.h"
