/* emit_cuda.c — CUDA C++ source for an expression, for NVRTC.
 *
 * The function body is static single assignment: one const temporary per
 * operation, so shared structure costs nothing and the text grows linearly
 * with the tree.  Everything printed comes from the AST: operators and
 * function names from the whitelist in expr_internal.h, numbers re-printed
 * with 17 (double) or 9 (float) significant digits, which read back exactly,
 * and parameters replaced by their values, or, for an expression parsed
 * with symbolic parameters, read from the module's gq_params array.  No byte of user text
 * reaches the compiler.  if() becomes a real branch so that only the chosen
 * side is computed, as in the scalar evaluator. */
#include "expr_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../gpuquad.h"

typedef struct {
  gq_strbuf sb;
  const gq_expr *e;
  int use_float;
  int ntemps;
  int indent;
  int param_base; /* variables from here on are parameters: gq_params[] */
  const gq_trig_terms *trig; /* non-NULL: sin, cos and exp of term j read sc[] */
} emitter;

/* A value: a temporary, an input x[i], a constant, or sc[i] (a rotated
 * sine, cosine or exponential: gq_expr_emit_cuda_trig). */
enum { ARG_SC = GQ_ARG_CONST + 1 };
typedef struct {
  int kind;  /* GQ_ARG_REG (temporary), GQ_ARG_VAR, GQ_ARG_CONST, ARG_SC */
  int index;
  double k;
} value;

static const char *const cuda_fn_double[GQ_OP_COUNT] = {
#define X(id, name, fd, ff) [GQ_OP_##id] = #fd,
  GQ_EXPR_FUNCS1(X) GQ_EXPR_FUNCS2(X)
#undef X
};
static const char *const cuda_fn_float[GQ_OP_COUNT] = {
#define X(id, name, fd, ff) [GQ_OP_##id] = #ff,
  GQ_EXPR_FUNCS1(X) GQ_EXPR_FUNCS2(X)
#undef X
};

static const char *real_type(const emitter *m)
{
  return m->use_float ? "float" : "double";
}

static void put_literal(emitter *m, double v)
{
  char buf[48];
  if (m->use_float) {
    float f = (float)v;
    if (isnan(f))
      gq_sb_puts(&m->sb, "__int_as_float(0x7fc00000)");
    else if (isinf(f))
      gq_sb_puts(&m->sb, f > 0 ? "__int_as_float(0x7f800000)"
                              : "__int_as_float((int)0xff800000u)");
    else {
      snprintf(buf, sizeof buf, "%.9g", (double)f);
      gq_sb_printf(&m->sb, "%s%s%s%s", f < 0 ? "(" : "", buf,
                   strpbrk(buf, ".e") ? "f" : ".0f", f < 0 ? ")" : "");
    }
    return;
  }
  if (isnan(v))
    gq_sb_puts(&m->sb, "__longlong_as_double(0x7ff8000000000000LL)");
  else if (isinf(v))
    gq_sb_puts(&m->sb, v > 0 ? "__longlong_as_double(0x7ff0000000000000LL)"
                             : "__longlong_as_double((long long)0xfff0000000000000ULL)");
  else {
    snprintf(buf, sizeof buf, "%.17g", v);
    gq_sb_printf(&m->sb, "%s%s%s%s", v < 0 ? "(" : "", buf,
                 strpbrk(buf, ".e") ? "" : ".0", v < 0 ? ")" : "");
  }
}

static void put_value(emitter *m, value v)
{
  if (v.kind == GQ_ARG_REG)
    gq_sb_printf(&m->sb, "t%d", v.index);
  else if (v.kind == ARG_SC)
    gq_sb_printf(&m->sb, "sc[%d]", v.index);
  else if (v.kind == GQ_ARG_VAR && v.index >= m->param_base)
    gq_sb_printf(&m->sb, m->use_float ? "((float)gq_params[%d])" : "gq_params[%d]", v.index - m->param_base);
  else if (v.kind == GQ_ARG_VAR)
    gq_sb_printf(&m->sb, "x[%d]", v.index);
  else
    put_literal(m, v.k);
}

static void put_indent(emitter *m)
{
  for (int i = 0; i < m->indent; i++) gq_sb_puts(&m->sb, "  ");
}

/* Starts "const T tN = " and returns the new temporary. */
static value begin_temp(emitter *m)
{
  value t = {GQ_ARG_REG, m->ntemps++, 0.0};
  put_indent(m);
  gq_sb_printf(&m->sb, "const %s t%d = ", real_type(m), t.index);
  return t;
}

static const char *const binop_text[GQ_OP_COUNT] = {
  [GQ_OP_ADD] = "+", [GQ_OP_SUB] = "-", [GQ_OP_MUL] = "*", [GQ_OP_DIV] = "/",
  [GQ_OP_LT] = "<", [GQ_OP_LE] = "<=", [GQ_OP_GT] = ">", [GQ_OP_GE] = ">=",
  [GQ_OP_EQ] = "==", [GQ_OP_NE] = "!=",
};

/* An operation on constants only is computed here, in double, exactly as
 * the block compiler (compile.c) folds it, so that GPU and CPU see the same
 * constant in either precision. */
static int fold(value a, value b, int op, value *out)
{
  if (a.kind != GQ_ARG_CONST || b.kind != GQ_ARG_CONST) return 0;
  *out = (value){GQ_ARG_CONST, 0, gq_expr_apply(op, a.k, b.k)};
  return 1;
}

static value emit_binary(emitter *m, int op, value a, value b)
{
  value t;
  if (fold(a, b, op, &t)) return t;
  t = begin_temp(m);
  put_value(m, a);
  gq_sb_printf(&m->sb, " %s ", binop_text[op]);
  put_value(m, b);
  gq_sb_puts(&m->sb, ";\n");
  return t;
}

/* Same multiplication order as gq_expr_powi. */
static value emit_powi(emitter *m, value base, int k)
{
  value r = base, b = base, one = {GQ_ARG_CONST, 0, 1.0};
  unsigned u = k < 0 ? 0u - (unsigned)k : (unsigned)k;
  int have = 0;
  if (u == 0) return one;
  while (u) {
    if (u & 1u) {
      r = have ? emit_binary(m, GQ_OP_MUL, r, b) : b;
      have = 1;
    }
    u >>= 1;
    if (u) b = emit_binary(m, GQ_OP_MUL, b, b);
  }
  return k < 0 ? emit_binary(m, GQ_OP_DIV, one, r) : r;
}

static value emit_node(emitter *m, int i);

static value emit_neg(emitter *m, value a)
{
  value t;
  if (fold(a, a, GQ_OP_NEG, &t)) return t;
  t = begin_temp(m);
  gq_sb_puts(&m->sb, "-");
  put_value(m, a);
  gq_sb_puts(&m->sb, ";\n");
  return t;
}

/* if(c, a, b): a mutable temporary assigned in each branch. */
static value emit_if(emitter *m, const gq_node *n)
{
  value c = emit_node(m, n->kid[0]), t;
  if (c.kind == GQ_ARG_CONST) return emit_node(m, n->kid[c.k != 0 ? 1 : 2]);
  t = (value){GQ_ARG_REG, m->ntemps++, 0.0};
  put_indent(m);
  gq_sb_printf(&m->sb, "%s t%d;\n", real_type(m), t.index);
  put_indent(m);
  gq_sb_puts(&m->sb, "if (");
  put_value(m, c);
  gq_sb_puts(&m->sb, m->use_float ? " != 0.0f) {\n" : " != 0.0) {\n");
  for (int side = 1; side <= 2; side++) {
    m->indent++;
    value v = emit_node(m, n->kid[side]);
    put_indent(m);
    gq_sb_printf(&m->sb, "t%d = ", t.index);
    put_value(m, v);
    gq_sb_puts(&m->sb, ";\n");
    m->indent--;
    put_indent(m);
    gq_sb_puts(&m->sb, side == 1 ? "} else {\n" : "}\n");
  }
  return t;
}

/* Recursion is bounded by GQ_EXPR_MAX_DEPTH. */
static value emit_node(emitter *m, int i)
{
  const gq_node *n = &m->e->nodes[i];
  value v = {GQ_ARG_CONST, 0, n->cval}, a, b, t;
  int k;
  if (n->is_const) return v;
  if (m->trig && (n->op == GQ_OP_SIN || n->op == GQ_OP_COS || n->op == GQ_OP_EXP) &&
      (k = gq_expr_trig_term_of(m->e, m->trig, i)) >= 0)
    return (value){ARG_SC, 2 * k + (n->op == GQ_OP_COS), 0.0}; /* exp: sc[2k] */
  switch (n->op) {
  case GQ_OP_VAR:
    v.kind = GQ_ARG_VAR;
    v.index = n->var;
    return v;
  case GQ_OP_IF:
    if (m->e->nodes[n->kid[0]].is_const)
      return emit_node(m, m->e->nodes[n->kid[0]].cval != 0 ? n->kid[1]
                                                           : n->kid[2]);
    return emit_if(m, n);
  case GQ_OP_NEG:
    return emit_neg(m, emit_node(m, n->kid[0]));
  default:
    break;
  }
  if (gq_expr_node_powi(m->e, n, &k)) return emit_powi(m, emit_node(m, n->kid[0]), k);
  a = emit_node(m, n->kid[0]);
  if (n->op >= GQ_OP_LT && n->op <= GQ_OP_NE) {
    b = emit_node(m, n->kid[1]);
    if (fold(a, b, n->op, &t)) return t;
    t = begin_temp(m);
    gq_sb_puts(&m->sb, "(");
    put_value(m, a);
    gq_sb_printf(&m->sb, " %s ", binop_text[n->op]);
    put_value(m, b);
    gq_sb_puts(&m->sb, m->use_float ? " ? 1.0f : 0.0f);\n" : " ? 1.0 : 0.0);\n");
    return t;
  }
  if (binop_text[n->op]) return emit_binary(m, n->op, a, emit_node(m, n->kid[1]));
  int two = gq_expr_fn_arity(n->op) == 2 || n->op == GQ_OP_CARET;
  b = two ? emit_node(m, n->kid[1]) : a;
  if (fold(a, b, n->op, &t)) return t;
  t = begin_temp(m);
  if (n->op == GQ_OP_CARET)
    gq_sb_puts(&m->sb, m->use_float ? "powf" : "pow");
  else
    gq_sb_puts(&m->sb, (m->use_float ? cuda_fn_float : cuda_fn_double)[n->op]);
  gq_sb_puts(&m->sb, "(");
  put_value(m, a);
  if (two) {
    gq_sb_puts(&m->sb, ", ");
    put_value(m, b);
  }
  gq_sb_puts(&m->sb, ");\n");
  return t;
}

static int is_c_identifier(const char *s)
{
  size_t i = 0;
  if (!s) return 0;
  for (; s[i]; i++) {
    int c = (unsigned char)s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
    if (i >= 64) return 0;
  }
  return i > 0;
}

static int emit(const gq_expr *e, const char *fname, int use_float, int param_base, char **out_src)
{
  emitter m;
  value r;
  if (!out_src) return GQ_EINVAL;
  *out_src = NULL;
  if (!e || !is_c_identifier(fname)) return GQ_EINVAL;
  memset(&m, 0, sizeof m);
  m.e = e;
  m.use_float = use_float != 0;
  m.indent = 1;
  m.param_base = param_base;
  gq_sb_printf(&m.sb, "__device__ __forceinline__ %s %s(const %s *x)\n{\n",
               real_type(&m), fname, real_type(&m));
  gq_sb_puts(&m.sb, "  (void)x;  /* a folded expression may not read x */\n");
  r = emit_node(&m, e->root);
  gq_sb_puts(&m.sb, "  return ");
  put_value(&m, r);
  gq_sb_puts(&m.sb, ";\n}\n");
  return gq_sb_finish(&m.sb, out_src);
}

int gq_expr_emit_cuda(const gq_expr *e, const char *fname, int use_float, char **out_src)
{
  return emit(e, fname, use_float, GQ_EXPR_MAX_DIMS + GQ_EXPR_MAX_PARAMS, out_src);
}

int gq_expr_emit_cuda_params(const gq_expr *e, const char *fname, int use_float, char **out_src)
{
  if (!e || e->nparams == 0) {
    if (out_src) *out_src = NULL;
    return GQ_EINVAL;
  }
  return emit(e, fname, use_float, e->param_base, out_src);
}

/* The coefficient of x in the affine subtree i (trig.c's cases), computed
 * from x-free values only: d(a b)/dx with a free of x is a * db/dx, and so
 * on.  Constants fold as everywhere else. */
static value emit_slope(emitter *m, int i)
{
  const gq_node *n = &m->e->nodes[i];
  const value zero = {GQ_ARG_CONST, 0, 0.0}, one = {GQ_ARG_CONST, 0, 1.0};
  if (!gq_expr_trig_reads_x(m->e, i, m->param_base)) return zero;
  switch (n->op) {
  case GQ_OP_VAR:
    return one;
  case GQ_OP_NEG:
    return emit_neg(m, emit_slope(m, n->kid[0]));
  case GQ_OP_ADD:
  case GQ_OP_SUB: {
    const value a = emit_slope(m, n->kid[0]);
    return emit_binary(m, n->op, a, emit_slope(m, n->kid[1]));
  }
  case GQ_OP_MUL:
    if (!gq_expr_trig_reads_x(m->e, n->kid[0], m->param_base)) {
      const value a = emit_node(m, n->kid[0]);
      return emit_binary(m, GQ_OP_MUL, a, emit_slope(m, n->kid[1]));
    } else {
      const value a = emit_slope(m, n->kid[0]);
      return emit_binary(m, GQ_OP_MUL, a, emit_node(m, n->kid[1]));
    }
  default: { /* GQ_OP_DIV: trig.c admits no other operation */
    const value a = emit_slope(m, n->kid[0]);
    return emit_binary(m, GQ_OP_DIV, a, emit_node(m, n->kid[1]));
  }
  }
}

static int trig_param_base(const gq_expr *e, int symbolic)
{
  return symbolic ? e->param_base : GQ_EXPR_MAX_DIMS + GQ_EXPR_MAX_PARAMS;
}

int gq_expr_trig_count(const gq_expr *e, int symbolic)
{
  gq_trig_terms t;
  if (!e || (symbolic && e->nparams == 0)) return 0;
  return gq_expr_trig_find(e, trig_param_base(e, symbolic), &t);
}

int gq_expr_emit_cuda_trig(const gq_expr *e, int symbolic, char **out_src)
{
  emitter m;
  gq_trig_terms t;
  unsigned sin_mask = 0, cos_mask = 0, exp_mask = 0;
  value r;
  if (!out_src) return GQ_EINVAL;
  *out_src = NULL;
  if (gq_expr_trig_count(e, symbolic) == 0) return GQ_SUCCESS;
  memset(&m, 0, sizeof m);
  m.e = e;
  m.param_base = trig_param_base(e, symbolic);
  gq_expr_trig_find(e, m.param_base, &t);
  for (int j = 0; j < t.count; j++) {
    if (t.uses[j] & 1u) sin_mask |= 1u << j;
    if (t.uses[j] & 2u) cos_mask |= 1u << j;
    if (t.family[j] == GQ_TRIG_EXP) exp_mask |= 1u << j;
  }
  m.indent = 2;
  gq_sb_printf(&m.sb, "struct Trig {\n  static constexpr int TERMS = %d;\n"
               "  static constexpr unsigned SIN = %uu, COS = %uu, EXP = %uu;\n", t.count, sin_mask, cos_mask,
               exp_mask);
  gq_sb_puts(&m.sb, "  static __device__ __forceinline__ void args(const double *x, double *theta)\n  {\n");
  for (int j = 0; j < t.count; j++) {
    r = emit_node(&m, t.arg[j]);
    put_indent(&m);
    gq_sb_printf(&m.sb, "theta[%d] = ", j);
    put_value(&m, r);
    gq_sb_puts(&m.sb, ";\n");
  }
  gq_sb_puts(&m.sb, "  }\n  static __device__ __forceinline__ void slopes(double *alpha)\n  {\n");
  for (int j = 0; j < t.count; j++) {
    r = emit_slope(&m, t.arg[j]);
    put_indent(&m);
    gq_sb_printf(&m.sb, "alpha[%d] = ", j);
    put_value(&m, r);
    gq_sb_puts(&m.sb, ";\n");
  }
  gq_sb_puts(&m.sb, "  }\n  static __device__ __forceinline__ double g(const double *x, const double *sc)\n  {\n"
                    "    (void)x;\n    (void)sc;\n");
  m.trig = &t;
  r = emit_node(&m, e->root);
  gq_sb_puts(&m.sb, "    return ");
  put_value(&m, r);
  gq_sb_puts(&m.sb, ";\n  }\n};\n");
  return gq_sb_finish(&m.sb, out_src);
}

int gq_expr_param_values(const gq_expr *e, const double **values)
{
  *values = e ? e->params : NULL;
  return e ? e->nparams : 0;
}
