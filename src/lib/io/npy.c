/* npy.c — NumPy .npy header parsing and a small writer.
 *
 * Layout (numpy/lib/format.py): "\x93NUMPY", major, minor, header length
 * (uint16 LE for 1.0, uint32 LE for 2.0/3.0), then a Python dict literal
 * {'descr': ..., 'fortran_order': ..., 'shape': (...), } padded with spaces
 * and ending in '\n'.  3.0 only allows utf-8 in the header; every token we
 * accept is ASCII, so 2.0 and 3.0 parse the same.
 */
#include "lib/io/io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPY_MAX_HEADER (1u << 20)  /* numpy itself refuses > 10000 by default */

/* ---- header dict parser ------------------------------------------------ */

struct cursor {
  const char *p, *end;
  char *err;
  size_t errlen;
};

static int perr(struct cursor *c, const char *what)
{
  if (c->err && c->errlen)
    snprintf(c->err, c->errlen, "%s", what);
  return -1;
}

static void skip_ws(struct cursor *c)
{
  while (c->p < c->end &&
         (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static int eat(struct cursor *c, char ch)
{
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return 1;
  }
  return 0;
}

/* Quoted string (' or "), backslash escapes skipped over; [*s, *e) = body. */
static int parse_string(struct cursor *c, const char **s, const char **e)
{
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return perr(c, "expected a quoted string");
  char q = *c->p++;
  *s = c->p;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' && c->p + 1 < c->end)
      c->p++;
    c->p++;
  }
  if (c->p >= c->end)
    return perr(c, "unterminated string");
  *e = c->p++;
  return 0;
}

static int word_is(const char *s, const char *e, const char *w)
{
  size_t n = strlen(w);
  return (size_t)(e - s) == n && memcmp(s, w, n) == 0;
}

/* Non-negative integer, with Python 2's 'L' suffix allowed. */
static int parse_uint(struct cursor *c, uint64_t *v)
{
  skip_ws(c);
  if (c->p < c->end && *c->p == '-')
    return perr(c, "negative dimension in shape");
  if (c->p >= c->end || *c->p < '0' || *c->p > '9')
    return perr(c, "shape must be a tuple of integers");
  uint64_t x = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    unsigned d = (unsigned)(*c->p - '0');
    if (x > (UINT64_MAX - d) / 10)
      return perr(c, "dimension too large");
    x = x * 10 + d;
    c->p++;
  }
  if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
    c->p++;
  *v = x;
  return 0;
}

static int parse_shape(struct cursor *c, uint64_t *shape, int *ndim, int maxdim)
{
  if (!eat(c, '('))
    return perr(c, "shape must be a tuple");
  *ndim = 0;
  if (eat(c, ')'))
    return 0;
  for (;;) {
    if (*ndim >= maxdim)
      return perr(c, "too many dimensions");
    if (parse_uint(c, &shape[*ndim]))
      return -1;
    (*ndim)++;
    if (eat(c, ')'))
      return 0;
    if (!eat(c, ','))
      return perr(c, "expected ',' or ')' in shape");
    if (eat(c, ')'))
      return 0;
  }
}

/* Skips any other value: bare words/numbers, strings, nested brackets. */
static int skip_value(struct cursor *c)
{
  int depth = 0;
  skip_ws(c);
  const char *start = c->p;
  while (c->p < c->end) {
    char ch = *c->p;
    if (ch == '\'' || ch == '"') {
      const char *s, *e;
      if (parse_string(c, &s, &e))
        return -1;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{') {
      if (++depth > 32)
        return perr(c, "value nested too deeply");
    } else if (ch == ')' || ch == ']' || ch == '}') {
      if (depth == 0)
        break;
      depth--;
    } else if (ch == ',' && depth == 0) {
      break;
    }
    c->p++;
  }
  if (depth != 0)
    return perr(c, "unbalanced brackets");
  if (c->p == start)
    return perr(c, "missing value");
  return 0;
}

int gq_npy_parse_header(const char *h, size_t len, char *descr, size_t descrlen,
                        int *fortran, uint64_t *shape, int *ndim, int maxdim,
                        char *err, size_t errlen)
{
  struct cursor c = {h, h + len, err, errlen};
  int have_descr = 0, have_fortran = 0, have_shape = 0;
  if (!eat(&c, '{'))
    return perr(&c, "header is not a dict (no '{')");
  if (!eat(&c, '}')) {
    for (;;) {
      const char *ks, *ke;
      if (parse_string(&c, &ks, &ke))
        return perr(&c, "expected a quoted key");
      if (!eat(&c, ':'))
        return perr(&c, "expected ':' after a key");
      if (word_is(ks, ke, "descr")) {
        skip_ws(&c);
        if (c.p < c.end && *c.p == '[')
          return perr(&c, "structured dtypes are not supported (descr is a list)");
        if (c.p >= c.end || (*c.p != '\'' && *c.p != '"'))
          return perr(&c, "descr must be a string");
        const char *vs, *ve;
        if (parse_string(&c, &vs, &ve))
          return -1;
        /* copy, printable ASCII only, so messages can quote it */
        size_t n = 0;
        for (const char *q = vs; q < ve && n + 1 < descrlen; q++)
          descr[n++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
        if (descrlen)
          descr[n] = '\0';
        if ((size_t)(ve - vs) + 1 > descrlen && descrlen > 4)
          memcpy(descr + descrlen - 4, "...", 4);
        have_descr = 1;
      } else if (word_is(ks, ke, "fortran_order")) {
        skip_ws(&c);
        const char *ws = c.p;
        while (c.p < c.end && ((*c.p >= 'A' && *c.p <= 'Z') || (*c.p >= 'a' && *c.p <= 'z')))
          c.p++;
        if (word_is(ws, c.p, "True"))
          *fortran = 1;
        else if (word_is(ws, c.p, "False"))
          *fortran = 0;
        else
          return perr(&c, "fortran_order must be True or False");
        have_fortran = 1;
      } else if (word_is(ks, ke, "shape")) {
        if (parse_shape(&c, shape, ndim, maxdim))
          return -1;
        have_shape = 1;
      } else if (skip_value(&c)) {
        return -1;
      }
      if (eat(&c, '}'))
        break;
      if (!eat(&c, ','))
        return perr(&c, "expected ',' or '}' in the header dict");
      if (eat(&c, '}'))
        break;
    }
  }
  skip_ws(&c);
  while (c.p < c.end && *c.p == '\0')  /* some writers pad with NULs */
    c.p++;
  if (c.p != c.end)
    return perr(&c, "text after the header dict");
  if (!have_descr)
    return perr(&c, "header has no 'descr'");
  if (!have_fortran)
    return perr(&c, "header has no 'fortran_order'");
  if (!have_shape)
    return perr(&c, "header has no 'shape'");
  return 0;
}

/* ---- Fortran order ----------------------------------------------------- */

/* numpy's flat index is C order (last index fastest); a Fortran-order file
 * stores the first index fastest.  Unless at most one axis is longer than 1
 * (then both orders are the same sequence) the file is read whole here and
 * gq_npy_fortran_gather hands it out in C order.  A pipe's buffer grows with
 * the data that actually arrive, so a header that lies about its shape costs
 * no more memory than the bytes sent. */
static int npy_hold_fortran(gq_reader *r, const uint64_t *shape, int ndim, uint64_t n,
                            char *msg, size_t msglen)
{
  r->f_ndim = 0;
  uint64_t stride = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] > 1) {
      r->f_shape[r->f_ndim] = shape[i];
      r->f_stride[r->f_ndim] = stride;
      r->f_index[r->f_ndim] = 0;
      r->f_ndim++;
    }
    stride *= shape[i];  /* at most n, checked by the caller */
  }
  if (r->f_ndim < 2)
    return GQ_SUCCESS;  /* streamed as it is */

  const uint64_t bytes = n * r->elem_size;  /* fits in int64: checked */
  if (bytes > GQ_NPY_FORTRAN_MAX)  /* 1 GiB: fits in any size_t */
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "Fortran-order array of %llu bytes is too large to reorder "
                      "to C order in memory (limit %llu bytes); save it in C "
                      "order (numpy.ascontiguousarray)",
                      (unsigned long long)bytes, (unsigned long long)GQ_NPY_FORTRAN_MAX);
  size_t cap = r->src.sized || bytes < ((size_t)1 << 20) ? (size_t)bytes : (size_t)1 << 20;
  size_t have = 0;
  for (;;) {
    unsigned char *bigger = realloc(r->fortran_data, cap);
    if (!bigger)
      return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM,
                        "out of memory holding a Fortran-order array of %zu bytes", cap);
    r->fortran_data = bigger;
    size_t got = 0;
    const int err = gq_source_read(&r->src, r->fortran_data + have, cap - have, &got);
    have += got;
    if (err) {
      char text[256];
      gq_io_errno_text(err, text, sizeof text);
      return gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "%s", text);
    }
    if (have < cap || cap == (size_t)bytes)
      break;
    cap = cap > (size_t)bytes / 2 ? (size_t)bytes : 2 * cap;
  }
  if (have < (size_t)bytes)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO,
                      "truncated: header says %llu elements, file has %llu",
                      (unsigned long long)n, (unsigned long long)(have / r->elem_size));
  r->f_offset = 0;
  return GQ_SUCCESS;
}

/* Runs along the last axis (a constant stride in the file) are copied in a
 * tight loop per element size; the odometer moves once per run. */
void gq_npy_fortran_gather(gq_reader *r, void *out, size_t n)
{
  const size_t size = r->elem_size;
  const int last = r->f_ndim - 1;
  const uint64_t stride = r->f_stride[last], len = r->f_shape[last];
  unsigned char *dst = out;
  while (n > 0) {
    const uint64_t left = len - r->f_index[last];
    const size_t run = left < n ? (size_t)left : n;
    const unsigned char *src = r->fortran_data + r->f_offset * size;
    if (size == 8)
      for (size_t i = 0; i < run; i++)
        memcpy(dst + 8 * i, src + 8 * stride * i, 8);
    else if (size == 4)
      for (size_t i = 0; i < run; i++)
        memcpy(dst + 4 * i, src + 4 * stride * i, 4);
    else
      for (size_t i = 0; i < run; i++)
        memcpy(dst + size * i, src + size * stride * i, size);
    dst += run * size;
    n -= run;
    r->f_index[last] += run;
    r->f_offset += run * stride;
    /* at the end of a row: back to its start, and carry leftwards */
    for (int k = last; k >= 0 && r->f_index[k] == r->f_shape[k]; k--) {
      r->f_offset -= r->f_stride[k] * r->f_shape[k];
      r->f_index[k] = 0;
      if (k > 0) {
        r->f_index[k - 1]++;
        r->f_offset += r->f_stride[k - 1];
      }
    }
  }
}

/* ---- open -------------------------------------------------------------- */

static uint32_t le16(const unsigned char *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8; }
static uint32_t le32(const unsigned char *b)
{
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int gq_npy_open(gq_reader *r, char *msg, size_t msglen)
{
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  unsigned char pre[12];
  size_t got;
  int err = gq_source_read(&r->src, pre, 10, &got);
  if (err)
    goto io_error;
  size_t m = got < 6 ? got : 6;
  if (memcmp(pre, magic, m) != 0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "not an npy file (bad magic)");
  if (got < 10)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO,
                      "truncated npy header (%zu bytes)", got);
  unsigned major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "unsupported npy version %u.%u (expected 1.0, 2.0 or 3.0)",
                      major, minor);
  uint32_t hlen;
  if (major == 1) {
    hlen = le16(pre + 8);
  } else {
    err = gq_source_read(&r->src, pre + 10, 2, &got);
    if (err)
      goto io_error;
    if (got < 2)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EIO,
                        "truncated npy header (%zu bytes)", 10 + got);
    hlen = le32(pre + 8);
  }
  if (hlen > NPY_MAX_HEADER)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "npy header of %lu bytes is too large (limit %u)",
                      (unsigned long)hlen, NPY_MAX_HEADER);
  char *h = malloc(hlen ? hlen : 1);
  if (!h)
    return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
  err = gq_source_read(&r->src, h, hlen, &got);
  if (err) {
    free(h);
    goto io_error;
  }
  if (got < hlen) {
    free(h);
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO,
                      "truncated npy header: %lu bytes announced, %zu present",
                      (unsigned long)hlen, got);
  }

  char descr[32], perrbuf[128];
  int fortran = 0, ndim = 0;
  uint64_t shape[GQ_NPY_MAX_DIMS];
  int bad = gq_npy_parse_header(h, hlen, descr, sizeof descr, &fortran, shape,
                                &ndim, GQ_NPY_MAX_DIMS, perrbuf, sizeof perrbuf);
  free(h);
  if (bad)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "bad npy header: %s", perrbuf);

  /* descr: byte order ('|': not applicable, one-byte types) and type code */
  int little = -1;
  if (descr[0] == '<')
    little = 1;
  else if (descr[0] == '>')
    little = 0;
  else if (descr[0] == '=' || descr[0] == '|')
    little = gq_host_is_little_endian();
  static const char *const codes[] = {"f8", "f4", "f2", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"};
  gq_dtype stored = GQ_DTYPE_NONE;
  for (size_t k = 0; little >= 0 && k < sizeof codes / sizeof codes[0] && stored == GQ_DTYPE_NONE; k++)
    if (strcmp(descr + 1, codes[k]) == 0)
      gq_dtype_from_name(codes[k], &stored);
  if (stored != GQ_DTYPE_NONE && descr[0] == '|' && gq_dtype_size(stored) != 1)
    stored = GQ_DTYPE_NONE;  /* numpy writes '|' for one-byte types only */
  if (stored == GQ_DTYPE_NONE)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "unsupported dtype '%s' (expected a float (f8 f4 f2), signed or unsigned integer "
                      "(i1..i8, u1..u8) or bool (b1), in either byte order)",
                      descr);
  r->stored = stored;
  r->dtype = gq_dtype_is_float(stored) ? stored : GQ_DTYPE_F64;
  r->elem_size = gq_dtype_size(stored);
  r->swap = r->elem_size > 1 && little != gq_host_is_little_endian();

  /* element count, overflow-checked so that bytes fit in int64 */
  uint64_t n = 1;
  int zero = 0;
  for (int i = 0; i < ndim; i++)
    zero |= shape[i] == 0;
  if (zero) {
    n = 0;
  } else {
    const uint64_t limit = (uint64_t)INT64_MAX / r->elem_size;
    for (int i = 0; i < ndim; i++) {
      if (shape[i] > limit / n)
        return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                          "shape product overflows (more than %llu elements)",
                          (unsigned long long)limit);
      n *= shape[i];
    }
  }
  r->length = (int64_t)n;
  if (r->src.sized) {
    uint64_t have = r->src.remaining / r->elem_size;
    if (have < n)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EIO,
                        "truncated: header says %llu elements, file has %llu",
                        (unsigned long long)n, (unsigned long long)have);
  }
  if (fortran && n > 0)
    return npy_hold_fortran(r, shape, ndim, n, msg, msglen);
  return GQ_SUCCESS;

io_error: {
    char text[256];
    gq_io_errno_text(err, text, sizeof text);
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "%s", text);
  }
}

/* ---- writer ------------------------------------------------------------ */

static int write_all(int fd, const void *buf, size_t n)
{
  const unsigned char *p = buf;
  while (n > 0) {
    size_t want = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
    ssize_t k = write(fd, p, want);
    if (k < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

static int npy_write(const char *path, const void *data, size_t n,
                     const char *type, size_t elem_size, char *msg, size_t msglen)
{
  if (!path || (!data && n))
    return gq_io_fail(NULL, path, msg, msglen, GQ_EINVAL, "no path or data");
  if (n > (size_t)INT64_MAX / elem_size)
    return gq_io_fail(NULL, path, msg, msglen, GQ_EINVAL, "too many elements");
  char header[256];
  int k = snprintf(header + 10, sizeof header - 10,
                   "{'descr': '%c%s', 'fortran_order': False, 'shape': (%zu,), }",
                   gq_host_is_little_endian() ? '<' : '>', type, n);
  size_t total = 10 + (size_t)k + 1;  /* + '\n' */
  size_t padded = (total + 63) / 64 * 64;
  memset(header + 10 + k, ' ', padded - total);
  header[padded - 1] = '\n';
  memcpy(header, "\x93NUMPY\x01\x00", 8);
  header[8] = (char)((padded - 10) & 0xff);
  header[9] = (char)((padded - 10) >> 8);

  int to_stdout = strcmp(path, "-") == 0;
  int fd = to_stdout ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  char text[256];
  if (fd < 0) {
    gq_io_errno_text(errno, text, sizeof text);
    return gq_io_fail(NULL, path, msg, msglen, GQ_EIO, "%s", text);
  }
  int err = write_all(fd, header, padded);
  if (!err)
    err = write_all(fd, data, n * elem_size);
  if (!to_stdout && close(fd) != 0 && !err)
    err = errno;
  if (err) {
    if (!to_stdout)
      unlink(path);
    gq_io_errno_text(err, text, sizeof text);
    return gq_io_fail(NULL, path, msg, msglen, GQ_EIO, "%s", text);
  }
  return GQ_SUCCESS;
}

int gq_npy_write_f64(const char *path, const double *data, size_t n, char *msg,
                     size_t msglen)
{
  return npy_write(path, data, n, "f8", 8, msg, msglen);
}

int gq_npy_write_f32(const char *path, const float *data, size_t n, char *msg,
                     size_t msglen)
{
  return npy_write(path, data, n, "f4", 4, msg, msglen);
}
