/* compile.c — scalar semantics of every operation, the AST -> bytecode
 * compiler for the block evaluator, and the AST lifetime.
 *
 * Bytecode is three-address code over registers of GQ_EXPR_TILE values.
 * Constant subtrees arrive already folded (parse.c), so they become
 * immediate operands; variables are read in place.  Registers are handed
 * out lowest-free-first and released as soon as their last reader is
 * emitted, so the register count is the tree's Sethi-Ullman-like live set,
 * usually 2-4, and the working set stays in L1. */
#include "expr_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

double gq_expr_apply(int op, double a, double b)
{
  switch (op) {
  case GQ_OP_NEG: return -a;
  case GQ_OP_ADD: return a + b;
  case GQ_OP_SUB: return a - b;
  case GQ_OP_MUL: return a * b;
  case GQ_OP_DIV: return a / b;
  case GQ_OP_CARET: return pow(a, b);
  case GQ_OP_LT: return a < b ? 1.0 : 0.0;
  case GQ_OP_LE: return a <= b ? 1.0 : 0.0;
  case GQ_OP_GT: return a > b ? 1.0 : 0.0;
  case GQ_OP_GE: return a >= b ? 1.0 : 0.0;
  case GQ_OP_EQ: return a == b ? 1.0 : 0.0;
  case GQ_OP_NE: return a != b ? 1.0 : 0.0;
#define X(id, name, fd, ff) case GQ_OP_##id: return fd(a);
  GQ_EXPR_FUNCS1(X)
#undef X
#define X(id, name, fd, ff) case GQ_OP_##id: return fd(a, b);
  GQ_EXPR_FUNCS2(X)
#undef X
  default: return NAN;
  }
}

int gq_expr_node_powi(const gq_expr *e, const gq_node *n, int *exponent)
{
  const gq_node *x;
  if (n->op != GQ_OP_CARET) return 0;
  x = &e->nodes[n->kid[1]];
  if (!x->is_const || !(fabs(x->cval) <= GQ_EXPR_POWI_MAX) ||
      x->cval != floor(x->cval))
    return 0;
  *exponent = (int)x->cval;
  return 1;
}

void gq_expr_free(gq_expr *e)
{
  if (!e) return;
  free(e->nodes);
  free(e->code);
  free(e);
}

int gq_expr_dims_used(const gq_expr *e) { return e ? e->dims_used : 0; }

size_t gq_expr_block_scratch(const gq_expr *e)
{
  /* Registers, then (float variant) the inputs rounded to float. */
  return e ? (size_t)(e->nregs + e->dims_used) * GQ_EXPR_TILE : 0;
}

/* ---- compiler -------------------------------------------------------- */

typedef struct {
  gq_expr *e;
  int cap;
  unsigned char busy[GQ_EXPR_MAX_DEPTH * 2 + 64];  /* register in use */
  int failed;
} compiler;

static gq_arg arg_const(double k)
{
  gq_arg a = {GQ_ARG_CONST, 0, k};
  return a;
}

static int reg_alloc(compiler *c)
{
  int r = 0;
  while (r < (int)sizeof c->busy && c->busy[r]) r++;
  if (r == (int)sizeof c->busy) {  /* cannot happen within the depth limit */
    c->failed = 1;
    return 0;
  }
  c->busy[r] = 1;
  if (r + 1 > c->e->nregs) c->e->nregs = r + 1;
  return r;
}

static void reg_release(compiler *c, gq_arg a)
{
  if (a.kind == GQ_ARG_REG) c->busy[a.index] = 0;
}

static int same_reg(gq_arg a, gq_arg b)
{
  return a.kind == GQ_ARG_REG && b.kind == GQ_ARG_REG && a.index == b.index;
}

/* Emit op into a fresh register; operands are released first when release
 * is set, so the result may reuse one (element-wise ops are safe in place). */
static gq_arg emit_op(compiler *c, int op, gq_arg a0, gq_arg a1, gq_arg a2,
                      int release)
{
  gq_expr *e = c->e;
  gq_arg dst = {GQ_ARG_REG, 0, 0.0};
  if (c->failed) return arg_const(NAN);
  if (e->ncode == c->cap) {
    /* most nodes make one instruction at most; an integer power more */
    int cap = c->cap ? 2 * c->cap : e->nnodes + 1;
    gq_insn *code = realloc(e->code, (size_t)cap * sizeof *code);
    if (!code) {
      c->failed = 1;
      return arg_const(NAN);
    }
    e->code = code;
    c->cap = cap;
  }
  if (release) {
    reg_release(c, a0);
    reg_release(c, a1);
    reg_release(c, a2);
  }
  dst.index = reg_alloc(c);
  gq_insn *in = &e->code[e->ncode++];
  in->op = op;
  in->dst = dst.index;
  in->a[0] = a0;
  in->a[1] = a1;
  in->a[2] = a2;
  return dst;
}

static const gq_arg no_arg = {GQ_ARG_NONE, 0, 0.0};

/* The one gate to emit_op for arithmetic: an operation whose operands are
 * all constants is computed here, in double as the parser folds, and never
 * reaches the evaluator, whose loops read a constant operand only on one
 * side of a binary operation.  Operands may be constant although their node
 * is not (the branch that a constant if() condition picks), and powers of a
 * constant are expanded into products of constants. */
static gq_arg emit_arith(compiler *c, int op, gq_arg a0, gq_arg a1, int release)
{
  if (a0.kind == GQ_ARG_CONST && (a1.kind == GQ_ARG_CONST || a1.kind == GQ_ARG_NONE))
    return arg_const(gq_expr_apply(op, a0.k, a1.k));
  return emit_op(c, op, a0, a1, no_arg, release);
}

/* if() reads all three operands as arrays. */
static gq_arg materialize(compiler *c, gq_arg a)
{
  return a.kind == GQ_ARG_CONST ? emit_op(c, GQ_OP_LOADK, a, no_arg, no_arg, 1)
                                : a;
}

/* Same multiplication order as gq_expr_powi.  Intermediates stay busy until
 * the chain is done because r and b may be the same register. */
static gq_arg emit_powi(compiler *c, gq_arg base, int k)
{
  gq_arg r = no_arg, b = base, made[2 * 8];
  int nmade = 0, have = 0;
  unsigned m = k < 0 ? 0u - (unsigned)k : (unsigned)k;
  if (m == 0) {
    reg_release(c, base);
    return arg_const(1.0);  /* x^0 is 1 for every x, NaN included */
  }
  while (m) {
    if (m & 1u) {
      if (!have) {
        r = b;
        have = 1;
      } else {
        r = emit_arith(c, GQ_OP_MUL, r, b, 0);
        made[nmade++] = r;
      }
    }
    m >>= 1;
    if (m) {
      b = emit_arith(c, GQ_OP_MUL, b, b, 0);
      made[nmade++] = b;
    }
  }
  if (!same_reg(base, r)) reg_release(c, base);
  for (int i = 0; i < nmade; i++)
    if (!same_reg(made[i], r)) reg_release(c, made[i]);
  if (k < 0) r = emit_arith(c, GQ_OP_DIV, arg_const(1.0), r, 1);
  return r;
}

static gq_arg gen(compiler *c, int i)
{
  const gq_expr *e = c->e;
  const gq_node *n = &e->nodes[i];
  gq_arg a[3] = {no_arg, no_arg, no_arg};
  int k;
  if (c->failed) return arg_const(NAN);
  if (n->is_const) return arg_const(n->cval);
  if (n->op == GQ_OP_VAR) {
    gq_arg v = {GQ_ARG_VAR, n->var, 0.0};
    return v;
  }
  if (n->op == GQ_OP_IF && e->nodes[n->kid[0]].is_const)
    return gen(c, e->nodes[n->kid[0]].cval != 0 ? n->kid[1] : n->kid[2]);
  if (gq_expr_node_powi(e, n, &k)) return emit_powi(c, gen(c, n->kid[0]), k);
  int nkids = 0;
  for (; nkids < 3 && n->kid[nkids] >= 0; nkids++) a[nkids] = gen(c, n->kid[nkids]);
  if (n->op != GQ_OP_IF) return emit_arith(c, n->op, a[0], a[1], 1);
  if (a[0].kind == GQ_ARG_CONST) {
    reg_release(c, a[a[0].k != 0 ? 2 : 1]);
    return a[a[0].k != 0 ? 1 : 2];
  }
  for (int j = 0; j < 3; j++) a[j] = materialize(c, a[j]);
  return emit_op(c, n->op, a[0], a[1], a[2], 1);
}

int gq_expr_compile(gq_expr *e)
{
  compiler state, *c = &state;
  gq_arg r;
  memset(c, 0, sizeof *c);
  c->e = e;
  r = gen(c, e->root);
  /* The last instruction computes the root; let it write the output block
   * directly.  A constant or bare variable root needs one instruction. */
  if (r.kind == GQ_ARG_CONST)
    r = emit_op(c, GQ_OP_LOADK, r, no_arg, no_arg, 1);
  else if (r.kind == GQ_ARG_VAR)
    r = emit_op(c, GQ_OP_COPY, r, no_arg, no_arg, 1);
  if (!c->failed) e->code[e->ncode - 1].dst = -1;
  return c->failed ? GQ_ENOMEM : GQ_SUCCESS;
}
