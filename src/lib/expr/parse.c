/* parse.c — lexer, recursive-descent parser and parameter definitions.
 *
 * The parser builds nodes into one growable array (so freeing an AST is one
 * free) and folds constant subtrees as it goes.  Two depth limits keep
 * hostile input from exhausting the stack: parser recursion (parentheses,
 * signs, exponents, arguments) is capped at GQ_EXPR_MAX_NEST, and the depth
 * of the finished tree, which left-associative chains such as 1+1+...+1 can
 * grow without recursion, at GQ_EXPR_MAX_DEPTH, so every later tree walk is
 * bounded too. */
#define _POSIX_C_SOURCE 200809L
#include "expr_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpuquad.h"

enum {
  T_END, T_NUM, T_IDENT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_CARET,
  T_LP, T_RP, T_COMMA, T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_ERROR
};

typedef struct {
  const char *name;
  size_t len;
  double value;
  int used;
} param;

typedef struct {
  const char *text;
  size_t len, pos;
  int tok;            /* current token                                  */
  size_t tok_col, tok_len;
  double tok_num;
  gq_expr *e;
  int cap;
  int max_dims;
  int nest;
  param *params;
  size_t nparams;
  int symbolic;       /* parameters as variables (gq_expr_parse_symbolic)  */
  gq_expr_error *err;
  int failed, status;
} parser;

/* Identifiers quoted in messages are cut so a message stays one line. */
#define QUOTE_MAX 40
#define QUOTE(p, col, len)                                        \
  (int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)), (p)->text + (col), \
      ((len) > QUOTE_MAX ? "..." : "")

static void fail(parser *p, int status, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void fail(parser *p, int status, size_t col, const char *fmt, ...)
{
  va_list ap;
  if (p->failed) return;  /* keep the first, most specific error */
  p->failed = 1;
  p->status = status;
  if (!p->err) return;
  p->err->status = status;
  p->err->where = GQ_EXPR_IN_TEXT;
  p->err->param_index = 0;
  p->err->column = col;
  va_start(ap, fmt);
  vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
  va_end(ap);
}

static void fail_nomem(parser *p)
{
  fail(p, GQ_ENOMEM, 0, "out of memory");
}

/* ---- lexer ----------------------------------------------------------- */

static int is_ident_start(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }
static int is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

/* Scans our decimal grammar ourselves and hands only that span to strtod,
 * which would otherwise also accept hex, "inf" and "nan". */
static void lex_number(parser *p)
{
  const char *s = p->text;
  size_t i = p->pos, start = i;
  int digits = 0;
  while (is_digit(s[i])) i++, digits++;
  if (s[i] == '.') {
    i++;
    while (is_digit(s[i])) i++, digits++;
  }
  if (!digits) {
    fail(p, GQ_EPARSE, start, "malformed number: '.' needs a digit");
    p->tok = T_ERROR;
    return;
  }
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (!is_digit(s[j])) {
      fail(p, GQ_EPARSE, i, "malformed number: exponent needs digits");
      p->tok = T_ERROR;
      return;
    }
    while (is_digit(s[j])) j++;
    i = j;
  }
  char *copy = malloc(i - start + 1);
  if (!copy) {
    fail_nomem(p);
    p->tok = T_ERROR;
    return;
  }
  memcpy(copy, s + start, i - start);
  copy[i - start] = '\0';
  p->tok_num = strtod(copy, NULL);
  free(copy);
  p->tok = T_NUM;
  p->tok_col = start;
  p->tok_len = i - start;
  p->pos = i;
  if (isinf(p->tok_num)) {
    fail(p, GQ_EPARSE, start, "number '%.*s%s' is too large for a double",
         QUOTE(p, start, i - start));
    p->tok = T_ERROR;
  }
}

static void next(parser *p)
{
  const char *s = p->text;
  size_t i;
  if (p->failed) {
    p->tok = T_ERROR;
    return;
  }
  while (is_space((unsigned char)s[p->pos])) p->pos++;
  i = p->pos;
  p->tok_col = i;
  p->tok_len = 1;
  if (s[i] == '\0') {
    p->tok = T_END;
    p->tok_len = 0;
    return;
  }
  if (is_digit(s[i]) || s[i] == '.') {
    lex_number(p);
    return;
  }
  if (is_ident_start((unsigned char)s[i])) {
    size_t j = i;
    while (is_ident_char((unsigned char)s[j])) j++;
    p->tok = T_IDENT;
    p->tok_len = j - i;
    p->pos = j;
    return;
  }
  p->pos = i + 1;
  switch (s[i]) {
  case '+': p->tok = T_PLUS; return;
  case '-': p->tok = T_MINUS; return;
  case '/': p->tok = T_SLASH; return;
  case '^': p->tok = T_CARET; return;
  case '(': p->tok = T_LP; return;
  case ')': p->tok = T_RP; return;
  case ',': p->tok = T_COMMA; return;
  case '*':
    if (s[i + 1] == '*') {
      fail(p, GQ_EPARSE, i, "'**' is not an operator; use ^ for powers");
      p->tok = T_ERROR;
      return;
    }
    p->tok = T_STAR;
    return;
  case '<': case '>':
    if (s[i + 1] == '=') {
      p->tok = s[i] == '<' ? T_LE : T_GE;
      p->pos++, p->tok_len = 2;
    } else {
      p->tok = s[i] == '<' ? T_LT : T_GT;
    }
    return;
  case '=': case '!':
    if (s[i + 1] == '=') {
      p->tok = s[i] == '=' ? T_EQ : T_NE;
      p->pos++, p->tok_len = 2;
      return;
    }
    fail(p, GQ_EPARSE, i, s[i] == '=' ? "'=' is not an operator; use == to compare"
                                      : "'!' is not an operator; use != to compare");
    p->tok = T_ERROR;
    return;
  default: {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f)
      fail(p, GQ_EPARSE, i, "unexpected character '%c'", c);
    else
      fail(p, GQ_EPARSE, i, "unexpected byte 0x%02x", c);
    p->tok = T_ERROR;
    return;
  }
  }
}

/* How a token reads in "got ..." messages. */
static void describe_token(const parser *p, char *buf, size_t size)
{
  if (p->tok == T_END)
    snprintf(buf, size, "end of expression");
  else if (p->tok == T_NUM)
    snprintf(buf, size, "number '%.*s%s'", QUOTE(p, p->tok_col, p->tok_len));
  else if (p->tok == T_IDENT)
    snprintf(buf, size, "'%.*s%s'", QUOTE(p, p->tok_col, p->tok_len));
  else
    snprintf(buf, size, "'%.*s'", (int)p->tok_len, p->text + p->tok_col);
}

/* ---- nodes ----------------------------------------------------------- */

/* Fold constants as the node is made; if() is constant when its condition
 * and the branch it picks are, whatever the other branch holds. */
void gq_expr_fold_node(const gq_expr *e, gq_node *n)
{
  const int op = n->op, k0 = n->kid[0], k1 = n->kid[1];
  int all_const = 1;
  for (int k = 0; k < 3; k++)
    if (n->kid[k] >= 0)
      all_const &= e->nodes[n->kid[k]].is_const;
  if (op == GQ_OP_IF && e->nodes[k0].is_const) {
    const gq_node *pick = &e->nodes[e->nodes[k0].cval != 0 ? k1 : n->kid[2]];
    n->is_const = pick->is_const;
    n->cval = pick->cval;
  } else if (op != GQ_OP_NUM && op != GQ_OP_VAR && all_const) {
    int k;
    double a = e->nodes[k0].cval, b = k1 >= 0 ? e->nodes[k1].cval : 0.0;
    n->is_const = 1;
    if (op == GQ_OP_CARET && gq_expr_node_powi(e, n, &k))
      n->cval = gq_expr_powi(a, k);
    else
      n->cval = gq_expr_apply(op, a, b);
  } else if (op == GQ_OP_CARET && gq_expr_node_powi(e, n, &(int){0}) &&
             e->nodes[k1].cval == 0) {
    /* x^0 is 1 for every x, NaN and infinities included (gq_expr_powi and
     * C99 pow agree), so it is a constant although x is not: every consumer
     * then sees a constant, and no operation is left with only constant
     * operands, such as (x^0)^2 would be. */
    n->is_const = 1;
    n->cval = 1.0;
  }
}

static int new_node(parser *p, int op, size_t col, int k0, int k1, int k2)
{
  gq_expr *e = p->e;
  gq_node *n;
  int kids[3] = {k0, k1, k2}, depth = 0;
  if (p->failed) return -1;
  if (e->nnodes == p->cap) {
    int cap = p->cap ? 2 * p->cap : 64;
    gq_node *nodes = realloc(e->nodes, (size_t)cap * sizeof *nodes);
    if (!nodes) {
      fail_nomem(p);
      return -1;
    }
    e->nodes = nodes;
    p->cap = cap;
  }
  for (int k = 0; k < 3; k++) {
    if (kids[k] < 0) continue;
    const gq_node *kid = &e->nodes[kids[k]];
    if (kid->depth > depth) depth = kid->depth;
  }
  if (depth + 1 > GQ_EXPR_MAX_DEPTH) {
    fail(p, GQ_EPARSE, col,
         "expression is too complex: more than %d levels of operations",
         GQ_EXPR_MAX_DEPTH);
    return -1;
  }
  n = &e->nodes[e->nnodes];
  memset(n, 0, sizeof *n);
  n->op = (unsigned char)op;
  n->col = col;
  n->depth = depth + 1;
  memcpy(n->kid, kids, sizeof kids);
  gq_expr_fold_node(e, n);
  return e->nnodes++;
}

static int new_num(parser *p, double v, int kind, size_t col)
{
  int i = new_node(p, GQ_OP_NUM, col, -1, -1, -1);
  if (i >= 0) {
    p->e->nodes[i].is_const = 1;
    p->e->nodes[i].cval = v;
    p->e->nodes[i].numkind = (unsigned char)kind;
  }
  return i;
}

/* ---- grammar --------------------------------------------------------- */

static int parse_comparison(parser *p);
static int parse_unary(parser *p);

static void expect_operand(parser *p)
{
  char got[80];
  describe_token(p, got, sizeof got);
  if (p->tok == T_RP)
    fail(p, GQ_EPARSE, p->tok_col, "expected an operand before ')'");
  else
    fail(p, GQ_EPARSE, p->tok_col,
         "expected a number, variable, function or '(', got %s", got);
}

/* Variable names: x y z and x<digits>; returns the 0-based index, or -1
 * when the name is not variable-shaped, or -2 for x0 or x<huge>. */
static int variable_index(const char *s, size_t len)
{
  if (len == 1 && (s[0] == 'x' || s[0] == 'y' || s[0] == 'z'))
    return s[0] == 'x' ? 0 : (s[0] == 'y' ? 1 : 2);
  if (len < 2 || s[0] != 'x') return -1;
  int v = 0;
  for (size_t i = 1; i < len; i++) {
    if (!is_digit((unsigned char)s[i])) return -1;
    if (v < 1000) v = v * 10 + (s[i] - '0');
  }
  return (v >= 1 && v <= GQ_EXPR_MAX_DIMS) ? v - 1 : -2;
}

static int parse_call(parser *p, int op, size_t col, size_t len)
{
  int args[3] = {-1, -1, -1}, nargs = 0, arity = gq_expr_fn_arity(op);
  size_t open_col = p->tok_col;
  next(p);  /* '(' */
  if (p->tok == T_RP) {
    fail(p, GQ_EPARSE, col, "'%s' takes %d argument%s, got 0",
         gq_expr_fn_name(op), arity, arity == 1 ? "" : "s");
    return -1;
  }
  for (;;) {
    int a = parse_comparison(p);
    if (a < 0) return -1;
    if (nargs < 3) args[nargs] = a;
    nargs++;
    if (p->tok == T_COMMA) {
      next(p);
      continue;
    }
    if (p->tok == T_RP) break;
    if (p->tok == T_END) {
      fail(p, GQ_EPARSE, open_col,
           "unbalanced parentheses: '(' of '%s' is never closed",
           gq_expr_fn_name(op));
    } else {
      char got[80];
      describe_token(p, got, sizeof got);
      fail(p, GQ_EPARSE, p->tok_col,
           "expected ',' or ')' in arguments of '%s', got %s",
           gq_expr_fn_name(op), got);
    }
    return -1;
  }
  (void)len;
  if (nargs != arity) {
    fail(p, GQ_EPARSE, col, "'%s' takes %d argument%s, got %d",
         gq_expr_fn_name(op), arity, arity == 1 ? "" : "s", nargs);
    return -1;
  }
  next(p);  /* ')' */
  return new_node(p, op, col, args[0], args[1], args[2]);
}

static int parse_identifier(parser *p)
{
  const char *name = p->text + p->tok_col;
  size_t len = p->tok_len, col = p->tok_col;
  int var, op;
  next(p);
  op = gq_expr_fn_lookup(name, len);
  if (p->tok == T_LP) {
    if (op >= 0) return parse_call(p, op, col, len);
    if (gq_expr_is_reserved(name, len) || variable_index(name, len) != -1) {
      fail(p, GQ_EPARSE, col, "'%.*s%s' is not a function (missing '*'?)",
           QUOTE(p, col, len));
      return -1;
    }
    for (size_t i = 0; i < p->nparams; i++)
      if (p->params[i].len == len && !memcmp(p->params[i].name, name, len)) {
        fail(p, GQ_EPARSE, col,
             "parameter '%.*s%s' is not a function (missing '*'?)",
             QUOTE(p, col, len));
        return -1;
      }
    const char *hint = gq_expr_suggest(name, len, NULL, 0, 1);
    if (hint)
      fail(p, GQ_EPARSE, col, "unknown function '%.*s%s' (did you mean '%s'?)",
           QUOTE(p, col, len), hint);
    else
      fail(p, GQ_EPARSE, col, "unknown function '%.*s%s'", QUOTE(p, col, len));
    return -1;
  }
  if (op >= 0) {
    fail(p, GQ_EPARSE, col, "'%s' is a function: write %s(...)",
         gq_expr_fn_name(op), gq_expr_fn_name(op));
    return -1;
  }
  var = variable_index(name, len);
  if (var >= 0) {
    if (var >= p->max_dims) {
      if (p->max_dims == 1)
        fail(p, GQ_EPARSE, col,
             "variable '%.*s' needs %d dimensions; only x is allowed here",
             (int)len, name, var + 1);
      else
        fail(p, GQ_EPARSE, col,
             "variable '%.*s' needs %d dimensions; only %d are allowed "
             "(x1 ... x%d)",
             (int)len, name, var + 1, p->max_dims, p->max_dims);
      return -1;
    }
    int i = new_node(p, GQ_OP_VAR, col, -1, -1, -1);
    if (i >= 0) {
      p->e->nodes[i].var = (unsigned char)var;
      if (var + 1 > p->e->dims_used) p->e->dims_used = var + 1;
    }
    return i;
  }
  if (var == -2) {
    fail(p, GQ_EPARSE, col, "no variable '%.*s%s': variables are x1 ... x%d",
         QUOTE(p, col, len), GQ_EXPR_MAX_DIMS);
    return -1;
  }
  if (len == 2 && !memcmp(name, "pi", 2)) return new_num(p, GQ_EXPR_PI, GQ_NUM_PI, col);
  if (len == 1 && name[0] == 'e') return new_num(p, GQ_EXPR_E, GQ_NUM_E, col);
  for (size_t i = 0; i < p->nparams; i++)
    if (p->params[i].len == len && !memcmp(p->params[i].name, name, len)) {
      p->params[i].used = 1;
      if (!p->symbolic) {
        const int v = new_num(p, p->params[i].value, GQ_NUM_PARAM, col);
        if (v >= 0) p->e->nodes[v].param = (unsigned char)(i + 1);
        return v;
      }
      const int v = new_node(p, GQ_OP_VAR, col, -1, -1, -1);
      if (v >= 0) {
        p->e->nodes[v].var = (unsigned char)(p->max_dims + (int)i);
        if (p->max_dims + (int)i + 1 > p->e->dims_used) p->e->dims_used = p->max_dims + (int)i + 1;
      }
      return v;
    }
  /* Suggest among plain names and parameter names. */
  const char *extra[GQ_EXPR_MAX_PARAMS];
  char extra_buf[GQ_EXPR_MAX_PARAMS][GQ_EXPR_MAX_NAME + 1];
  for (size_t i = 0; i < p->nparams; i++) {
    memcpy(extra_buf[i], p->params[i].name, p->params[i].len);
    extra_buf[i][p->params[i].len] = '\0';
    extra[i] = extra_buf[i];
  }
  const char *hint = gq_expr_suggest(name, len, extra, p->nparams, 0);
  if (!hint) hint = gq_expr_suggest(name, len, NULL, 0, 1);
  if (hint)
    fail(p, GQ_EPARSE, col, "unknown name '%.*s%s' (did you mean '%s'?)",
         QUOTE(p, col, len), hint);
  else
    fail(p, GQ_EPARSE, col, "unknown name '%.*s%s'", QUOTE(p, col, len));
  return -1;
}

static int parse_primary(parser *p)
{
  if (p->tok == T_NUM) {
    int i = new_num(p, p->tok_num, GQ_NUM_LITERAL, p->tok_col);
    next(p);
    return i;
  }
  if (p->tok == T_IDENT) return parse_identifier(p);
  if (p->tok == T_LP) {
    size_t open_col = p->tok_col;
    next(p);
    int i = parse_comparison(p);
    if (i < 0) return -1;
    if (p->tok == T_END) {
      fail(p, GQ_EPARSE, open_col, "unbalanced parentheses: '(' is never closed");
      return -1;
    }
    if (p->tok != T_RP) {
      char got[80];
      describe_token(p, got, sizeof got);
      fail(p, GQ_EPARSE, p->tok_col, "expected ')' or an operator, got %s", got);
      return -1;
    }
    next(p);
    return i;
  }
  if (p->tok != T_ERROR) expect_operand(p);
  return -1;
}

static int parse_power(parser *p)
{
  int base = parse_primary(p);
  if (base < 0 || p->tok != T_CARET) return base;
  size_t col = p->tok_col;
  next(p);
  int expo = parse_unary(p);  /* right-associative, and 2^-1 is allowed */
  if (expo < 0) return -1;
  return new_node(p, GQ_OP_CARET, col, base, expo, -1);
}

static int parse_unary(parser *p)
{
  int r;
  if (++p->nest > GQ_EXPR_MAX_NEST) {
    fail(p, GQ_EPARSE, p->tok_col, "expression is nested too deeply (limit %d)",
         GQ_EXPR_MAX_NEST);
    return -1;
  }
  if (p->tok == T_MINUS || p->tok == T_PLUS) {
    int neg = p->tok == T_MINUS;
    size_t col = p->tok_col;
    next(p);
    r = parse_unary(p);
    if (r >= 0 && neg && p->e->nodes[r].op == GQ_OP_NUM &&
        (p->e->nodes[r].numkind == GQ_NUM_LITERAL ||
         p->e->nodes[r].numkind == GQ_NUM_PARAM)) {
      /* -2 is the number -2, the same node as a parameter of value -2, so
       * that the canonical text (which prints either as -2) reads back to
       * the same tree. */
      p->e->nodes[r].cval = -p->e->nodes[r].cval;
      p->e->nodes[r].negated ^= 1;
      p->e->nodes[r].col = col;
    } else if (r >= 0 && neg) {
      r = new_node(p, GQ_OP_NEG, col, r, -1, -1);
    }
  } else {
    r = parse_power(p);
  }
  p->nest--;
  return r;
}

static int parse_product(parser *p)
{
  int l = parse_unary(p);
  while (l >= 0 && (p->tok == T_STAR || p->tok == T_SLASH)) {
    int op = p->tok == T_STAR ? GQ_OP_MUL : GQ_OP_DIV;
    size_t col = p->tok_col;
    next(p);
    int r = parse_unary(p);
    l = r < 0 ? -1 : new_node(p, op, col, l, r, -1);
  }
  return l;
}

static int parse_sum(parser *p)
{
  int l = parse_product(p);
  while (l >= 0 && (p->tok == T_PLUS || p->tok == T_MINUS)) {
    int op = p->tok == T_PLUS ? GQ_OP_ADD : GQ_OP_SUB;
    size_t col = p->tok_col;
    next(p);
    int r = parse_product(p);
    l = r < 0 ? -1 : new_node(p, op, col, l, r, -1);
  }
  return l;
}

static int comparison_op(int tok)
{
  switch (tok) {
  case T_LT: return GQ_OP_LT;
  case T_LE: return GQ_OP_LE;
  case T_GT: return GQ_OP_GT;
  case T_GE: return GQ_OP_GE;
  case T_EQ: return GQ_OP_EQ;
  case T_NE: return GQ_OP_NE;
  default: return -1;
  }
}

/* Comparisons do not chain: 0 < x < 1 would silently mean (0 < x) < 1. */
static int parse_comparison(parser *p)
{
  int l = parse_sum(p), op;
  if (l < 0 || (op = comparison_op(p->tok)) < 0) return l;
  size_t col = p->tok_col;
  next(p);
  int r = parse_sum(p);
  if (r < 0) return -1;
  if (comparison_op(p->tok) >= 0) {
    fail(p, GQ_EPARSE, p->tok_col,
         "comparisons do not chain; write (a < b)*(b < c)");
    return -1;
  }
  return new_node(p, op, col, l, r, -1);
}

/* ---- parameters ------------------------------------------------------ */

static int fail_param(parser *p, size_t index, size_t col, const char *fmt,
                      ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail_param(parser *p, size_t index, size_t col, const char *fmt,
                      ...)
{
  va_list ap;
  p->failed = 1;
  p->status = GQ_EINVAL;
  if (!p->err) return GQ_EINVAL;
  gq_expr_set_error(p->err, GQ_EINVAL, GQ_EXPR_IN_PARAM, index, col, "-");
  va_start(ap, fmt);
  vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
  va_end(ap);
  return GQ_EINVAL;
}

static int parse_params(parser *p, const gq_expr_params *params)
{
  if (!params || params->count == 0) return GQ_SUCCESS;
  if (!params->defs)
    return fail_param(p, 0, 0, "%zu parameters but no definitions (NULL)", params->count);
  if (params->count > GQ_EXPR_MAX_PARAMS)
    return fail_param(p, 0, 0, "too many parameters (limit %d)", GQ_EXPR_MAX_PARAMS);
  p->params = calloc(params->count, sizeof *p->params);
  if (!p->params) {
    fail_nomem(p);
    return GQ_ENOMEM;
  }
  for (size_t k = 0; k < params->count; k++) {
    const char *def = params->defs[k];
    if (!def) return fail_param(p, k, 0, "missing parameter definition");
    size_t ns = 0, ne, vs;
    while (is_space((unsigned char)def[ns])) ns++;
    ne = ns;
    while (is_ident_char((unsigned char)def[ne])) ne++;
    size_t eq = ne;
    while (is_space((unsigned char)def[eq])) eq++;
    if (def[eq] != '=')
      return fail_param(p, k, eq, "expected name=value");
    if (ne == ns || !is_ident_start((unsigned char)def[ns]))
      return fail_param(p, k, ns,
                        "parameter name must start with a letter or '_'");
    int nlen = (int)(ne - ns);
    if (ne - ns > GQ_EXPR_MAX_NAME)
      return fail_param(p, k, ns, "parameter name '%.20s...' is too long "
                        "(limit %d characters)", def + ns, GQ_EXPR_MAX_NAME);
    if (gq_expr_is_reserved(def + ns, ne - ns))
      return fail_param(p, k, ns,
                        "'%.*s' is a built-in name and cannot be a "
                        "parameter",
                        nlen, def + ns);
    for (size_t j = 0; j < k; j++)
      if (p->params[j].len == ne - ns &&
          !memcmp(p->params[j].name, def + ns, ne - ns))
        return fail_param(p, k, ns, "parameter '%.*s' is defined twice",
                          nlen, def + ns);
    vs = eq + 1;
    while (is_space((unsigned char)def[vs])) vs++;
    /* Our number grammar, or the constants pi and e as the limits accept
     * them, with an optional sign, so that "0x10", "inf" and "nan" are
     * refused here as they are in expressions. */
    size_t i = vs;
    if (def[i] == '+' || def[i] == '-') i++;
    size_t named = 0;
    double named_value = 0.0;
    if (def[i] == 'p' && def[i + 1] == 'i')
      named = 2, named_value = GQ_EXPR_PI;
    else if (def[i] == 'e')
      named = 1, named_value = GQ_EXPR_E;
    if (named && !is_ident_char((unsigned char)def[i + named])) {
      size_t end = i + named;
      while (is_space((unsigned char)def[end])) end++;
      if (def[end] == '\0') {
        p->params[k].name = def + ns;
        p->params[k].len = ne - ns;
        p->params[k].value = def[vs] == '-' ? -named_value : named_value;
        continue;
      }
    }
    int digits = 0;
    while (is_digit((unsigned char)def[i])) i++, digits++;
    if (def[i] == '.') {
      i++;
      while (is_digit((unsigned char)def[i])) i++, digits++;
    }
    if (digits && (def[i] == 'e' || def[i] == 'E')) {
      size_t j = i + 1;
      if (def[j] == '+' || def[j] == '-') j++;
      if (is_digit((unsigned char)def[j])) {
        while (is_digit((unsigned char)def[j])) j++;
        i = j;
      } else {
        digits = 0;
      }
    }
    size_t end = i;
    while (is_space((unsigned char)def[end])) end++;
    double v = digits ? strtod(def + vs, NULL) : 0.0;
    if (!digits || def[end] != '\0' || !isfinite(v))
      return fail_param(p, k, vs,
                        "bad value for parameter '%.*s': expected a finite "
                        "number, pi or e",
                        nlen, def + ns);
    p->params[k].name = def + ns;
    p->params[k].len = ne - ns;
    p->params[k].value = v;
  }
  p->nparams = params->count;
  return GQ_SUCCESS;
}

/* ---- entry ----------------------------------------------------------- */

/* Refuse what the canonical text could not be read back as: parameter
 * values are printed as numbers and -2 needs a '-' that a name did not.
 * The bound (every number at its longest) settles most expressions
 * without formatting a number. */
int gq_expr_check_text(const gq_expr *e, gq_expr_error *err)
{
  size_t length;
  int nesting;
  gq_expr_measure_text_bound(e, &length, &nesting);
  if (length > GQ_EXPR_MAX_LEN && nesting <= GQ_EXPR_MAX_NEST)
    gq_expr_measure_text(e, &length, &nesting);
  if (nesting > GQ_EXPR_MAX_NEST) {
    gq_expr_set_error(err, GQ_EPARSE, GQ_EXPR_IN_TEXT, 0, 0, "expression is nested too deeply (limit %d)",
                      GQ_EXPR_MAX_NEST);
    return GQ_EPARSE;
  }
  if (length > GQ_EXPR_MAX_LEN) {
    gq_expr_set_error(err, GQ_EPARSE, GQ_EXPR_IN_TEXT, 0, 0,
                      "expression is too long once written out (limit %d characters; parameters are "
                      "written as numbers)", GQ_EXPR_MAX_LEN);
    return GQ_EPARSE;
  }
  return GQ_SUCCESS;
}


static int parse(const char *text, const gq_expr_params *params, int max_dims, int symbolic, gq_expr **out,
                 gq_expr_error *err)
{
  parser p;
  int root, status;
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  if (!text || !out || max_dims < 1 || max_dims > GQ_EXPR_MAX_DIMS) {
    gq_expr_set_error(err, GQ_EINVAL, GQ_EXPR_IN_TEXT, 0, 0,
                      "invalid arguments to gq_expr_parse");
    return GQ_EINVAL;
  }
  memset(&p, 0, sizeof p);
  p.text = text;
  p.max_dims = max_dims;
  p.err = err;
  /* strnlen: never walk a hostile string further than the limit. */
  p.len = strnlen(text, GQ_EXPR_MAX_LEN + 1);
  if (p.len > GQ_EXPR_MAX_LEN) {
    gq_expr_set_error(err, GQ_EPARSE, GQ_EXPR_IN_TEXT, 0, GQ_EXPR_MAX_LEN,
                      "expression is too long (limit %d characters)",
                      GQ_EXPR_MAX_LEN);
    return GQ_EPARSE;
  }
  p.symbolic = symbolic;
  status = parse_params(&p, params);
  if (status != GQ_SUCCESS) {
    free(p.params);
    return status;
  }
  p.e = calloc(1, sizeof *p.e);
  if (!p.e) {
    free(p.params);
    fail_nomem(&p);
    return GQ_ENOMEM;
  }
  next(&p);
  if (p.tok == T_END) {
    fail(&p, GQ_EPARSE, p.tok_col, "empty expression");
    root = -1;
  } else {
    root = parse_comparison(&p);
  }
  if (root >= 0 && p.tok != T_END) {
    if (p.tok == T_RP) {
      fail(&p, GQ_EPARSE, p.tok_col, "unbalanced parentheses: unexpected ')'");
    } else {
      char got[80];
      describe_token(&p, got, sizeof got);
      fail(&p, GQ_EPARSE, p.tok_col,
           "unexpected %s after a complete expression (missing operator?)",
           got);
    }
  }
  for (size_t k = 0; !p.failed && k < p.nparams; k++)
    if (!p.params[k].used) {
      fail_param(&p, k, (size_t)(p.params[k].name - params->defs[k]),
                 "parameter '%.*s' is defined but not used in the expression",
                 (int)p.params[k].len, p.params[k].name);
    }
  if (!p.failed && p.symbolic) {
    p.e->param_base = max_dims;
    p.e->nparams = (int)p.nparams;
    for (size_t k = 0; k < p.nparams; k++) p.e->params[k] = p.params[k].value;
  }
  free(p.params);
  if (!p.failed) {
    p.e->root = root;
    p.e->nvalues = p.symbolic ? 0 : (int)p.nparams;
    if (gq_expr_check_text(p.e, err) != GQ_SUCCESS) {
      p.failed = 1;
      p.status = GQ_EPARSE;
    }
  }
  if (!p.failed) {
    if (gq_expr_compile(p.e) != GQ_SUCCESS) fail_nomem(&p);
  }
  if (p.failed) {
    gq_expr_free(p.e);
    return p.status;
  }
  *out = p.e;
  return GQ_SUCCESS;
}

int gq_expr_parse(const char *text, const gq_expr_params *params,
                  int max_dims, gq_expr **out, gq_expr_error *err)
{
  return parse(text, params, max_dims, 0, out, err);
}

int gq_expr_parse_symbolic(const char *text, const gq_expr_params *params,
                           int max_dims, gq_expr **out, gq_expr_error *err)
{
  return parse(text, params, max_dims, 1, out, err);
}
