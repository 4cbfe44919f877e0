/* fuzz_expr.c — libFuzzer target: parse arbitrary bytes (max_dims 3, two
 * parameters), and if they parse, evaluate (scalar, block, float block),
 * print and emit CUDA.  Build:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     tests/expr/fuzz_expr.c src/lib/expr/[a-z]*.c -lm -o fuzz_expr
 *   ./fuzz_expr -max_total_time=60 tests/expr/corpus */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuquad.h"
#include "lib/expr/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *defs[] = {"k=3", "w=-0.5"};
  static double in[3][7];
  const double *vars[3] = {in[0], in[1], in[2]};
  double out[7];
  char *text = malloc(size + 1), *s = NULL;
  gq_expr *e = NULL;
  gq_expr_error err;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  /* With and without parameters: unused ones are an error by design. */
  gq_expr_params params = {defs, 2};
  if (gq_expr_parse(text, &params, 3, &e, &err) != GQ_SUCCESS) {
    char caret[256];
    gq_expr_error_caret(text, &err, caret, sizeof caret);
    gq_expr_parse(text, NULL, 3, &e, &err);
  }
  if (e) {
    for (int d = 0; d < 3; d++)
      for (int i = 0; i < 7; i++) in[d][i] = 0.25 + 0.5 * i - d;
    double point[3] = {0.3, -1.2, 2.5};
    (void)gq_expr_eval(e, point);
    size_t n = gq_expr_block_scratch(e);
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    float *scratchf = malloc((n ? n : 1) * sizeof *scratchf);
    float outf[7];
    if (scratch && scratchf) {
      gq_expr_eval_block(e, 7, vars, out, scratch);
      gq_expr_eval_block_f(e, 7, vars, outf, scratchf);
    }
    free(scratch);
    free(scratchf);
    if (gq_expr_to_string(e, &s) == GQ_SUCCESS) free(s);
    if (gq_expr_emit_cuda(e, "f", 0, &s) == GQ_SUCCESS) free(s);
    if (gq_expr_emit_cuda(e, "g", 1, &s) == GQ_SUCCESS) free(s);
    if (gq_expr_emit_cuda_trig(e, 0, &s) == GQ_SUCCESS) free(s);
    gq_expr_free(e);
  }
  /* the parameters as run-time values (issue 23): the GPU's form */
  if (gq_expr_parse_symbolic(text, &params, 3, &e, NULL) == GQ_SUCCESS) {
    if (gq_expr_emit_cuda_params(e, "f", 0, &s) == GQ_SUCCESS) free(s);
    if (gq_expr_emit_cuda_params(e, "g", 1, &s) == GQ_SUCCESS) free(s);
    if (gq_expr_emit_cuda_trig(e, 1, &s) == GQ_SUCCESS) free(s);
    if (gq_expr_to_string(e, &s) == GQ_SUCCESS) free(s);
    gq_expr_free(e);
  }
  free(text);
  return 0;
}
