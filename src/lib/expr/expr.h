/* expr.h — the expression language for user integrands.
 *
 * One parse gives one immutable AST (gq_expr) with three consumers:
 *   gq_expr_eval        scalar host evaluator (a gsl_function callback),
 *   gq_expr_eval_block  CPU bytecode evaluator over blocks of points,
 *   gq_expr_emit_cuda   CUDA source for NVRTC, generated from the AST only.
 * A gq_expr is never modified after gq_expr_parse returns, so one may be
 * shared by any number of threads.
 *
 * ---- LANGUAGE (man-page text) ------------------------------------------
 *
 *   expression  := comparison
 *   comparison  := sum [ ( < | <= | > | >= | == | != ) sum ]
 *   sum         := product { ( + | - ) product }
 *   product     := unary { ( * | / ) unary }
 *   unary       := ( - | + ) unary | power
 *   power       := primary [ ^ unary ]
 *   primary     := number | name | name ( expression { , expression } )
 *                | ( expression )
 *   number      := digits [ . [digits] ] [ exponent ] | . digits [ exponent ]
 *   exponent    := ( e | E ) [ + | - ] digits
 *
 *   Precedence, lowest first: comparisons; + -; * /; unary - +; ^.
 *   + - * / group left to right; ^ groups right to left and binds tighter
 *   than unary minus: -x^2 is -(x^2), 2^3^2 is 2^9, and 2^-1 is 0.5.
 *   Comparisons give 1 or 0 and do not chain: write (0 < x)*(x < 1), not
 *   0 < x < 1.  Spaces and tabs are ignored between tokens.
 *
 *   Variables   x (the same as x1), y (x2), z (x3), x1 ... x16.  A command
 *               allows as many as it has dimensions: integrate allows only
 *               x; mc --dims=D allows x1 ... xD.
 *   Constants   pi, e.
 *   Parameters  --param name=value defines name as the value, a number or
 *               pi or e with an optional sign, fixed when the expression is
 *               parsed.  A parameter must not shadow a function, constant
 *               or variable name, may be defined only once, and must be used.
 *   Functions   sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh
 *               exp exp2 expm1 log log2 log10 log1p sqrt cbrt abs floor
 *               ceil erf erfc tgamma lgamma      (one argument, as in C99)
 *               atan2(y,x) pow(a,b) hypot(a,b) min(a,b) max(a,b)
 *               if(c,a,b)   a where c is not 0, otherwise b
 *               min and max are C99 fmin/fmax: a NaN argument is ignored.
 *   Evaluation  IEEE double (or float with --precision=float).  x^n with n
 *               a constant integer, |n| <= 64, is computed by repeated
 *               squaring (exact for small n where pow may differ by an
 *               ulp); any other power calls pow.  Parts of the expression
 *               that do not depend on a variable are computed once.
 *
 *   Limits: 65536 characters, nesting depth 200 (parentheses, unary signs,
 *   exponents, function arguments), operator-tree depth 1000.  The canonical
 *   text that gpuquad prints (parameters written as numbers) is held to the
 *   same limits, so that it always reads back as the same expression.
 * ------------------------------------------------------------------------
 */
#ifndef GQ_EXPR_H
#define GQ_EXPR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GQ_EXPR_MAX_DIMS   16     /* x1 ... x16                          */
#define GQ_EXPR_MAX_LEN    65536  /* characters of expression text        */
#define GQ_EXPR_MAX_NEST   200    /* parser recursion (bounded stack)     */
#define GQ_EXPR_MAX_DEPTH  1000   /* AST depth (bounds every tree walk)   */
#define GQ_EXPR_MAX_PARAMS 64
#define GQ_EXPR_MAX_NAME   32     /* longest parameter name               */

typedef struct gq_expr gq_expr;

/* Where an error was found: the expression text, or parameter definition
 * number param_index (0-based, into gq_expr_params.defs). */
enum { GQ_EXPR_IN_TEXT = 0, GQ_EXPR_IN_PARAM = 1 };

typedef struct {
  int status;          /* GQ_EPARSE (expression text), GQ_EINVAL (params,
                          arguments) or GQ_ENOMEM                          */
  int where;           /* GQ_EXPR_IN_TEXT or GQ_EXPR_IN_PARAM              */
  size_t param_index;  /* when where == GQ_EXPR_IN_PARAM                   */
  size_t column;       /* 0-based byte offset into that string, for a caret */
  char message[192];   /* one line, no trailing newline or "gpuquad:" prefix */
} gq_expr_error;

/* Parameter definitions as the user typed them: "name=value". */
typedef struct {
  const char *const *defs;
  size_t count;
} gq_expr_params;

/* Parse text.  params may be NULL.  max_dims (1..GQ_EXPR_MAX_DIMS) is the
 * number of variables the caller supplies; err may be NULL.  On failure
 * *out is NULL and err describes the first problem. */
int gq_expr_parse(const char *text, const gq_expr_params *params,
                  int max_dims, gq_expr **out, gq_expr_error *err);

/* The same with symbolic parameters: each parameter becomes the variable
 * x_{max_dims + 1 + j} (j its index in defs) instead of its value, so that
 * one GPU module serves every value (gq_expr_emit_cuda_params reads them
 * from an array given at run time); nothing folds through it, and its value
 * is kept (gq_expr_param_values).  Only for code generation: the host
 * evaluators would need the parameters as variables. */
int gq_expr_parse_symbolic(const char *text, const gq_expr_params *params,
                           int max_dims, gq_expr **out, gq_expr_error *err);

void gq_expr_free(gq_expr *e);

/* The expression gq_expr_parse gives for e's text with its parameters at
 * values (one per definition, in their order), without parsing again: e
 * must come from gq_expr_parse.  The same tree, canonical text and
 * bytecode as that parse, to the bit; it fails where that parse would on
 * the values alone (a value not finite: GQ_EINVAL; a canonical text beyond
 * the limits: GQ_EPARSE with the parser's message), and never otherwise
 * but for GQ_ENOMEM.  err may be NULL. */
int gq_expr_rebind(const gq_expr *e, const double *values, gq_expr **out, gq_expr_error *err);

/* Highest variable index used + 1 (0 for a constant expression).  vars
 * arrays passed to the evaluators need at least this many entries. */
int gq_expr_dims_used(const gq_expr *e);

/* Scalar evaluation at one point, vars[0..dims_used-1].  The evaluators
 * never crash on a NULL argument: the value is NaN (the block evaluators
 * fill out with NaN where out is given). */
double gq_expr_eval(const gq_expr *e, const double *vars);

/* Adapter with the gsl_function signature: params is a const gq_expr *;
 * evaluates at the single variable x (NaN if it reads more variables). */
double gq_expr_eval_gsl(double x, void *params);

/* Block evaluation: out[k] = f(vars[0][k], vars[1][k], ...), k < count.
 * scratch must hold gq_expr_block_scratch(e) elements of the evaluation
 * type (double here, float for the _f variant) and must not be shared
 * between threads running at the same time; its size does not depend on
 * count (points are processed in tiles of GQ_EXPR_TILE).  out may not alias
 * vars or scratch. */
#define GQ_EXPR_TILE 256
size_t gq_expr_block_scratch(const gq_expr *e);
void gq_expr_eval_block(const gq_expr *e, size_t count,
                        const double *const *vars, double *out,
                        double *scratch);
/* Same in single precision: inputs are rounded to float once, every
 * operation is done in float (sinf, expf, ...), as on the GPU path. */
void gq_expr_eval_block_f(const gq_expr *e, size_t count,
                          const double *const *vars, float *out,
                          float *scratch);

/* Canonical text of the expression: only the parentheses the grammar
 * needs, no spaces, parameters replaced by their values, each number in the
 * shortest form that reads back exactly ("x--2", "(-2)^x", "1e300").
 * Parsing it again gives the same tree and the same string (gq_expr_parse
 * refuses an expression whose canonical text would break its limits), so it
 * serves as a cache key.  Caller frees *out with free(). */
int gq_expr_to_string(const gq_expr *e, char **out);

/* CUDA source for
 *   __device__ __forceinline__ double fname(const double *x)
 * (float and const float *x when use_float), reading x[0..dims_used-1].
 * fname must be a C identifier.  The body is generated from the AST only;
 * no user text is copied.  Caller frees *out_src with free(). */
int gq_expr_emit_cuda(const gq_expr *e, const char *fname, int use_float,
                      char **out_src);

/* The same, where e was parsed with symbolic parameters: parameter j is
 * read as gq_params[j] from an array of doubles declared
 *   extern "C" { __constant__ double gq_params[GQ_EXPR_MAX_PARAMS]; }
 * by the caller (rounded to float once under use_float). */
int gq_expr_emit_cuda_params(const gq_expr *e, const char *fname, int use_float, char **out_src);

/* For a one-variable expression in double: the struct
 *   struct Trig { TERMS, SIN, COS, EXP; args(x, theta); slopes(alpha); g(x, sc) }
 * that kernels/engine/grid_rot_source.cuh describes, for the sines, cosines
 * and exponentials of x whose argument is affine in x (at most
 * GQ_EXPR_MAX_TRIG terms; trig.c): args computes each term's argument at x,
 * slopes its coefficient of x, and g the expression with term j's sin and
 * cos read from sc[2j] and sc[2j + 1], or its exp from sc[2j] (bit j of EXP
 * says which family term j is; of SIN and COS, which functions it needs).
 * symbolic: e was parsed with symbolic
 * parameters, read from gq_params as gq_expr_emit_cuda_params does.
 * *out_src NULL (and GQ_SUCCESS) when there is no such term; otherwise the
 * caller frees it.  gq_expr_trig_count says how many terms without writing
 * any source. */
#define GQ_EXPR_MAX_TRIG 4
int gq_expr_emit_cuda_trig(const gq_expr *e, int symbolic, char **out_src);
int gq_expr_trig_count(const gq_expr *e, int symbolic);

/* The values of e's symbolic parameters at parse time, in the order of
 * their definitions: the count (0 for an expression without), *values set. */
int gq_expr_param_values(const gq_expr *e, const double **values);

/* Write "  <line>\n  <spaces>^" for err into buf (truncated to size), where
 * line is the string the error refers to (the text or the parameter
 * definition).  Non-printable bytes are shown as '?' so the caret lines up. */
void gq_expr_error_caret(const char *line, const gq_expr_error *err,
                         char *buf, size_t size);

/* If e is c * g, g * c, g / c or c / h with c a power of two (not 1), set
 * *scale = c and *g to a new expression for g (or 1/h), so that a sum of
 * e(x_i) is scale times the sum of g(x_i) to the bit: fl(c*v) = c*fl(v) for a
 * power of two.  Otherwise *scale = 1 and *g = NULL.  Free *g with
 * gq_expr_free. */
int gq_expr_split_scale(const gq_expr *e, double *scale, gq_expr **g);

/* A new expression for c * e (c finite), in which c * e(x) is computed as
 * one multiplication.  Free *out with gq_expr_free. */
int gq_expr_scaled_copy(const gq_expr *e, double c, gq_expr **out);

/* A new expression: e with each variable x_{k+1}, k < count, replaced by
 * the expression by[k] (NULL: kept as it is); e.g. f(phi(x)).  A
 * replacement must depend on a variable.  GQ_EINVAL when the result would
 * break the limits above (depth, canonical text).  Free with gq_expr_free. */
int gq_expr_substitute(const gq_expr *e, const gq_expr *const *by, int count, gq_expr **out);

/* e as a sum of products of one-variable factors (separate.c says which
 * forms are recognised):
 *   e(x1, ..., xD) = sum over terms t of coef_t * prod_k factor_t,k(x_{k+1}),
 * each factor given as the canonical text of an expression in x standing for
 * x_{k+1} (NULL: the factor 1; a term with no factor is a constant).
 * GQ_SUCCESS with *terms (free with gq_expr_terms_free) and *count; GQ_EDOM
 * when e does not separate that way in at most GQ_EXPR_MAX_TERMS terms (or a
 * coefficient is not finite, or a factor's text would break the limits);
 * GQ_ENOMEM. */
#define GQ_EXPR_MAX_TERMS 64
typedef struct {
  double coef;
  char *factor[GQ_EXPR_MAX_DIMS];
} gq_expr_term;
int gq_expr_separate(const gq_expr *e, gq_expr_term **terms, int *count);
void gq_expr_terms_free(gq_expr_term *terms, int count);

#ifdef __cplusplus
}
#endif
#endif /* GQ_EXPR_H */
