/* fuzz_json_line.c — libFuzzer target: `gpuquad batch`'s JSON Lines reader
 * (src/cli/json_line.c) on arbitrary bytes, one line at a time; every value
 * it returns is walked, so a pointer outside the line's arena shows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/json_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const json_value *v)
{
  size_t n = v->text ? strlen(v->text) : 0;
  n += v->key ? strlen(v->key) : 0;
  for (size_t k = 0; k < v->count; k++)
    n += walk(&v->items[k]);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *line = malloc(size + 1), err[256];
  static json_line j;
  if (!line)
    return 0;
  memcpy(line, data, size);
  line[size] = '\0';
  if (json_line_parse(line, &j, err, sizeof err) == 0) {
    volatile size_t n = 0;
    for (size_t k = 0; k < j.count; k++)
      n += walk(&j.members[k]);
    (void)json_line_get(&j, "param");
  }
  json_line_free(&j);
  free(line);
  return 0;
}
