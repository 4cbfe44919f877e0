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
void gq_sb_number_format(char *buf, size_t size, double v)
{
  if (v == floor(v) && fabs(v) < 1e6) { /* 100, not 1e+02: what %.0f writes */
    char digits[8];
    int n = 0;
    size_t at = 0;
    for (long m = (long)fabs(v); n == 0 || m > 0; m /= 10)
      digits[n++] = (char)('0' + m % 10);
    if (signbit(v) && at + 1 < size) buf[at++] = '-';
    while (n > 0 && at + 1 < size) buf[at++] = digits[--n];
    if (size) buf[at] = '\0';
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  /* 1e+300 -> 1e300, 1e-07 -> 1e-7 */
  char *x = strchr(buf, 'e');
  if (x) {
    char *digits = x + 1, *from;
    if (*digits == '-') digits++;
    from = digits + (*digits == '+');
    while (from[0] == '0' && from[1]) from++;
    if (x[1] == '+') digits = x + 1;
    memmove(digits, from, strlen(from) + 1);
  }
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

/* ---- canonical text -------------------------------------------------
 *
 * Parentheses only where the grammar needs them, so that the text is no
 * more deeply nested than what the user typed: a fully parenthesised form
 * of x+x+...+x (tree depth 999) or of 120 minus signs would nest deeper
 * than the parser allows and could not be read back.  The printer also
 * counts what the parser will count when it reads the text back, its
 * recursion (parse_unary frames) and its length, so gq_expr_parse can
 * refuse an expression whose canonical text it would refuse, and every
 * accepted expression prints to a text that parses to the same tree. */

/* Grammar levels, loosest first (expr.h: comparison, sum, product, unary,
 * power, primary). */
enum { LV_CMP, LV_SUM, LV_PROD, LV_UNARY, LV_POWER, LV_PRIMARY };

/* No spaces: the canonical text is never longer than it must be, since the
 * parser limits the length of what it reads back. */
static const char *const binop_text[GQ_OP_COUNT] = {
  [GQ_OP_ADD] = "+", [GQ_OP_SUB] = "-", [GQ_OP_MUL] = "*", [GQ_OP_DIV] = "/",
  [GQ_OP_CARET] = "^", [GQ_OP_LT] = "<", [GQ_OP_LE] = "<=", [GQ_OP_GT] = ">",
  [GQ_OP_GE] = ">=", [GQ_OP_EQ] = "==", [GQ_OP_NE] = "!=",
};

typedef struct {
  gq_strbuf *sb;     /* NULL: only measure */
  const gq_expr *e;
  size_t len;
  int frames;        /* deepest parser recursion reading the text back */
  int bound;         /* measure each number as GQ_EXPR_NUMBER_CHARS     */
} printer;

static void put(printer *pr, const char *s)
{
  pr->len += strlen(s);
  if (pr->sb) gq_sb_puts(pr->sb, s);
}

/* A number's magnitude, as the shortest decimal that reads back (at most
 * 23 characters: "4.9406564584124654e-324"). */
static void put_number(printer *pr, double magnitude)
{
  char buf[40];
  if (pr->bound) {
    pr->len += GQ_EXPR_NUMBER_CHARS;
    return;
  }
  gq_sb_number_format(buf, sizeof buf, magnitude);
  put(pr, buf);
}

/* A literal or parameter value is printed as a number; pi and e by name. */
static int printed_as_number(const gq_node *n)
{
  return n->op == GQ_OP_NUM && n->numkind != GQ_NUM_PI && n->numkind != GQ_NUM_E;
}

static int level_of(const gq_node *n)
{
  switch (n->op) {
  case GQ_OP_NUM: /* -2 reads back as unary minus on 2, folded to -2 */
    return printed_as_number(n) && signbit(n->cval) ? LV_UNARY : LV_PRIMARY;
  case GQ_OP_VAR: return LV_PRIMARY;
  case GQ_OP_NEG: return LV_UNARY;
  case GQ_OP_CARET: return LV_POWER;
  case GQ_OP_MUL: case GQ_OP_DIV: return LV_PROD;
  case GQ_OP_ADD: case GQ_OP_SUB: return LV_SUM;
  case GQ_OP_LT: case GQ_OP_LE: case GQ_OP_GT: case GQ_OP_GE: case GQ_OP_EQ:
  case GQ_OP_NE: return LV_CMP;
  default: return LV_PRIMARY; /* function calls, if() */
  }
}

static void print_operand(printer *pr, int i, int need, int frames);

static void note_frames(printer *pr, int frames)
{
  if (frames > pr->frames) pr->frames = frames;
}

/* Node i where the parser reads a primary (a base of ^, or inside a unary)
 * with `frames` parse_unary frames active. */
static void print_primary(printer *pr, int i, int frames)
{
  const gq_node *n = &pr->e->nodes[i];
  char buf[40];
  note_frames(pr, frames);
  if (level_of(n) < LV_PRIMARY) {
    put(pr, "(");
    print_operand(pr, i, LV_CMP, frames);
    put(pr, ")");
    return;
  }
  if (n->op == GQ_OP_NUM) {
    if (n->numkind == GQ_NUM_PI) {
      put(pr, "pi");
    } else if (n->numkind == GQ_NUM_E) {
      put(pr, "e");
    } else {
      put_number(pr, n->cval);
    }
    return;
  }
  if (n->op == GQ_OP_VAR) {
    static const char *const xyz[3] = {"x", "y", "z"};
    if (n->var < 3) {
      put(pr, xyz[n->var]);
    } else {
      snprintf(buf, sizeof buf, "x%d", n->var + 1);
      put(pr, buf);
    }
    return;
  }
  put(pr, gq_expr_fn_name(n->op));
  put(pr, "(");
  for (int k = 0; k < gq_expr_fn_arity(n->op); k++) {
    if (k) put(pr, ",");
    print_operand(pr, n->kid[k], LV_CMP, frames);
  }
  put(pr, ")");
}

/* Node i in a slot of grammar level `need` that the parser reads through
 * parse_unary, with `frames` frames active before it.  Recursion is
 * bounded by GQ_EXPR_MAX_DEPTH, checked by the parser. */
static void print_operand(printer *pr, int i, int need, int frames)
{
  const gq_node *n = &pr->e->nodes[i];
  const int level = level_of(n);
  if (level < need || level == LV_PRIMARY) {
    print_primary(pr, i, frames + 1);
    return;
  }
  switch (level) {
  case LV_UNARY:
    put(pr, "-");
    if (n->op == GQ_OP_NEG) {
      print_operand(pr, n->kid[0], LV_UNARY, frames + 1);
    } else { /* a negative number: '-' then its magnitude */
      note_frames(pr, frames + 2);
      put_number(pr, -n->cval);
    }
    return;
  case LV_POWER:
    print_primary(pr, n->kid[0], frames + 1);
    put(pr, "^");
    print_operand(pr, n->kid[1], LV_UNARY, frames + 1);
    return;
  default: /* comparisons do not chain; + - * / group left to right */
    print_operand(pr, n->kid[0], level == LV_CMP ? LV_SUM : level, frames);
    put(pr, binop_text[n->op]);
    print_operand(pr, n->kid[1], level + 1, frames);
    return;
  }
}

int gq_expr_to_string(const gq_expr *e, char **out)
{
  gq_strbuf sb = {0};
  printer pr = {&sb, e, 0, 0, 0};
  if (!out) return GQ_EINVAL;
  *out = NULL;
  if (!e || !e->nodes || e->root < 0 || e->root >= e->nnodes) return GQ_EINVAL;
  print_operand(&pr, e->root, LV_CMP, 0);
  return gq_sb_finish(&sb, out);
}

void gq_expr_measure_text(const gq_expr *e, size_t *length, int *nesting)
{
  printer pr = {NULL, e, 0, 0, 0};
  print_operand(&pr, e->root, LV_CMP, 0);
  *length = pr.len;
  *nesting = pr.frames;
}

void gq_expr_measure_text_bound(const gq_expr *e, size_t *length, int *nesting)
{
  printer pr = {NULL, e, 0, 0, 1};
  print_operand(&pr, e->root, LV_CMP, 0);
  *length = pr.len;
  *nesting = pr.frames;
}
