/* expr_internal.h — AST, function table and bytecode shared by the expr
 * sources.  Not installed; callers use expr.h. */
#ifndef GQ_EXPR_INTERNAL_H
#define GQ_EXPR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include "expr.h"

/* The one list of functions.  Every consumer is generated from it, so a
 * function cannot exist in the parser and be missing from the CUDA emitter.
 * X(id, name, C double fn, C float fn); CUDA uses the same C99 names. */
#define GQ_EXPR_FUNCS1(X)                                             \
  X(SIN, "sin", sin, sinf)       X(COS, "cos", cos, cosf)             \
  X(TAN, "tan", tan, tanf)       X(ASIN, "asin", asin, asinf)         \
  X(ACOS, "acos", acos, acosf)   X(ATAN, "atan", atan, atanf)         \
  X(SINH, "sinh", sinh, sinhf)   X(COSH, "cosh", cosh, coshf)         \
  X(TANH, "tanh", tanh, tanhf)   X(ASINH, "asinh", asinh, asinhf)     \
  X(ACOSH, "acosh", acosh, acoshf) X(ATANH, "atanh", atanh, atanhf)   \
  X(EXP, "exp", exp, expf)       X(EXP2, "exp2", exp2, exp2f)         \
  X(EXPM1, "expm1", expm1, expm1f) X(LOG, "log", log, logf)           \
  X(LOG2, "log2", log2, log2f)   X(LOG10, "log10", log10, log10f)     \
  X(LOG1P, "log1p", log1p, log1pf) X(SQRT, "sqrt", sqrt, sqrtf)       \
  X(CBRT, "cbrt", cbrt, cbrtf)   X(ABS, "abs", fabs, fabsf)           \
  X(FLOOR, "floor", floor, floorf) X(CEIL, "ceil", ceil, ceilf)       \
  X(ERF, "erf", erf, erff)       X(ERFC, "erfc", erfc, erfcf)         \
  X(TGAMMA, "tgamma", tgamma, tgammaf)                                \
  X(LGAMMA, "lgamma", lgamma, lgammaf)
#define GQ_EXPR_FUNCS2(X)                                             \
  X(ATAN2, "atan2", atan2, atan2f) X(POW, "pow", pow, powf)           \
  X(HYPOT, "hypot", hypot, hypotf) X(MIN, "min", fmin, fminf)         \
  X(MAX, "max", fmax, fmaxf)

/* Operation codes, shared by AST nodes and bytecode instructions. */
enum {
  GQ_OP_NUM,   /* constant: literal, pi, e or parameter                  */
  GQ_OP_VAR,
  GQ_OP_NEG,
  GQ_OP_ADD, GQ_OP_SUB, GQ_OP_MUL, GQ_OP_DIV, GQ_OP_CARET, /* ^ (the function pow is GQ_OP_POW) */
  GQ_OP_LT, GQ_OP_LE, GQ_OP_GT, GQ_OP_GE, GQ_OP_EQ, GQ_OP_NE,
  GQ_OP_IF,
#define X(id, name, fd, ff) GQ_OP_##id,
  GQ_EXPR_FUNCS1(X)
  GQ_EXPR_FUNCS2(X)
#undef X
  GQ_OP_LOADK,  /* bytecode only: fill a register with a constant         */
  GQ_OP_COPY,   /* bytecode only: copy a variable or register             */
  GQ_OP_COUNT
};
#define GQ_OP_FIRST_FN1 GQ_OP_SIN
#define GQ_OP_FIRST_FN2 GQ_OP_ATAN2

#define GQ_EXPR_PI 3.14159265358979323846264338327950288
#define GQ_EXPR_E  2.71828182845904523536028747135266250

/* Where a constant came from; to_string prints pi and e by name and
 * everything else (literals, parameters) as the shortest exact decimal. */
enum { GQ_NUM_LITERAL, GQ_NUM_PI, GQ_NUM_E, GQ_NUM_PARAM };

typedef struct {
  unsigned char op;
  unsigned char numkind;   /* GQ_OP_NUM: GQ_NUM_*                         */
  unsigned char is_const;  /* subtree has no variable: value is in cval   */
  unsigned char var;       /* GQ_OP_VAR: 0-based index                    */
  unsigned char param;     /* GQ_NUM_PARAM: 1 + the parameter's index     */
  unsigned char negated;   /* GQ_NUM_PARAM: read as minus its value (-k)  */
  int kid[3];              /* node indices; -1 unused                     */
  int depth;               /* 1 + depth of deepest child                  */
  size_t col;              /* column of the operator / first character    */
  double cval;             /* folded value when is_const                  */
} gq_node;

/* Bytecode.  Operands are a register (a GQ_EXPR_TILE slice of scratch), an
 * input variable (read in place), or an immediate constant; unary
 * operations never see a constant (it would have been folded). */
enum { GQ_ARG_NONE, GQ_ARG_REG, GQ_ARG_VAR, GQ_ARG_CONST };
typedef struct {
  unsigned char kind;
  int index;      /* register or variable */
  double k;
} gq_arg;
typedef struct {
  int op;
  int dst;        /* register, or -1: the output block */
  gq_arg a[3];
} gq_insn;

struct gq_expr {
  gq_node *nodes;
  int nnodes;
  int root;
  int dims_used;
  gq_insn *code;
  int ncode;
  int nregs;
  /* symbolic parameters (gq_expr_parse_symbolic): variable param_base + j
   * is parameter j, whose value at parse time is params[j] */
  int param_base;
  int nparams;
  double params[GQ_EXPR_MAX_PARAMS];
  /* gq_expr_parse with parameters: how many were folded in as numbers
   * (their nodes carry param), for gq_expr_rebind */
  int nvalues;
};

/* Integer powers are done by right-to-left binary exponentiation in all
 * three consumers, so CPU, GPU and scalar agree to the last bit. */
#define GQ_EXPR_POWI_MAX 64
int gq_expr_node_powi(const gq_expr *e, const gq_node *n, int *exponent);
static inline double gq_expr_powi(double x, int n)
{
  unsigned m = n < 0 ? 0u - (unsigned)n : (unsigned)n;
  double r = 1.0, b = x;
  int have = 0;
  while (m) {
    if (m & 1u) {
      r = have ? r * b : b;
      have = 1;
    }
    m >>= 1;
    if (m) b = b * b;
  }
  return n < 0 ? 1.0 / r : r;
}

/* names.c */
const char *gq_expr_fn_name(int op);
int gq_expr_fn_arity(int op);
int gq_expr_fn_lookup(const char *name, size_t len);  /* op or -1 */
int gq_expr_is_reserved(const char *name, size_t len);
const char *gq_expr_suggest(const char *name, size_t len,
                            const char *const *extra, size_t nextra,
                            int want_function);
void gq_expr_set_error(gq_expr_error *err, int status, int where,
                       size_t param_index, size_t column, const char *fmt,
                       ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* strbuf.c: growable string; on allocation failure it latches failed. */
typedef struct {
  char *s;
  size_t len, cap;
  int failed;
} gq_strbuf;
void gq_sb_printf(gq_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void gq_sb_puts(gq_strbuf *sb, const char *s);
/* Shortest %.Ng that reads back to the same double (finite v). */
void gq_sb_number_format(char *buf, size_t size, double v);
int gq_sb_finish(gq_strbuf *sb, char **out);  /* GQ_SUCCESS or GQ_ENOMEM */

/* print.c: the length of the canonical text and the parser recursion
 * (GQ_EXPR_MAX_NEST counts it) needed to read it back. */
void gq_expr_measure_text(const gq_expr *e, size_t *length, int *nesting);
/* The same with every number counted as GQ_EXPR_NUMBER_CHARS characters,
 * at least what any number prints as: no formatting, a bound on *length. */
#define GQ_EXPR_NUMBER_CHARS 24
void gq_expr_measure_text_bound(const gq_expr *e, size_t *length, int *nesting);

/* parse.c: node n's constant folding from its children, as the parser
 * does it when it makes n (is_const and cval; n's other fields set); and
 * the refusal of an expression whose canonical text could not be read back
 * (GQ_EPARSE, err filled as the parser fills it). */
void gq_expr_fold_node(const gq_expr *e, gq_node *n);
int gq_expr_check_text(const gq_expr *e, gq_expr_error *err);

/* compile.c */
int gq_expr_compile(gq_expr *e);
double gq_expr_apply(int op, double a, double b);  /* scalar op semantics */

/* trig.c: the sin, cos and exp terms of x whose argument is affine in x
 * (variable 0; the variables from param_base on are parameters), at most
 * GQ_EXPR_MAX_TRIG of them, for the GPU grid's rotation.  A term is an
 * argument and a family: sin and cos of one argument share a term
 * (GQ_TRIG_SINCOS), exp has its own (GQ_TRIG_EXP).  arg[j] is the node of
 * term j's argument; uses[j] bit 0: sin is taken of it, bit 1: cos, bit 2:
 * exp.  gq_expr_trig_find fills t and returns the count (0 when the
 * expression reads another variable); gq_expr_trig_term_of gives the term
 * of a sin, cos or exp node, or -1; gq_expr_trig_reads_x whether a subtree
 * reads x. */
enum { GQ_TRIG_SINCOS = 0, GQ_TRIG_EXP = 1 };
typedef struct {
  int count;
  int arg[GQ_EXPR_MAX_TRIG];
  int family[GQ_EXPR_MAX_TRIG];
  unsigned uses[GQ_EXPR_MAX_TRIG];
} gq_trig_terms;
int gq_expr_trig_find(const gq_expr *e, int param_base, gq_trig_terms *t);
int gq_expr_trig_term_of(const gq_expr *e, const gq_trig_terms *t, int node);
int gq_expr_trig_reads_x(const gq_expr *e, int node, int param_base);

#endif /* GQ_EXPR_INTERNAL_H */
