/* trig_tool.c — writes one C++ program that checks the rotation's
 * functions (gq_expr_emit_cuda_trig: sines, cosines and exponentials) against the plain emitted function of
 * each expression given, for test_trig.sh.  An expression is given as
 * "N:TEXT" (N: the number of rotated terms expected) or "sN:TEXT" (parsed
 * with symbolic parameters k=-2.5, w=1e-3, read from gq_params).  The
 * program, compiled as C++ for the host (the CUDA qualifiers defined away),
 * checks at points near and far from 0:
 *   - Trig::g(x, sc), with sc the sines and cosines (or exponentials) of
 *     Trig::args(x), is
 *     the plain function's value to the bit (the same arguments, the same
 *     operations around them);
 *   - Trig::slopes gives each argument's coefficient of x: the arguments at
 *     two points differ by it times their distance, to rounding.
 * Usage: trig_tool OUT.cpp SPEC... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"

static const char prelude[] =
    "#include <math.h>\n#include <stdio.h>\n#include <string.h>\n"
    "#define __device__\n#define __forceinline__ inline\n"
    "static inline double __longlong_as_double(long long v) { double d; memcpy(&d, &v, sizeof d); return d; }\n"
    "static double gq_params[64];\n"
    "static int n_tests = 0, failed = 0;\n"
    "static void ok(int good, const char *what, const char *expr, double x, double got, double want) {\n"
    "  n_tests++;\n"
    "  if (!good) { failed = 1; printf(\"not ok %d - %s: %s at x = %.17g: %.17g, want %.17g\\n\", n_tests, what, expr, x, got, want); }\n"
    "  else printf(\"ok %d - %s: %s at x = %.17g\\n\", n_tests, what, expr, x);\n"
    "}\n"
    "static int same(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }\n";

int main(int argc, char **argv)
{
  const char *defs[] = {"k=-2.5", "w=1e-3"};
  FILE *f;
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUT.cpp SPEC...\n", argv[0]);
    return 99;
  }
  f = fopen(argv[1], "w");
  if (!f) return 99;
  fputs(prelude, f);
  for (int i = 2; i < argc; i++) {
    const char *spec = argv[i], *colon = strchr(spec, ':');
    const int symbolic = spec[0] == 's';
    const int want = atoi(spec + symbolic);
    gq_expr_params params = {defs, 2};
    gq_expr *e;
    gq_expr_error err;
    char *plain = NULL, *trig = NULL;
    if (!colon) return 99;
    const char *text = colon + 1;
    int st = symbolic ? gq_expr_parse_symbolic(text, &params, 1, &e, &err) : gq_expr_parse(text, &params, 1, &e, &err);
    if (st != GQ_SUCCESS) st = gq_expr_parse(text, NULL, 1, &e, &err);
    if (st != GQ_SUCCESS) {
      fprintf(stderr, "trig_tool: '%s': %s\n", text, err.message);
      return 99;
    }
    const int sym = symbolic && gq_expr_param_values(e, &(const double *){NULL}) > 0;
    const int count = gq_expr_trig_count(e, sym);
    if ((sym ? gq_expr_emit_cuda_params(e, "plain", 0, &plain) : gq_expr_emit_cuda(e, "plain", 0, &plain)) != GQ_SUCCESS ||
        gq_expr_emit_cuda_trig(e, sym, &trig) != GQ_SUCCESS)
      return 99;
    fprintf(f, "namespace e%d {\n%s%s}\n", i, plain, trig ? trig : "");
    fprintf(f, "static void check%d(void) {\n  const char *text = \"%s\";\n", i, text);
    fprintf(f, "  ok(%d == %d, \"rotated terms (want %d)\", text, 0, %d, %d);\n", count, want, want, count, want);
    if (sym) {
      const double *v = NULL;
      const int n = gq_expr_param_values(e, &v);
      for (int j = 0; j < n; j++) fprintf(f, "  gq_params[%d] = %.17g;\n", j, v[j]);
    }
    if (trig) {
      fprintf(f, "  using T = e%d::Trig;\n"
                 "  const double xs[] = {-3.25, -0.5, 0.0, 1e-3, 0.375, 1.0, 2.5, 117.0, 1e5 + 0.25};\n"
                 "  for (double x : xs) {\n"
                 "    double th[T::TERMS], sc[2 * T::TERMS];\n"
                 "    T::args(&x, th);\n"
                 "    for (int j = 0; j < T::TERMS; j++) {\n"
                 "      const bool e = (T::EXP >> j) & 1u;\n"
                 "      sc[2 * j] = e ? exp(th[j]) : sin(th[j]);\n"
                 "      sc[2 * j + 1] = e ? 0.0 : cos(th[j]);\n"
                 "    }\n"
                 "    const double got = T::g(&x, sc), want = e%d::plain(&x);\n"
                 "    ok(same(got, want), \"g from sc is the plain value\", text, x, got, want);\n"
                 "  }\n"
                 "  double alpha[T::TERMS], t1[T::TERMS], t2[T::TERMS];\n"
                 "  const double x1 = 0.5, x2 = 4.5;\n"
                 "  T::slopes(alpha);\n  T::args(&x1, t1);\n  T::args(&x2, t2);\n"
                 "  for (int j = 0; j < T::TERMS; j++) {\n"
                 "    const double d = (t2[j] - t1[j]) / (x2 - x1);\n"
                 "    ok(fabs(d - alpha[j]) <= 1e-14 * (fabs(t1[j]) + fabs(t2[j]) + fabs(alpha[j])), \"slope\", text, j, alpha[j], d);\n"
                 "  }\n",
              i, i);
    }
    fputs("}\n", f);
    free(plain);
    free(trig);
    gq_expr_free(e);
  }
  fputs("int main(void) {\n", f);
  for (int i = 2; i < argc; i++) fprintf(f, "  check%d();\n", i);
  fputs("  printf(\"1..%d\\n\", n_tests);\n  return failed;\n}\n", f);
  return fclose(f) == 0 ? 0 : 99;
}
