/* eval_block.h — body of the block evaluator, included by eval.c once per
 * evaluation type.  Expects GQ_BLOCK_REAL, GQ_BLOCK_NAME, GQ_BLOCK_PICK and
 * optionally GQ_BLOCK_FLOAT; undefines them at the end.
 *
 * Each instruction runs one tight loop over a tile of GQ_EXPR_TILE points,
 * so the switch costs once per 256 points and the arithmetic loops
 * vectorise (omp simd: operands may be the destination, which is safe for
 * element-wise loops).  A tile of a few registers stays in L1. */

void GQ_BLOCK_NAME(const gq_expr *e, size_t count, const double *const *vars,
                   GQ_BLOCK_REAL *out, GQ_BLOCK_REAL *scratch)
{
  typedef GQ_BLOCK_REAL real;
  if (!e || !out || count == 0) return;
  if (!scratch || (!vars && e->dims_used > 0)) {
    for (size_t i = 0; i < count; i++) out[i] = (real)NAN;
    return;
  }
  for (int d = 0; d < e->dims_used; d++)
    if (!vars[d]) {
      for (size_t i = 0; i < count; i++) out[i] = (real)NAN;
      return;
    }
  real *const inputs = scratch + (size_t)e->nregs * GQ_EXPR_TILE;
  (void)inputs;
  for (size_t t = 0; t < count; t += GQ_EXPR_TILE) {
    const size_t n = count - t < GQ_EXPR_TILE ? count - t : GQ_EXPR_TILE;
#ifdef GQ_BLOCK_FLOAT
    /* Round each input once; every later operation is in float. */
    for (int d = 0; d < e->dims_used; d++) {
      const double *src = vars[d] + t;
      real *dst = inputs + (size_t)d * GQ_EXPR_TILE;
#pragma omp simd
      for (size_t i = 0; i < n; i++) dst[i] = (real)src[i];
    }
#endif
    for (int pc = 0; pc < e->ncode; pc++) {
      const gq_insn *in = &e->code[pc];
      const real *ptr[3] = {NULL, NULL, NULL};
      for (int j = 0; j < 3; j++) {
        if (in->a[j].kind == GQ_ARG_REG)
          ptr[j] = scratch + (size_t)in->a[j].index * GQ_EXPR_TILE;
        else if (in->a[j].kind == GQ_ARG_VAR)
#ifdef GQ_BLOCK_FLOAT
          ptr[j] = inputs + (size_t)in->a[j].index * GQ_EXPR_TILE;
#else
          ptr[j] = vars[in->a[j].index] + t;
#endif
      }
      const real *A = ptr[0], *B = ptr[1], *C = ptr[2];
      const real ka = (real)in->a[0].k, kb = (real)in->a[1].k;
      const int ca = in->a[0].kind == GQ_ARG_CONST;
      const int cb = in->a[1].kind == GQ_ARG_CONST;
      real *D = in->dst < 0 ? out + t : scratch + (size_t)in->dst * GQ_EXPR_TILE;

/* Unary operands are never constant: those were folded at parse time. */
#define LOOP(BODY)                                                      \
  do {                                                                  \
    _Pragma("omp simd") for (size_t i = 0; i < n; i++) D[i] = (BODY);   \
  } while (0)
#define LOOP2(XA, XB, BODY)                                             \
  do {                                                                  \
    _Pragma("omp simd") for (size_t i = 0; i < n; i++) {                \
      const real x = (XA), y = (XB);                                    \
      D[i] = (BODY);                                                    \
    }                                                                   \
  } while (0)
/* Binary operands may be constant on either side but not both. */
#define BINARY_LOOPS(BODY)                                              \
  do {                                                                  \
    if (ca)                                                             \
      LOOP2(ka, B[i], BODY);                                            \
    else if (cb)                                                        \
      LOOP2(A[i], kb, BODY);                                            \
    else                                                                \
      LOOP2(A[i], B[i], BODY);                                          \
  } while (0)
#define BINARY(OP, BODY)                                                \
  case OP:                                                              \
    BINARY_LOOPS(BODY);                                                 \
    break;
/* Functions the compiler expands inline (with -fno-math-errno): these
 * loops keep the simd request.  The condition is a constant per case. */
#define GQ_BLOCK_INLINE(op)                                             \
  ((op) == GQ_OP_SQRT || (op) == GQ_OP_ABS || (op) == GQ_OP_FLOOR ||    \
   (op) == GQ_OP_CEIL || (op) == GQ_OP_MIN || (op) == GQ_OP_MAX)
/* Other libm calls: no simd pragma, since without vector variants of the
 * function (glibc provides them only under -ffast-math) the request cannot
 * be honoured and clang warns that it was not. */
#define CALL1(F)                                                        \
  do {                                                                  \
    for (size_t i = 0; i < n; i++) D[i] = F(A[i]);                      \
  } while (0)
#define CALL2(XA, XB, F)                                                \
  do {                                                                  \
    for (size_t i = 0; i < n; i++) D[i] = F((XA), (XB));                \
  } while (0)
#define BINARY_CALLS(F)                                                 \
  do {                                                                  \
    if (ca)                                                             \
      CALL2(ka, B[i], F);                                               \
    else if (cb)                                                        \
      CALL2(A[i], kb, F);                                               \
    else                                                                \
      CALL2(A[i], B[i], F);                                             \
  } while (0)

      switch (in->op) {
      case GQ_OP_LOADK: LOOP(ka); break;
      case GQ_OP_COPY: LOOP(A[i]); break;
      case GQ_OP_NEG: LOOP(-A[i]); break;
      BINARY(GQ_OP_ADD, x + y)
      BINARY(GQ_OP_SUB, x - y)
      BINARY(GQ_OP_MUL, x * y)
      BINARY(GQ_OP_DIV, x / y)
      case GQ_OP_CARET: BINARY_CALLS(GQ_BLOCK_PICK(pow, powf)); break;
      BINARY(GQ_OP_LT, x < y ? (real)1 : (real)0)
      BINARY(GQ_OP_LE, x <= y ? (real)1 : (real)0)
      BINARY(GQ_OP_GT, x > y ? (real)1 : (real)0)
      BINARY(GQ_OP_GE, x >= y ? (real)1 : (real)0)
      BINARY(GQ_OP_EQ, x == y ? (real)1 : (real)0)
      BINARY(GQ_OP_NE, x != y ? (real)1 : (real)0)
      case GQ_OP_IF: LOOP(A[i] != 0 ? B[i] : C[i]); break;
#define X(id, name, fd, ff) \
      case GQ_OP_##id:                                                  \
        if (GQ_BLOCK_INLINE(GQ_OP_##id))                                \
          LOOP(GQ_BLOCK_PICK(fd, ff)(A[i]));                            \
        else                                                            \
          CALL1(GQ_BLOCK_PICK(fd, ff));                                 \
        break;
      GQ_EXPR_FUNCS1(X)
#undef X
#define X(id, name, fd, ff)                                              \
      case GQ_OP_##id:                                                  \
        if (GQ_BLOCK_INLINE(GQ_OP_##id))                                \
          BINARY_LOOPS(GQ_BLOCK_PICK(fd, ff)(x, y));                    \
        else                                                            \
          BINARY_CALLS(GQ_BLOCK_PICK(fd, ff));                          \
        break;
      GQ_EXPR_FUNCS2(X)
#undef X
      default: break;
      }
#undef LOOP
#undef LOOP2
#undef BINARY
#undef CALL1
#undef CALL2
#undef BINARY_CALLS
#undef BINARY_LOOPS
#undef GQ_BLOCK_INLINE
    }
  }
}

#undef GQ_BLOCK_REAL
#undef GQ_BLOCK_NAME
#undef GQ_BLOCK_PICK
#undef GQ_BLOCK_FLOAT
