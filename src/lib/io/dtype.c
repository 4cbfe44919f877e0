/* dtype.c — element types of binary inputs: sizes, names, and the widening
 * of integer, bool and float16 elements to double.
 *
 * Every int8..int32, uint8..uint32, bool and float16 value is a double
 * exactly.  An int64 or uint64 is exact when its significant bits (from the
 * highest set bit down to the lowest) fit in 53; the others round to
 * nearest-even, as numpy's astype(float64) rounds them, and are counted so
 * that the caller can say so.
 */
#include "lib/io/io_internal.h"
#include "lib/internal.h"

#include <string.h>

static const struct {
  gq_dtype type;
  size_t size;
  const char *name;     /* the name messages and JSON print */
  const char *aliases;  /* numpy's names and type codes, space-separated */
} dtypes[] = {
  {GQ_DTYPE_F64, 8, "f64", "float64 double f8"},
  {GQ_DTYPE_F32, 4, "f32", "float32 float f4"},
  {GQ_DTYPE_F16, 2, "f16", "float16 half f2"},
  {GQ_DTYPE_I8, 1, "int8", "i1"},
  {GQ_DTYPE_I16, 2, "int16", "i2"},
  {GQ_DTYPE_I32, 4, "int32", "i4"},
  {GQ_DTYPE_I64, 8, "int64", "i8"},
  {GQ_DTYPE_U8, 1, "uint8", "u1"},
  {GQ_DTYPE_U16, 2, "uint16", "u2"},
  {GQ_DTYPE_U32, 4, "uint32", "u4"},
  {GQ_DTYPE_U64, 8, "uint64", "u8"},
  {GQ_DTYPE_BOOL, 1, "bool", "b1"},
};
enum { NDTYPES = sizeof dtypes / sizeof dtypes[0] };

size_t gq_dtype_size(gq_dtype t)
{
  for (int k = 0; k < NDTYPES; k++)
    if (dtypes[k].type == t)
      return dtypes[k].size;
  return 0;
}

const char *gq_dtype_name(gq_dtype t)
{
  for (int k = 0; k < NDTYPES; k++)
    if (dtypes[k].type == t)
      return dtypes[k].name;
  return "";
}

static int alias_listed(const char *list, const char *name)
{
  const size_t len = strlen(name);
  for (const char *p = list; *p;) {
    const char *end = strchr(p, ' ');
    const size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n == len && memcmp(p, name, n) == 0)
      return 1;
    p += n + (end != NULL);
  }
  return 0;
}

int gq_dtype_from_name(const char *name, gq_dtype *t)
{
  if (!name || !t)
    return gq_null_arg(__func__, !name ? "name" : "t");
  for (int k = 0; k < NDTYPES; k++)
    if (strcmp(name, dtypes[k].name) == 0 || alias_listed(dtypes[k].aliases, name)) {
      *t = dtypes[k].type;
      return GQ_SUCCESS;
    }
  return gq_fail(GQ_EINVAL, "unknown dtype '%s' (expected f64, f32, f16, int8, int16, int32, int64, uint8, "
                            "uint16, uint32, uint64 or bool)", name);
}

int gq_dtype_is_float(gq_dtype t) { return t == GQ_DTYPE_F64 || t == GQ_DTYPE_F32; }

/* float16 bits -> the same value in double: exponent rebiased (15 -> 1023),
 * mantissa shifted to the top; subnormals are m * 2^-24, one exact product;
 * Inf and NaN keep their sign and payload (the quiet bit lands on double's). */
static double half_to_double(uint16_t h)
{
  const uint64_t sign = (uint64_t)(h >> 15) << 63;
  const unsigned e = (h >> 10) & 31u, m = h & 1023u;
  double v;
  if (e == 0) {
    v = (double)m * 0x1p-24;
    return sign ? -v : v;
  }
  const uint64_t bits = sign | (uint64_t)(e == 31 ? 2047 : e - 15 + 1023) << 52 | (uint64_t)m << 42;
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* Whether a magnitude is a double exactly: its bits between the highest and
 * the lowest set one number at most 53. */
static int magnitude_exact(uint64_t m)
{
  if (m < ((uint64_t)1 << 53))
    return 1;
  while (!(m & 1))
    m >>= 1;
  return m < ((uint64_t)1 << 53);
}

uint64_t gq_dtype_widen(gq_dtype t, const void *src, void *dst, size_t n)
{
  const unsigned char *s = src;
  unsigned char *d = dst;
  const size_t size = gq_dtype_size(t);
  uint64_t inexact = 0;
  /* Element i is read whole before element i is stored; the caller places
   * src so that dst's element i covers only source bytes already read. */
  for (size_t i = 0; i < n; i++, s += size, d += sizeof(double)) {
    double v;
    switch (t) {
    case GQ_DTYPE_I8: { int8_t x; memcpy(&x, s, 1); v = x; break; }
    case GQ_DTYPE_U8: v = *s; break;
    case GQ_DTYPE_BOOL: v = *s != 0; break;
    case GQ_DTYPE_I16: { int16_t x; memcpy(&x, s, 2); v = x; break; }
    case GQ_DTYPE_U16: { uint16_t x; memcpy(&x, s, 2); v = x; break; }
    case GQ_DTYPE_F16: { uint16_t x; memcpy(&x, s, 2); v = half_to_double(x); break; }
    case GQ_DTYPE_I32: { int32_t x; memcpy(&x, s, 4); v = x; break; }
    case GQ_DTYPE_U32: { uint32_t x; memcpy(&x, s, 4); v = x; break; }
    case GQ_DTYPE_F32: { float x; memcpy(&x, s, 4); v = x; break; }
    case GQ_DTYPE_I64: {
      int64_t x;
      memcpy(&x, s, 8);
      inexact += !magnitude_exact(x < 0 ? 0 - (uint64_t)x : (uint64_t)x);
      v = (double)x;
      break;
    }
    case GQ_DTYPE_U64: {
      uint64_t x;
      memcpy(&x, s, 8);
      inexact += !magnitude_exact(x);
      v = (double)x;
      break;
    }
    default: memcpy(&v, s, 8); break;
    }
    memcpy(d, &v, sizeof v);
  }
  return inexact;
}
