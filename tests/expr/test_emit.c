/* test_emit.c — the CUDA emitter prints only whitelisted identifiers and
 * exact numbers, never user text (nvcc compilation: test_emit_nvcc.sh). */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"
#include "../tap.h"

static const char *const allowed[] = {
  "__device__", "__forceinline__", "double", "float", "const", "return",
  "if", "else", "void", "x", "__longlong_as_double", "__int_as_float",
  "LL", "ULL", "u", "long", "int", "f", "e",
  "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
  "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10",
  "log1p", "sqrt", "cbrt", "fabs", "floor", "ceil", "erf", "erfc", "tgamma",
  "lgamma", "atan2", "pow", "hypot", "fmin", "fmax",
  "sinf", "cosf", "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf",
  "tanhf", "asinhf", "acoshf", "atanhf", "expf", "exp2f", "expm1f", "logf",
  "log2f", "log10f", "log1pf", "sqrtf", "cbrtf", "fabsf", "floorf", "ceilf",
  "erff", "erfcf", "tgammaf", "lgammaf", "atan2f", "powf", "hypotf", "fminf",
  "fmaxf", "integrand",
  /* words of the one fixed comment */
  "a", "folded", "expression", "may", "not", "read",
};

/* Every identifier outside numbers is whitelisted or a temporary t<N>. */
static int only_whitelisted(const char *src, char *bad, size_t badsize)
{
  const char *p = src;
  while (*p) {
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
      /* a number, with its exponent and suffix; hex after 0x */
      if (p[0] == '0' && p[1] == 'x') {
        p += 2;
        while (isxdigit((unsigned char)*p)) p++;
      } else {
        while (isdigit((unsigned char)*p) || *p == '.') p++;
        if (*p == 'e' && (p[1] == '-' || p[1] == '+' || isdigit((unsigned char)p[1]))) {
          p += 2;
          while (isdigit((unsigned char)*p)) p++;
        }
      }
      while (*p == 'f' || *p == 'L' || *p == 'U' || *p == 'u') p++;
      continue;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
      const char *s = p;
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      size_t len = (size_t)(p - s);
      int good = s[0] == 't' && len > 1 && strspn(s + 1, "0123456789") == len - 1;
      for (size_t i = 0; !good && i < sizeof allowed / sizeof allowed[0]; i++)
        good = strlen(allowed[i]) == len && !memcmp(allowed[i], s, len);
      if (!good) {
        snprintf(bad, badsize, "%.*s", (int)len, s);
        return 0;
      }
      continue;
    }
    p++;
  }
  return 1;
}

static char *emit(const char *text, const char *const *defs, size_t ndefs,
                  int use_float)
{
  gq_expr_params params = {defs, ndefs};
  gq_expr *e;
  gq_expr_error err;
  char *src = NULL;
  if (gq_expr_parse(text, &params, 16, &e, &err) != GQ_SUCCESS) {
    diag("%s: %s", text, err.message);
    return NULL;
  }
  if (gq_expr_emit_cuda(e, "integrand", use_float, &src) != GQ_SUCCESS) src = NULL;
  gq_expr_free(e);
  return src;
}

int main(void)
{
  static const char *defs[] = {"kappa_zz=0.1", "omega=-2.5e-3", "Q=12"};
  static const char *texts[] = {
    "kappa_zz*x + omega*y^2 - Q", "exp(-x*x)*cos(3*x)",
    "sin(x)+cos(x)+tan(x)+asin(x)+acos(x)+atan(x)+sinh(x)+cosh(x)+tanh(x)"
    "+asinh(x)+acosh(x)+atanh(x)+exp(x)+exp2(x)+expm1(x)+log(x)+log2(x)"
    "+log10(x)+log1p(x)+sqrt(x)+cbrt(x)+abs(x)+floor(x)+ceil(x)+erf(x)"
    "+erfc(x)+tgamma(x)+lgamma(x)+atan2(x,y)+pow(x,y)+hypot(x,y)+min(x,y)"
    "+max(x,y)+if(x<y,x^-3,x^2.5)+(x<=y)+(x>=y)+(x==y)+(x!=y)+(x>y)",
    "1/0 - 1/0 + 0/0 + pi + e", "x16 - x1", "if(x, y, z)",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    for (int fl = 0; fl < 2; fl++) {
      char bad[80] = "";
      char *src = emit(texts[i], defs, i == 0 ? 3 : 0, fl);
      if (!tap_ok(src && only_whitelisted(src, bad, sizeof bad),
              "%s emission of '%.40s' has only whitelisted names",
              fl ? "float" : "double", texts[i]))
        diag("offending identifier: %s", bad);
      if (i == 0 && src) {
        tap_ok(!strstr(src, "kappa") && !strstr(src, "omega") && !strstr(src, "Q"),
           "%s: parameter names do not appear", fl ? "float" : "double");
        tap_ok(strstr(src, fl ? "0.100000001f" : "0.10000000000000001") != NULL,
           "%s: parameter value is inlined exactly", fl ? "float" : "double");
        tap_ok(strstr(src, fl ? "(-0.00249999994f)" : "(-0.0025000000000000001)") != NULL,
           "%s: negative parameter is parenthesised", fl ? "float" : "double");
        tap_ok(strstr(src, fl ? "float integrand(const float *x)"
                          : "double integrand(const double *x)") != NULL,
           "%s: signature", fl ? "float" : "double");
      }
      free(src);
    }

  /* Integer powers are multiplication chains; others call pow. */
  char *src = emit("x^8 + x^2.5", NULL, 0, 0);
  tap_ok(src && strstr(src, "pow(x[0], 2.5)") && !strstr(src, ", 8"),
     "x^8 is a multiplication chain and x^2.5 calls pow");
  free(src);
  src = emit("if(x < 1, sin(x), cos(x))", NULL, 0, 0);
  tap_ok(src && strstr(src, "if (t0 != 0.0) {") && strstr(src, "} else {"),
     "if() becomes a branch");
  free(src);

  /* Bad function names are refused. */
  gq_expr *e;
  char *out = (char *)"sentinel";
  gq_expr_parse("x", NULL, 1, &e, NULL);
  tap_ok(gq_expr_emit_cuda(e, "f(x)", 0, &out) == GQ_EINVAL && out == NULL,
     "function name with punctuation is refused");
  tap_ok(gq_expr_emit_cuda(e, "", 0, &out) == GQ_EINVAL, "empty function name is refused");
  tap_ok(gq_expr_emit_cuda(e, "9f", 0, &out) == GQ_EINVAL, "name starting with a digit is refused");
  tap_ok(gq_expr_emit_cuda(e, NULL, 0, &out) == GQ_EINVAL, "NULL function name is refused");
  tap_ok(gq_expr_emit_cuda(e, "_ok9", 0, &out) == GQ_SUCCESS && out, "_ok9 is accepted");
  free(out);
  gq_expr_free(e);
  return tap_done();
}
