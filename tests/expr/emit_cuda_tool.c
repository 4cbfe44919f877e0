/* emit_cuda_tool.c — writes one CUDA translation unit holding the emitted
 * function for each expression given on the command line (double and
 * float), plus a kernel that calls them all, for test_emit_nvcc.sh.
 * Usage: emit_cuda_tool OUT.cu EXPR... */
#include <stdio.h>
#include <stdlib.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"

int main(int argc, char **argv)
{
  const char *defs[] = {"k=-2.5", "w=1e-3"};
  FILE *f;
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUT.cu EXPR...\n", argv[0]);
    return 99;
  }
  f = fopen(argv[1], "w");
  if (!f) return 99;
  for (int i = 2; i < argc; i++) {
    /* Parameters only where used, since an unused one is an error. */
    gq_expr_params params = {defs, 2};
    gq_expr *e;
    gq_expr_error err;
    char *src, name[32];
    if (gq_expr_parse(argv[i], &params, 16, &e, &err) != GQ_SUCCESS &&
        gq_expr_parse(argv[i], NULL, 16, &e, &err) != GQ_SUCCESS) {
      fprintf(stderr, "emit_cuda_tool: '%s': %s\n", argv[i], err.message);
      return 99;
    }
    for (int fl = 0; fl < 2; fl++) {
      snprintf(name, sizeof name, "f%d_%s", i, fl ? "float" : "double");
      if (gq_expr_emit_cuda(e, name, fl, &src) != GQ_SUCCESS) return 99;
      fputs(src, f);
      free(src);
    }
    gq_expr_free(e);
  }
  fputs("__global__ void all_integrands(const double *x, const float *xf,\n"
        "                               double *out, float *outf)\n{\n", f);
  for (int i = 2; i < argc; i++)
    fprintf(f, "  out[%d] = f%d_double(x);\n  outf[%d] = f%d_float(xf);\n",
            i, i, i, i);
  fputs("}\n", f);
  return fclose(f) == 0 ? 0 : 99;
}
