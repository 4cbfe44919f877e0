/* fuzz_npy.c — libFuzzer target for the npy reader (and, through the first
 * byte, the text and raw readers).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 \
 *     -D_POSIX_C_SOURCE=200809L -Isrc tests/io/fuzz_npy.c \
 *     src/lib/io/reader.c src/lib/io/npy.c src/lib/io/text.c -o fuzz_npy
 *   ./fuzz_npy -max_total_time=60 tests/io/corpus
 *
 * Input: byte 0 selects the reader and chunk size, bytes 1.. are the file.
 *   byte0 % 4: 0, 1 -> npy, except npz when byte0 % 4 == 1 and byte0 & 0x40
 *   (the member "x" when byte0 & 0x80, else the only one);  2 -> text
 *   (column byte0/4 % 4);  3 -> raw (f32 when byte0 & 4, offset byte0/8 % 16).
 *   Chunk = 1 + byte0 % 7.
 * The corpus files are ordinary .npy/.txt files with one selector byte in
 * front (see tests/io/README).
 *
 * Every npy element delivered is also checked against the one numpy's flat
 * C-order index names, found in the file by index arithmetic of its own
 * (for C- and Fortran-order files alike).
 */
#include "lib/io/io_internal.h"

#include <stdint.h>
#include <string.h>

/* What the npy reader must deliver: the layout, read from the header. */
struct npy_expect {
  int on;
  const unsigned char *data;  /* first data byte in the file */
  gq_dtype stored;            /* widened to f64 unless f8 or f4 */
  size_t size;                /* stored element size */
  int swap, fortran, ndim;
  uint64_t shape[GQ_NPY_MAX_DIMS];
};

static void expect_init(struct npy_expect *e, const uint8_t *file, size_t len)
{
  e->on = 0;
  if (len < 12)
    return;
  size_t pre = file[6] == 1 ? 10 : 12;
  uint64_t hlen = file[6] == 1 ? (uint64_t)file[8] | (uint64_t)file[9] << 8
                               : (uint64_t)file[8] | (uint64_t)file[9] << 8 |
                                     (uint64_t)file[10] << 16 | (uint64_t)file[11] << 24;
  char descr[32], err[128];
  if (pre + hlen > len ||
      gq_npy_parse_header((const char *)file + pre, (size_t)hlen, descr, sizeof descr,
                          &e->fortran, e->shape, &e->ndim, GQ_NPY_MAX_DIMS, err, sizeof err) != 0)
    __builtin_trap();  /* the reader opened it */
  e->data = file + pre + hlen;
  if (gq_dtype_from_name(descr + 1, &e->stored) != GQ_SUCCESS)
    __builtin_trap();  /* the reader took a dtype it has no name for */
  e->size = gq_dtype_size(e->stored);
  e->swap = descr[0] == (gq_host_is_little_endian() ? '>' : '<');
  e->on = 1;
}

/* The bytes of C-order element c, as the reader must hand them out
 * (widened to a double unless stored as f8 or f4). */
static void expect_element(const struct npy_expect *e, uint64_t c, unsigned char *out)
{
  uint64_t offset = 0, rest = c, stride = 1;
  if (e->fortran) { /* C index -> multi-index (last fastest) -> F offset */
    uint64_t idx[GQ_NPY_MAX_DIMS];
    for (int k = e->ndim - 1; k >= 0; k--) {
      idx[k] = rest % e->shape[k];
      rest /= e->shape[k];
    }
    for (int k = 0; k < e->ndim; k++) {
      offset += idx[k] * stride;
      stride *= e->shape[k];
    }
  } else {
    offset = c;
  }
  unsigned char raw[8];
  for (size_t b = 0; b < e->size; b++)
    raw[b] = e->data[offset * e->size + (e->swap ? e->size - 1 - b : b)];
  if (gq_dtype_is_float(e->stored))
    memcpy(out, raw, e->size);
  else
    gq_dtype_widen(e->stored, raw, out, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  gq_reader_opts o = {.format = GQ_FORMAT_NPY, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 0};
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
  case 1:
    if (sel & 0x40) {
      o.format = GQ_FORMAT_NPZ;
      o.member = (sel & 0x80) ? "x" : NULL;
    }
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
  struct npy_expect expect;
  expect.on = 0;
  if (gq_reader_format(r) == GQ_FORMAT_NPY)
    expect_init(&expect, data + 1, size - 1);
  while (gq_reader_read(r, buf, chunk, &got, msg, sizeof msg) == GQ_SUCCESS && got > 0) {
    if (got > chunk)
      __builtin_trap();
    for (size_t i = 0; expect.on && i < got; i++) {
      unsigned char want[8];
      expect_element(&expect, total + i, want);
      if (memcmp((const unsigned char *)buf + i * es, want, es) != 0)
        __builtin_trap();
    }
    total += got;
  }
  /* a known length is exact once the read succeeded to the end */
  if (length >= 0 && got == 0 && (uint64_t)length != total &&
      gq_reader_read(r, buf, 1, &got, msg, sizeof msg) == GQ_SUCCESS)
    __builtin_trap();
  gq_reader_close(r);
  return 0;
}
