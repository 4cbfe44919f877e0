/* fuzz_expr_diff.c — differential libFuzzer target: for any bytes that
 * parse, print -> parse gives the same tree and text, block evaluation
 * equals scalar evaluation to the bit, a split scale factor is exact, and
 * the CUDA emitter accepts the expression (expr_diff.h).  A disagreement
 * aborts with the reason.  Built by make check with --enable-fuzzing and
 * run by tests/fuzz.sh:
 *   tests/fuzz_expr_diff -max_total_time=300 -dict=tests/expr/expr.dict \
 *     WORKDIR tests/expr/corpus */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char why[400];
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (!expr_diff_check(text, why, sizeof why)) {
    fprintf(stderr, "fuzz_expr_diff: '%.200s': %s\n", text, why);
    abort();
  }
  free(text);
  return 0;
}
