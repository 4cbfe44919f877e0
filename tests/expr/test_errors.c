/* test_errors.c — every error path: status, message, column, and that a
 * failed parse leaves nothing behind (run under valgrind). */
#include <stdlib.h>
#include <string.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"
#include "../tap.h"

typedef struct {
  const char *text;
  int max_dims;
  const char *const *defs;
  size_t ndefs;
  int status, where;
  size_t param_index, column;
  const char *message;  /* substring */
} error_case;

static void check(const error_case *c)
{
  gq_expr_params params = {c->defs, c->ndefs};
  gq_expr *e = (gq_expr *)&params;  /* must be reset to NULL */
  gq_expr_error err;
  int s = gq_expr_parse(c->text, c->ndefs ? &params : NULL, c->max_dims, &e,
                        &err);
  int good = s == c->status && err.status == c->status && e == NULL &&
             err.where == c->where && err.column == c->column &&
             strstr(err.message, c->message) != NULL &&
             (c->where == GQ_EXPR_IN_TEXT || err.param_index == c->param_index);
  char shown[64];
  snprintf(shown, sizeof shown, "%.40s%s", c->text,
           strlen(c->text) > 40 ? "..." : "");
  if (!tap_ok(good, "error for '%s': %s", shown, c->message))
    diag("status %d col %zu where %d idx %zu: %s", s, err.column, err.where,
         err.param_index, err.message);
  if (s == GQ_SUCCESS) gq_expr_free(e);
}

static char *repeat(const char *pre, const char *unit, int n, const char *post)
{
  size_t len = strlen(pre) + strlen(unit) * (size_t)n + strlen(post) + 1;
  char *s = malloc(len);
  strcpy(s, pre);
  for (int i = 0; i < n; i++) strcat(s, unit);
  strcat(s, post);
  return s;
}

#define T GQ_EXPR_IN_TEXT
#define P GQ_EXPR_IN_PARAM
#define EP GQ_EPARSE
#define EI GQ_EINVAL

int main(void)
{
  static const char *k34[] = {"k=3", "k=4"};
  static const char *k3[] = {"k=3"};
  static const char *kabc[] = {"k=abc"};
  static const char *kinf[] = {"k=inf"};
  static const char *kbig[] = {"k=1e999"};
  static const char *khex[] = {"k=0x10"};
  static const char *kempty[] = {"k="};
  static const char *ktrail[] = {"k=1.5 2"};
  static const char *sin3[] = {"sin=3"};
  static const char *x2p[] = {"x2=1"};
  static const char *pip[] = {"pi=3"};
  static const char *digit[] = {"3k=1"};
  static const char *noeq[] = {"k"};
  static const char *longname[] = {"abcdefghijklmnopqrstuvwxyz_abcdefghij=1"};
  static const char *kappa[] = {"kappa=2"};
  static const error_case cases[] = {
    {"sinn(x)", 1, NULL, 0, EP, T, 0, 0, "unknown function 'sinn' (did you mean 'sin'?)"},
    {"2*sqr(x)", 1, NULL, 0, EP, T, 0, 2, "(did you mean 'sqrt'?)"},
    {"2*foobar(x)", 1, NULL, 0, EP, T, 0, 2, "unknown function 'foobar'"},
    {"atan2(x)", 1, NULL, 0, EP, T, 0, 0, "'atan2' takes 2 arguments, got 1"},
    {"1+sin(x, 1)", 1, NULL, 0, EP, T, 0, 2, "'sin' takes 1 argument, got 2"},
    {"if(x,1)", 1, NULL, 0, EP, T, 0, 0, "'if' takes 3 arguments, got 2"},
    {"if(x,1,2,3,4)", 1, NULL, 0, EP, T, 0, 0, "'if' takes 3 arguments, got 5"},
    {"sin()", 1, NULL, 0, EP, T, 0, 0, "'sin' takes 1 argument, got 0"},
    {"(x+1", 1, NULL, 0, EP, T, 0, 0, "'(' is never closed"},
    {"2*(x+(1)", 1, NULL, 0, EP, T, 0, 2, "'(' is never closed"},
    {"1+sin(x", 1, NULL, 0, EP, T, 0, 5, "'(' of 'sin' is never closed"},
    {"x+1)", 1, NULL, 0, EP, T, 0, 3, "unbalanced parentheses: unexpected ')'"},
    {"(x))", 1, NULL, 0, EP, T, 0, 3, "unexpected ')'"},
    {"x 2", 1, NULL, 0, EP, T, 0, 2, "unexpected number '2'"},
    {"2x", 1, NULL, 0, EP, T, 0, 1, "unexpected 'x' after a complete expression"},
    {"1.5.3", 1, NULL, 0, EP, T, 0, 3, "unexpected number '.3'"},
    {"", 1, NULL, 0, EP, T, 0, 0, "empty expression"},
    {"   ", 1, NULL, 0, EP, T, 0, 3, "empty expression"},
    {"x+", 1, NULL, 0, EP, T, 0, 2, "got end of expression"},
    {"x*/2", 1, NULL, 0, EP, T, 0, 2, "got '/'"},
    {"()", 1, NULL, 0, EP, T, 0, 1, "expected an operand before ')'"},
    {"sin(x,)", 1, NULL, 0, EP, T, 0, 6, "expected an operand before ')'"},
    {"1e999", 1, NULL, 0, EP, T, 0, 0, "number '1e999' is too large"},
    {"2*1.8e308", 1, NULL, 0, EP, T, 0, 2, "too large"},
    {"1e", 1, NULL, 0, EP, T, 0, 1, "exponent needs digits"},
    {"1e+", 1, NULL, 0, EP, T, 0, 1, "exponent needs digits"},
    {"x+.", 1, NULL, 0, EP, T, 0, 2, "'.' needs a digit"},
    {"y", 1, NULL, 0, EP, T, 0, 0, "variable 'y' needs 2 dimensions; only x is allowed"},
    {"x1+x4", 3, NULL, 0, EP, T, 0, 3, "variable 'x4' needs 4 dimensions; only 3 are allowed"},
    {"x17", 16, NULL, 0, EP, T, 0, 0, "no variable 'x17'"},
    {"x0", 16, NULL, 0, EP, T, 0, 0, "no variable 'x0'"},
    {"x99999999999999999999", 16, NULL, 0, EP, T, 0, 0, "no variable"},
    {"q+1", 1, NULL, 0, EP, T, 0, 0, "unknown name 'q'"},
    {"2*xx", 1, NULL, 0, EP, T, 0, 2, "unknown name 'xx' (did you mean 'x'?)"},
    {"pie", 1, NULL, 0, EP, T, 0, 0, "(did you mean 'pi'?)"},
    {"sine", 1, NULL, 0, EP, T, 0, 0, "(did you mean 'sin'?)"},
    {"sin", 1, NULL, 0, EP, T, 0, 0, "'sin' is a function: write sin(...)"},
    {"2*x(1+x)", 1, NULL, 0, EP, T, 0, 2, "'x' is not a function (missing '*'?)"},
    {"pi(2)", 1, NULL, 0, EP, T, 0, 0, "'pi' is not a function"},
    {"x = 1", 1, NULL, 0, EP, T, 0, 2, "use == to compare"},
    {"!x", 1, NULL, 0, EP, T, 0, 0, "use != to compare"},
    {"x ** 2", 1, NULL, 0, EP, T, 0, 2, "use ^ for powers"},
    {"0 < x < 1", 1, NULL, 0, EP, T, 0, 6, "comparisons do not chain"},
    {"x # 1", 1, NULL, 0, EP, T, 0, 2, "unexpected character '#'"},
    {"x \x01", 1, NULL, 0, EP, T, 0, 2, "unexpected byte 0x01"},
    {"x\xc3\xa9", 1, NULL, 0, EP, T, 0, 1, "unexpected byte 0xc3"},
    {"x, 1", 1, NULL, 0, EP, T, 0, 1, "unexpected ','"},
    {"k*x", 1, k34, 2, EI, P, 1, 0, "parameter 'k' is defined twice"},
    {"x", 1, k3, 1, EI, P, 0, 0, "parameter 'k' is defined but not used"},
    {"k*x", 1, kabc, 1, EI, P, 0, 2, "bad value for parameter 'k'"},
    {"k*x", 1, kinf, 1, EI, P, 0, 2, "bad value"},
    {"k*x", 1, kbig, 1, EI, P, 0, 2, "bad value"},
    {"k*x", 1, khex, 1, EI, P, 0, 2, "bad value"},
    {"k*x", 1, kempty, 1, EI, P, 0, 2, "bad value"},
    {"k*x", 1, ktrail, 1, EI, P, 0, 2, "bad value"},
    {"x", 1, sin3, 1, EI, P, 0, 0, "'sin' is a built-in name"},
    {"x", 1, x2p, 1, EI, P, 0, 0, "'x2' is a built-in name"},
    {"x", 1, pip, 1, EI, P, 0, 0, "'pi' is a built-in name"},
    {"x", 1, digit, 1, EI, P, 0, 0, "must start with a letter"},
    {"x", 1, noeq, 1, EI, P, 0, 1, "expected name=value"},
    {"x", 1, longname, 1, EI, P, 0, 0, "is too long"},
    {"kapa*x", 1, kappa, 1, EP, T, 0, 0, "unknown name 'kapa' (did you mean 'kappa'?)"},
    {"kappa(x)", 1, kappa, 1, EP, T, 0, 0, "parameter 'kappa' is not a function"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check(&cases[i]);

  /* Generated hostile inputs. */
  struct { char *text; size_t column; const char *message; } big[] = {
    {repeat("", "(", 300, "x"), 200, "nested too deeply (limit 200)"},
    {repeat("", "-", 300, "x"), 200, "nested too deeply"},
    {repeat("", "sin(", 300, "x"), 800, "nested too deeply"},
    {repeat("x", "^x", 300, ""), 400, "nested too deeply"},
    {repeat("1", "+1", 1200, ""), 1999, "too complex: more than 1000 levels"},
    {repeat("x", "*x", 1100, ""), 1999, "too complex"},
    {repeat("", " ", 70000, "x"), 65536, "too long (limit 65536 characters)"},
  };
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
    error_case c = {big[i].text, 1, NULL, 0, EP, T, 0, big[i].column,
                    big[i].message};
    check(&c);
    free(big[i].text);
  }
  /* Just under the limits parses. */
  {
    char *deep = repeat("", "(", 199, "x");
    char *d2 = repeat(deep, ")", 199, "");
    gq_expr *e = NULL;
    tap_ok(gq_expr_parse(d2, NULL, 1, &e, NULL) == GQ_SUCCESS,
       "199 nested parentheses parse");
    gq_expr_free(e);
    free(deep);
    free(d2);
    char *chain = repeat("1", "+x", 998, "");
    e = NULL;
    tap_ok(gq_expr_parse(chain, NULL, 1, &e, NULL) == GQ_SUCCESS,
       "a sum of 999 terms parses");
    gq_expr_free(e);
    free(chain);
  }

  /* API misuse. */
  gq_expr *e = NULL;
  gq_expr_error err;
  tap_ok(gq_expr_parse(NULL, NULL, 1, &e, &err) == GQ_EINVAL && e == NULL,
     "NULL text is GQ_EINVAL");
  tap_ok(gq_expr_parse("x", NULL, 0, &e, &err) == GQ_EINVAL, "max_dims 0 is GQ_EINVAL");
  tap_ok(gq_expr_parse("x", NULL, 17, &e, &err) == GQ_EINVAL, "max_dims 17 is GQ_EINVAL");
  tap_ok(gq_expr_parse("x", NULL, 1, NULL, &err) == GQ_EINVAL, "NULL out is GQ_EINVAL");
  tap_ok(gq_expr_parse("sinn(x)", NULL, 1, &e, NULL) == GQ_EPARSE,
     "status without an error struct");
  tap_ok(gq_expr_parse("x", NULL, 1, &e, NULL) == GQ_SUCCESS, "err may be NULL");
  gq_expr_free(e);
  gq_expr_free(NULL);
  {
    static const char *k3b[] = {"k=3"};
    gq_expr_params p = {k3b, 1};
    tap_ok(gq_expr_parse("x", &p, 1, &e, NULL) == GQ_EINVAL,
       "parameter status without an error struct");
  }

  /* Caret line. */
  {
    char buf[128];
    gq_expr_parse("exp(-x*)", NULL, 1, &e, &err);
    gq_expr_error_caret("exp(-x*)", &err, buf, sizeof buf);
    if (!tap_ok(strcmp(buf, "  exp(-x*)\n         ^") == 0, "caret under column 7"))
      diag("[%s] col %zu", buf, err.column);
    gq_expr_error_caret("exp(-x*)", &err, buf, 5);
    tap_ok(strlen(buf) == 4, "caret output is truncated to the buffer");
  }
  return tap_done();
}
