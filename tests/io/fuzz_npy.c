/* fuzz_npy.c — libFuzzer target for the npy reader (and, through the first
 * byte, the text and raw readers).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 \
 *     -D_POSIX_C_SOURCE=200809L -Isrc tests/io/fuzz_npy.c \
 *     src/lib/io/reader.c src/lib/io/npy.c src/lib/io/text.c -o fuzz_npy
 *   ./fuzz_npy -max_total_time=60 tests/io/corpus
 *
 * Input: byte 0 selects the reader and chunk size, bytes 1.. are the file.
 *   byte0 % 4: 0, 1 -> npy;  2 -> text (column byte0/4 % 4);  3 -> raw
 *   (f32 when byte0 & 4, offset byte0/8 % 16).  Chunk = 1 + byte0 % 7.
 * The corpus files are ordinary .npy/.txt files with one selector byte in
 * front (see tests/io/README).
 */
#include "lib/io/reader.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  gq_reader_opts o = {GQ_FORMAT_NPY, GQ_DTYPE_NONE, 0, 0};
  switch (sel % 4) {
  case 2:
    o.format = GQ_FORMAT_TEXT;
    o.column = (sel / 4) % 4;
    break;
  case 3:
    o.format = GQ_FORMAT_RAW;
    o.raw_dtype = (sel & 4) ? GQ_DTYPE_F32 : GQ_DTYPE_F64;
    o.offset = (sel / 8) % 16;
    break;
  default:
    break;
  }
  size_t chunk = 1 + sel % 7;
  if (sel >= 0xf0)
    chunk = 4096;
  char msg[256];
  gq_reader *r;
  if (gq_reader_open_mem(data + 1, size - 1, "fuzz", &o, &r, msg, sizeof msg) != GQ_SUCCESS)
    return 0;
  double buf[4096];
  size_t total = 0, got;
  int64_t length = gq_reader_length(r);
  size_t es = gq_dtype_size(gq_reader_dtype(r));
  if (es != 4 && es != 8)
    __builtin_trap();
  while (gq_reader_read(r, buf, chunk, &got, msg, sizeof msg) == GQ_SUCCESS && got > 0) {
    if (got > chunk)
      __builtin_trap();
    total += got;
  }
  /* a known length is exact once the read succeeded to the end */
  if (length >= 0 && got == 0 && (uint64_t)length != total &&
      gq_reader_read(r, buf, 1, &got, msg, sizeof msg) == GQ_SUCCESS)
    __builtin_trap();
  gq_reader_close(r);
  return 0;
}
