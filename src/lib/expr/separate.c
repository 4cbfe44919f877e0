/* separate.c — an expression as a sum of products of one-variable factors,
 * so that its integral over a box is sums of products of 1-D integrals.
 *
 * A walk from the root gives each subtree a "form": terms coef * prod_k
 * factor_k(x_{k+1}), each factor a node (of the expression, or one added
 * here) that reads only x_{k+1}.  A subtree that reads at most one variable
 * is its own form (sin(x1)^2 is one factor, never taken apart); above that,
 *   a + b, a - b, -a    the terms of both, signs on the coefficients;
 *   a * b               every term of a times every term of b (distributed);
 *   a / b               b a single term: each factor divided by b's;
 *   a ^ n               n a constant integer (|n| <= 64): a single term
 *                       factor by factor, a sum (0 < n <= 8) multiplied out;
 *   exp(a)              a a sum of one-variable terms: exp(s1 + s2 + ...)
 *                       = exp(s1) * exp(s2) * ... (exp(-x1^2 - x2^2));
 * and anything else that reads two variables does not separate.  The
 * number of terms is capped (GQ_EXPR_MAX_TERMS), so a product of sums
 * cannot blow up.  Each factor is returned as the canonical text of an
 * expression in x (the same function of x_{k+1}), which reads back through
 * gq_integrand_parse like anything a user writes. */
#include "expr_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

enum { MAX_EXPANDED_POWER = 8 };

typedef struct {
  double coef;
  int node[GQ_EXPR_MAX_DIMS]; /* -1: the factor 1 */
} raw_term;

typedef struct {
  int count;
  raw_term t[GQ_EXPR_MAX_TERMS];
} form;

/* The expression's nodes and those added here (products, quotients, powers
 * and exponentials of factors; a node added refers to earlier ones). */
typedef struct {
  gq_node *nodes;
  int nnodes, cap;
  unsigned *vars; /* per node of the expression: the variables it reads, bit k for x_{k+1} */
} arena;

static int popcount(unsigned v)
{
  int c = 0;
  for (; v; v &= v - 1)
    c++;
  return c;
}

static unsigned vars_of(const gq_expr *e, unsigned *vars, unsigned char *done, int i)
{
  if (done[i])
    return vars[i];
  const gq_node *n = &e->nodes[i];
  unsigned v = n->op == GQ_OP_VAR && !n->is_const ? 1u << n->var : 0u;
  for (int k = 0; k < 3 && !n->is_const; k++)
    if (n->kid[k] >= 0)
      v |= vars_of(e, vars, done, n->kid[k]);
  done[i] = 1;
  return vars[i] = v;
}

/* A new node: op over kids (-1: none), or the constant value; -1 out of memory. */
static int add_node(arena *A, int op, int k0, int k1, double value)
{
  if (A->nnodes == A->cap) {
    const int cap = 2 * A->cap;
    gq_node *nodes = realloc(A->nodes, (size_t)cap * sizeof *nodes);
    if (!nodes)
      return -1;
    A->nodes = nodes;
    A->cap = cap;
  }
  gq_node n;
  memset(&n, 0, sizeof n);
  n.op = (unsigned char)op;
  n.kid[0] = k0;
  n.kid[1] = k1;
  n.kid[2] = -1;
  n.depth = 1;
  for (int k = 0; k < 2; k++)
    if (n.kid[k] >= 0 && A->nodes[n.kid[k]].depth + 1 > n.depth)
      n.depth = A->nodes[n.kid[k]].depth + 1;
  if (op == GQ_OP_NUM) {
    n.numkind = GQ_NUM_LITERAL;
    n.is_const = 1;
    n.cval = value;
  }
  A->nodes[A->nnodes] = n;
  return A->nnodes++;
}

/* a op b for two factors of one variable, -1 standing for the factor 1. */
static int combine(arena *A, int op, int a, int b)
{
  if (b < 0)
    return a;
  if (a < 0 && op == GQ_OP_MUL)
    return b;
  if (a < 0 && (a = add_node(A, GQ_OP_NUM, -1, -1, 1.0)) < 0)
    return -2;
  const int n = add_node(A, op, a, b, 0.0);
  return n < 0 ? -2 : n;
}

/* Every term of a times (op GQ_OP_MUL) or over (GQ_OP_DIV, b one term)
 * every term of b, into out. */
static int multiply(arena *A, const form *a, const form *b, int op, form *out)
{
  if (a->count * b->count > GQ_EXPR_MAX_TERMS)
    return GQ_EDOM;
  out->count = 0;
  for (int i = 0; i < a->count; i++)
    for (int j = 0; j < b->count; j++) {
      raw_term *t = &out->t[out->count++];
      t->coef = op == GQ_OP_MUL ? a->t[i].coef * b->t[j].coef : a->t[i].coef / b->t[j].coef;
      for (int k = 0; k < GQ_EXPR_MAX_DIMS; k++)
        if ((t->node[k] = combine(A, op, a->t[i].node[k], b->t[j].node[k])) == -2)
          return GQ_ENOMEM;
    }
  return GQ_SUCCESS;
}

static void single(form *f, double coef, int var, int node)
{
  f->count = 1;
  f->t[0].coef = coef;
  for (int k = 0; k < GQ_EXPR_MAX_DIMS; k++)
    f->t[0].node[k] = k == var ? node : -1;
}

/* exp of a sum of one-variable terms: exp(c) times, per variable k,
 * exp(sum of its terms coef * factor). */
static int exponential(arena *A, const form *a, form *out)
{
  double constant = 0.0;
  int sum[GQ_EXPR_MAX_DIMS];
  for (int k = 0; k < GQ_EXPR_MAX_DIMS; k++)
    sum[k] = -1;
  for (int i = 0; i < a->count; i++) {
    int var = -1;
    for (int k = 0; k < GQ_EXPR_MAX_DIMS; k++)
      if (a->t[i].node[k] >= 0) {
        if (var >= 0)
          return GQ_EDOM; /* exp(x1 * x2) */
        var = k;
      }
    const double c = a->t[i].coef;
    if (var < 0) {
      constant += c;
      continue;
    }
    int term = a->t[i].node[var];
    if (c == -1.0)
      term = add_node(A, GQ_OP_NEG, term, -1, 0.0);
    else if (c != 1.0) {
      const int k = add_node(A, GQ_OP_NUM, -1, -1, c);
      term = k < 0 ? -1 : add_node(A, GQ_OP_MUL, k, term, 0.0);
    }
    if (term < 0 || (sum[var] >= 0 && (term = add_node(A, GQ_OP_ADD, sum[var], term, 0.0)) < 0))
      return GQ_ENOMEM;
    sum[var] = term;
  }
  out->count = 1;
  out->t[0].coef = exp(constant);
  for (int k = 0; k < GQ_EXPR_MAX_DIMS; k++)
    if ((out->t[0].node[k] = sum[k] < 0 ? -1 : add_node(A, GQ_OP_EXP, sum[k], -1, 0.0)) == -1 && sum[k] >= 0)
      return GQ_ENOMEM;
  return GQ_SUCCESS;
}

static int walk(const gq_expr *e, arena *A, int i, form *out);

/* The forms of node i's first two kids, in a and b (b may be NULL). */
static int kids(const gq_expr *e, arena *A, int i, form **a, form **b)
{
  *a = malloc(sizeof **a);
  if (b)
    *b = malloc(sizeof **b);
  if (!*a || (b && !*b))
    return GQ_ENOMEM;
  int status = walk(e, A, e->nodes[i].kid[0], *a);
  if (status == GQ_SUCCESS && b)
    status = walk(e, A, e->nodes[i].kid[1], *b);
  return status;
}

static int walk(const gq_expr *e, arena *A, int i, form *out)
{
  const gq_node *n = &e->nodes[i];
  if (n->is_const) {
    single(out, n->cval, -1, -1);
    return GQ_SUCCESS;
  }
  const unsigned vars = A->vars[i];
  if (popcount(vars) == 1) {
    int var = 0;
    while (!(vars >> var & 1u))
      var++;
    single(out, 1.0, var, i);
    return GQ_SUCCESS;
  }
  form *a = NULL, *b = NULL;
  int status = GQ_EDOM, power;
  switch (n->op) {
  case GQ_OP_ADD:
  case GQ_OP_SUB:
    if ((status = kids(e, A, i, &a, &b)) != GQ_SUCCESS)
      break;
    if (a->count + b->count > GQ_EXPR_MAX_TERMS) {
      status = GQ_EDOM;
      break;
    }
    *out = *a;
    for (int j = 0; j < b->count; j++) {
      out->t[out->count] = b->t[j];
      out->t[out->count++].coef *= n->op == GQ_OP_SUB ? -1.0 : 1.0;
    }
    break;
  case GQ_OP_NEG:
    if ((status = kids(e, A, i, &a, NULL)) != GQ_SUCCESS)
      break;
    *out = *a;
    for (int j = 0; j < out->count; j++)
      out->t[j].coef = -out->t[j].coef;
    break;
  case GQ_OP_MUL:
    if ((status = kids(e, A, i, &a, &b)) == GQ_SUCCESS)
      status = multiply(A, a, b, GQ_OP_MUL, out);
    break;
  case GQ_OP_DIV:
    if ((status = kids(e, A, i, &a, &b)) == GQ_SUCCESS)
      status = b->count == 1 ? multiply(A, a, b, GQ_OP_DIV, out) : GQ_EDOM;
    break;
  case GQ_OP_CARET:
    if (!gq_expr_node_powi(e, n, &power) || (status = kids(e, A, i, &a, &b)) != GQ_SUCCESS)
      break;
    if (a->count == 1) {
      /* factor by factor: (c g h)^n = c^n g^n h^n */
      *out = *a;
      out->t[0].coef = gq_expr_powi(a->t[0].coef, power);
      const int exponent = add_node(A, GQ_OP_NUM, -1, -1, power);
      for (int k = 0; k < GQ_EXPR_MAX_DIMS && exponent >= 0; k++)
        if (out->t[0].node[k] >= 0 &&
            (out->t[0].node[k] = add_node(A, GQ_OP_CARET, out->t[0].node[k], exponent, 0.0)) < 0)
          status = GQ_ENOMEM;
      if (exponent < 0)
        status = GQ_ENOMEM;
      break;
    }
    status = power > 0 && power <= MAX_EXPANDED_POWER ? GQ_SUCCESS : GQ_EDOM;
    *out = *a;
    for (int p = 1; p < power && status == GQ_SUCCESS; p++) {
      *b = *out;
      status = multiply(A, b, a, GQ_OP_MUL, out);
    }
    break;
  case GQ_OP_EXP:
    if ((status = kids(e, A, i, &a, NULL)) == GQ_SUCCESS)
      status = exponential(A, a, out);
    break;
  default:
    break;
  }
  free(a);
  free(b);
  return status;
}

/* Factor node r (of the arena copy g, whose variables all read x) as text;
 * GQ_EDOM where it would break the limits of an expression. */
static int factor_text(gq_expr *g, int r, char **text)
{
  size_t length;
  int nesting;
  g->root = r;
  if (g->nodes[r].depth > GQ_EXPR_MAX_DEPTH)
    return GQ_EDOM;
  gq_expr_measure_text(g, &length, &nesting);
  if (length > GQ_EXPR_MAX_LEN || nesting > GQ_EXPR_MAX_NEST)
    return GQ_EDOM;
  return gq_expr_to_string(g, text);
}

void gq_expr_terms_free(gq_expr_term *terms, int count)
{
  for (int i = 0; terms && i < count; i++)
    for (int k = 0; k < GQ_EXPR_MAX_DIMS; k++)
      free(terms[i].factor[k]);
  free(terms);
}

int gq_expr_separate(const gq_expr *e, gq_expr_term **terms, int *count)
{
  if (!terms || !count)
    return GQ_EINVAL;
  *terms = NULL;
  *count = 0;
  if (!e)
    return GQ_EINVAL;
  arena A = {NULL, e->nnodes, 2 * e->nnodes + 64, NULL};
  A.nodes = malloc((size_t)A.cap * sizeof *A.nodes);
  A.vars = malloc((size_t)e->nnodes * sizeof *A.vars);
  unsigned char *done = calloc((size_t)e->nnodes, 1);
  form *f = malloc(sizeof *f);
  int status = A.nodes && A.vars && done && f ? GQ_SUCCESS : GQ_ENOMEM;
  if (status == GQ_SUCCESS) {
    memcpy(A.nodes, e->nodes, (size_t)e->nnodes * sizeof *A.nodes);
    vars_of(e, A.vars, done, e->root);
    status = walk(e, &A, e->root, f);
  }
  for (int i = 0; status == GQ_SUCCESS && i < f->count; i++)
    if (!isfinite(f->t[i].coef))
      status = GQ_EDOM; /* f is not finite anywhere: no product of integrals */
  gq_expr g = {A.nodes, A.nnodes, -1, 1, NULL, 0, 0, 0, 0, {0}, 0};
  gq_expr_term *out = NULL;
  if (status == GQ_SUCCESS) {
    for (int i = 0; i < A.nnodes; i++) /* each factor reads one variable: call it x */
      if (A.nodes[i].op == GQ_OP_VAR)
        A.nodes[i].var = 0;
    out = calloc((size_t)f->count, sizeof *out);
    status = out ? GQ_SUCCESS : GQ_ENOMEM;
  }
  for (int i = 0; status == GQ_SUCCESS && i < f->count; i++) {
    out[i].coef = f->t[i].coef;
    for (int k = 0; k < GQ_EXPR_MAX_DIMS && status == GQ_SUCCESS; k++)
      if (f->t[i].node[k] >= 0)
        status = factor_text(&g, f->t[i].node[k], &out[i].factor[k]);
  }
  if (status == GQ_SUCCESS) {
    *terms = out;
    *count = f->count;
  } else {
    gq_expr_terms_free(out, out ? f->count : 0);
  }
  free(A.nodes);
  free(A.vars);
  free(done);
  free(f);
  return status;
}
