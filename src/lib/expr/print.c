/* print.c — growable string buffer and the canonical text of an AST
 * (gq_expr_to_string). */
#include "expr_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

static int sb_reserve(gq_strbuf *sb, size_t extra)
{
  if (sb->failed) return 0;
  if (sb->len + extra + 1 <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *s = realloc(sb->s, cap);
  if (!s) {
    sb->failed = 1;
    return 0;
  }
  sb->s = s;
  sb->cap = cap;
  return 1;
}

void gq_sb_printf(gq_strbuf *sb, const char *fmt, ...)
{
  va_list ap;
  char small[128];
  int n;
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    sb->failed = 1;
    return;
  }
  if (!sb_reserve(sb, (size_t)n)) return;
  if ((size_t)n < sizeof small) {
    memcpy(sb->s + sb->len, small, (size_t)n + 1);
  } else {
    va_start(ap, fmt);
    vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  sb->len += (size_t)n;
}

void gq_sb_puts(gq_strbuf *sb, const char *s)
{
  size_t n = strlen(s);
  if (!sb_reserve(sb, n)) return;
  memcpy(sb->s + sb->len, s, n + 1);
  sb->len += n;
}

/* Shortest %.Ng that reads back to the same double: exact, and 0.1 stays
 * "0.1" rather than %.17g's 0.10000000000000001.  Callers handle sign and
 * non-finite values. */
void gq_sb_number(gq_strbuf *sb, double v)
{
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  gq_sb_puts(sb, buf);
}

int gq_sb_finish(gq_strbuf *sb, char **out)
{
  if (!sb_reserve(sb, 0)) {
    free(sb->s);
    *out = NULL;
    return GQ_ENOMEM;
  }
  *out = sb->s;
  return GQ_SUCCESS;
}

static const char *const binop_text[GQ_OP_COUNT] = {
  [GQ_OP_ADD] = "+", [GQ_OP_SUB] = "-", [GQ_OP_MUL] = "*",
  [GQ_OP_DIV] = "/", [GQ_OP_CARET] = "^", [GQ_OP_LT] = "<",
  [GQ_OP_LE] = "<=", [GQ_OP_GT] = ">", [GQ_OP_GE] = ">=",
  [GQ_OP_EQ] = "==", [GQ_OP_NE] = "!=",
};

static void print_var(gq_strbuf *sb, int var)
{
  static const char *const xyz[3] = {"x", "y", "z"};
  if (var < 3)
    gq_sb_puts(sb, xyz[var]);
  else
    gq_sb_printf(sb, "x%d", var + 1);
}

/* Recursion is bounded by GQ_EXPR_MAX_DEPTH, checked by the parser. */
static void print_node(gq_strbuf *sb, const gq_expr *e, int i)
{
  const gq_node *n = &e->nodes[i];
  switch (n->op) {
  case GQ_OP_NUM:
    if (n->numkind == GQ_NUM_PI) {
      gq_sb_puts(sb, "pi");
    } else if (n->numkind == GQ_NUM_E) {
      gq_sb_puts(sb, "e");
    } else if (signbit(n->cval)) {  /* only parameters can be negative */
      gq_sb_puts(sb, "(-");
      gq_sb_number(sb, -n->cval);
      gq_sb_puts(sb, ")");
    } else {
      gq_sb_number(sb, n->cval);
    }
    return;
  case GQ_OP_VAR:
    print_var(sb, n->var);
    return;
  case GQ_OP_NEG:
    gq_sb_puts(sb, "(-");
    print_node(sb, e, n->kid[0]);
    gq_sb_puts(sb, ")");
    return;
  default:
    break;
  }
  if (binop_text[n->op]) {
    gq_sb_puts(sb, "(");
    print_node(sb, e, n->kid[0]);
    gq_sb_printf(sb, " %s ", binop_text[n->op]);
    print_node(sb, e, n->kid[1]);
    gq_sb_puts(sb, ")");
    return;
  }
  gq_sb_printf(sb, "%s(", gq_expr_fn_name(n->op));
  for (int k = 0; k < gq_expr_fn_arity(n->op); k++) {
    if (k) gq_sb_puts(sb, ", ");
    print_node(sb, e, n->kid[k]);
  }
  gq_sb_puts(sb, ")");
}

int gq_expr_to_string(const gq_expr *e, char **out)
{
  gq_strbuf sb = {0};
  if (!out) return GQ_EINVAL;
  *out = NULL;
  if (!e) return GQ_EINVAL;
  print_node(&sb, e, e->root);
  return gq_sb_finish(&sb, out);
}
