/* names.c — the function whitelist, reserved words, "did you mean"
 * suggestions and error filling. */
#include "expr_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

static const char *const fn_names[GQ_OP_COUNT] = {
  [GQ_OP_IF] = "if",
#define X(id, name, fd, ff) [GQ_OP_##id] = name,
  GQ_EXPR_FUNCS1(X)
  GQ_EXPR_FUNCS2(X)
#undef X
};

const char *gq_expr_fn_name(int op)
{
  return (op >= 0 && op < GQ_OP_COUNT) ? fn_names[op] : NULL;
}

int gq_expr_fn_arity(int op)
{
  if (op == GQ_OP_IF) return 3;
  if (op >= GQ_OP_FIRST_FN2 && op < GQ_OP_LOADK) return 2;
  if (op >= GQ_OP_FIRST_FN1 && op < GQ_OP_FIRST_FN2) return 1;
  return 0;
}

/* a[0..alen-1] is the whole of b (strncmp stops at b's end: no strlen of
 * every table name for every identifier parsed) */
static int name_eq(const char *a, size_t alen, const char *b)
{
  return alen > 0 && a[0] == b[0] && strncmp(a, b, alen) == 0 && b[alen] == '\0';
}

int gq_expr_fn_lookup(const char *name, size_t len)
{
  for (int op = 0; op < GQ_OP_COUNT; op++)
    if (fn_names[op] && name_eq(name, len, fn_names[op])) return op;
  return -1;
}

/* Names a parameter may not take: functions, constants and anything that
 * reads as a variable (x, y, z and every x<digits>, not only x1..x16, so
 * that x17 reads as "beyond the dimension" rather than as a parameter). */
int gq_expr_is_reserved(const char *name, size_t len)
{
  if (gq_expr_fn_lookup(name, len) >= 0) return 1;
  if (name_eq(name, len, "pi") || name_eq(name, len, "e")) return 1;
  if (name_eq(name, len, "x") || name_eq(name, len, "y") ||
      name_eq(name, len, "z"))
    return 1;
  if (len >= 2 && name[0] == 'x') {
    size_t i = 1;
    while (i < len && name[i] >= '0' && name[i] <= '9') i++;
    if (i == len) return 1;
  }
  return 0;
}

/* Levenshtein distance with one rolling row; names longer than the buffer
 * are never close to a known name anyway. */
#define SUGGEST_MAXLEN 40
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
  size_t blen = strlen(b), row[SUGGEST_MAXLEN + 1];
  if (alen > SUGGEST_MAXLEN || blen > SUGGEST_MAXLEN) return (size_t)-1;
  for (size_t j = 0; j <= blen; j++) row[j] = j;
  for (size_t i = 1; i <= alen; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= blen; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[blen];
}

const char *gq_expr_suggest(const char *name, size_t len,
                            const char *const *extra, size_t nextra,
                            int want_function)
{
  static const char *const plain[] = {"x", "y", "z", "pi", "e"};
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  /* Close enough to be a typo: at most 2 edits and fewer than the length,
   * so that "q" does not suggest "e". */
  size_t limit = len <= 2 ? 1 : (len <= 5 ? 2 : 3);
  if (limit >= len) limit = len - 1;
  for (int op = 0; op < GQ_OP_COUNT; op++) {
    if (!fn_names[op] || !want_function) continue;
    size_t d = edit_distance(name, len, fn_names[op]);
    if (d < best_d) best_d = d, best = fn_names[op];
  }
  if (!want_function) {
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
      size_t d = edit_distance(name, len, plain[i]);
      if (d < best_d) best_d = d, best = plain[i];
    }
    for (size_t i = 0; i < nextra; i++) {
      size_t d = edit_distance(name, len, extra[i]);
      if (d < best_d) best_d = d, best = extra[i];
    }
  }
  return (best && best_d <= limit && best_d > 0) ? best : NULL;
}

void gq_expr_set_error(gq_expr_error *err, int status, int where,
                       size_t param_index, size_t column, const char *fmt,
                       ...)
{
  if (!err) return;
  va_list ap;
  err->status = status;
  err->where = where;
  err->param_index = param_index;
  err->column = column;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
}

void gq_expr_error_caret(const char *line, const gq_expr_error *err,
                         char *buf, size_t size)
{
  gq_strbuf sb = {0};
  size_t len, col;
  if (!buf || size == 0) return;
  buf[0] = '\0';
  if (!line || !err) return;
  len = strlen(line);
  col = err->column > len ? len : err->column;
  gq_sb_puts(&sb, "  ");
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)line[i];
    char s[2] = {(c >= 0x20 && c < 0x7f) ? (char)c : '?', '\0'};
    gq_sb_puts(&sb, s);
  }
  gq_sb_puts(&sb, "\n  ");
  for (size_t i = 0; i < col; i++) gq_sb_puts(&sb, " ");
  gq_sb_puts(&sb, "^");
  if (sb.s) {
    size_t n = sb.len < size - 1 ? sb.len : size - 1;
    memcpy(buf, sb.s, n);
    buf[n] = '\0';
  }
  free(sb.s);
}
