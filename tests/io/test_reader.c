/* test_reader.c — TAP tests for src/lib/io (npy, raw, text readers; writer).
 *
 * Fixtures are built byte by byte in a mkdtemp() directory.  Every good
 * fixture is read three ways (regular file, pipe from a child process, memory)
 * with chunk sizes 1, 3 and 4096, and the concatenation is compared exactly
 * (bitwise; NaN compared as NaN).  Every bad fixture is checked for its
 * status and a message substring.
 */
#include "lib/io/io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"

/* ---- fixtures ---------------------------------------------------------- */

static char tmpdir[] = "/tmp/gq-io-test-XXXXXX";

static const char *tmp_path(const char *name)
{
  static char path[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
  return path[k];
}

static void write_file(const char *path, const void *data, size_t n)
{
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
    printf("Bail out! cannot write %s\n", path);
    exit(99);
  }
}

struct bytes {
  unsigned char *p;
  size_t n, cap;
};

static void put(struct bytes *b, const void *data, size_t n)
{
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    if (!b->p)
      exit(99);
  }
  if (n)
    memcpy(b->p + b->n, data, n);
  b->n += n;
}

static void put_str(struct bytes *b, const char *s) { put(b, s, strlen(s)); }

/* The test vector: varied, signed, with NaN and +-Inf sprinkled in. */
static double value(size_t i)
{
  if (i % 11 == 5)
    return NAN;
  if (i % 13 == 7)
    return INFINITY;
  if (i % 17 == 3)
    return -INFINITY;
  return (double)i * 0.37 - 5.0;
}

static int same(double a, double b)
{
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b);
  return memcmp(&a, &b, sizeof a) == 0;
}

static void swap_in_place(void *p, size_t size)
{
  unsigned char *c = p;
  for (size_t i = 0; i < size / 2; i++) {
    unsigned char t = c[i];
    c[i] = c[size - 1 - i];
    c[size - 1 - i] = t;
  }
}

/* Data bytes of n values as <f8, >f8, <f4 or >f4 (host is little-endian in
 * CI; we write little = native and swap for the other). */
static void put_value(struct bytes *b, double v, int f32, int swap)
{
  if (f32) {
    float x = (float)v;
    if (swap)
      swap_in_place(&x, 4);
    put(b, &x, 4);
  } else {
    if (swap)
      swap_in_place(&v, 8);
    put(b, &v, 8);
  }
}

static void put_values(struct bytes *b, size_t n, int f32, int big)
{
  int swap = big == gq_host_is_little_endian();
  for (size_t i = 0; i < n; i++)
    put_value(b, value(i), f32, swap);
}

/* magic + version + header length + dict + padding to 64 + '\n' */
static void put_npy_header(struct bytes *b, int major, int minor, const char *dict)
{
  size_t dl = strlen(dict);
  size_t pre = major == 1 ? 10 : 12;
  size_t total = (pre + dl + 1 + 63) / 64 * 64;
  size_t hlen = total - pre;
  unsigned char h[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major,
                         (unsigned char)minor};
  h[8] = (unsigned char)(hlen & 0xff);
  h[9] = (unsigned char)((hlen >> 8) & 0xff);
  h[10] = (unsigned char)((hlen >> 16) & 0xff);
  h[11] = (unsigned char)((hlen >> 24) & 0xff);
  put(b, h, pre);
  put_str(b, dict);
  for (size_t i = pre + dl; i + 1 < total; i++)
    put(b, " ", 1);
  put(b, "\n", 1);
}

/* ---- reading a fixture three ways -------------------------------------- */

enum mode { MODE_FILE, MODE_PIPE, MODE_MEM };
static const char *mode_name[] = {"file", "pipe", "memory"};

struct result {
  int status;
  char msg[512];
  gq_dtype dtype;
  int64_t length;
  double *v;  /* widened */
  size_t n;
};

static pid_t feed_pipe(const struct bytes *b, int *rfd)
{
  int fds[2];
  if (pipe(fds) != 0)
    exit(99);
  pid_t pid = fork();
  if (pid < 0)
    exit(99);
  if (pid == 0) {
    close(fds[0]);
    size_t off = 0;
    while (off < b->n) {
      ssize_t k = write(fds[1], b->p + off, b->n - off);
      if (k <= 0)
        _exit(1);
      off += (size_t)k;
    }
    _exit(0);
  }
  close(fds[1]);
  *rfd = fds[0];
  return pid;
}

static void read_fixture(enum mode mode, const char *name, const struct bytes *b,
                         const gq_reader_opts *o, size_t chunk, struct result *res)
{
  memset(res, 0, sizeof *res);
  res->msg[0] = '\0';
  gq_reader *r = NULL;
  pid_t child = -1;
  int fd = -1;
  const char *path = tmp_path(name);
  if (mode == MODE_FILE) {
    write_file(path, b->p, b->n);
    res->status = gq_reader_open(path, o, &r, res->msg, sizeof res->msg);
  } else if (mode == MODE_PIPE) {
    child = feed_pipe(b, &fd);
    res->status = gq_reader_open_fd(fd, path, o, &r, res->msg, sizeof res->msg);
  } else {
    res->status = gq_reader_open_mem(b->p, b->n, path, o, &r, res->msg, sizeof res->msg);
  }
  if (res->status == GQ_SUCCESS) {
    res->dtype = gq_reader_dtype(r);
    res->length = gq_reader_length(r);
    size_t es = gq_dtype_size(res->dtype);
    unsigned char *buf = malloc(chunk * es);
    size_t cap = 0;
    for (;;) {
      size_t got = 12345;
      res->status = gq_reader_read(r, buf, chunk, &got, res->msg, sizeof res->msg);
      if (got > chunk) {
        res->status = -1;
        snprintf(res->msg, sizeof res->msg, "got %zu > chunk %zu", got, chunk);
        break;
      }
      if (res->n + got + 1 > cap) {
        cap = 2 * (res->n + got + 1);
        res->v = realloc(res->v, cap * sizeof *res->v);
      }
      for (size_t i = 0; i < got; i++) {
        if (res->dtype == GQ_DTYPE_F32) {
          float x;
          memcpy(&x, buf + 4 * i, 4);
          res->v[res->n + i] = x;
        } else {
          memcpy(&res->v[res->n + i], buf + 8 * i, 8);
        }
      }
      res->n += got;
      if (res->status || got == 0)
        break;
      if (got < chunk) {  /* a short read must be the last one */
        size_t again = 1;
        res->status = gq_reader_read(r, buf, chunk, &again, res->msg, sizeof res->msg);
        if (res->status == GQ_SUCCESS && again != 0) {
          res->status = -1;
          snprintf(res->msg, sizeof res->msg, "short read before the end");
        }
        break;
      }
    }
    free(buf);
  }
  gq_reader_close(r);
  if (mode == MODE_PIPE) {
    close(fd);
    waitpid(child, NULL, 0);
  }
}

/* Expected data as doubles (f32 rounded through float). */
static void expect_values(double *want, size_t n, int f32)
{
  for (size_t i = 0; i < n; i++)
    want[i] = f32 ? (double)(float)value(i) : value(i);
}

/* Whether gq_reader_length() is known: LEN_ALWAYS (npy), LEN_SIZED (raw:
 * regular files and memory, not pipes), LEN_NEVER (text). */
enum { LEN_NEVER = -1, LEN_SIZED = 0, LEN_ALWAYS = 1 };
static void check_good(const char *desc, const char *name, const struct bytes *b,
                       const gq_reader_opts *o, gq_dtype dtype, const double *want,
                       size_t n, int length_kind)
{
  static const size_t chunks[] = {1, 3, 4096};
  for (int m = 0; m < 3; m++) {
    int good = 1;
    char why[600] = "";
    for (int c = 0; c < 3 && good; c++) {
      struct result res;
      read_fixture((enum mode)m, name, b, o, chunks[c], &res);
      int64_t want_len = length_kind == LEN_ALWAYS                      ? (int64_t)n
                         : length_kind == LEN_SIZED && m != MODE_PIPE ? (int64_t)n
                                                                      : -1;
      if (res.status != GQ_SUCCESS) {
        snprintf(why, sizeof why, "chunk %zu: status %d: %s", chunks[c], res.status, res.msg);
        good = 0;
      } else if (res.dtype != dtype) {
        snprintf(why, sizeof why, "chunk %zu: dtype %d", chunks[c], (int)res.dtype);
        good = 0;
      } else if (res.length != want_len) {
        snprintf(why, sizeof why, "chunk %zu: length %lld, want %lld", chunks[c],
                 (long long)res.length, (long long)want_len);
        good = 0;
      } else if (res.n != n) {
        snprintf(why, sizeof why, "chunk %zu: %zu values, want %zu", chunks[c], res.n, n);
        good = 0;
      } else {
        for (size_t i = 0; i < n; i++)
          if (!same(res.v[i], want[i])) {
            snprintf(why, sizeof why, "chunk %zu: value %zu is %.17g, want %.17g",
                     chunks[c], i, res.v[i], want[i]);
            good = 0;
            break;
          }
      }
      free(res.v);
    }
    if (!tap_ok(good, "%s (%s)", desc, mode_name[m]))
      diag("%s", why);
  }
}

static void check_bad(const char *desc, const char *name, const struct bytes *b,
                      const gq_reader_opts *o, int status, const char *substr,
                      int modes /* bit mask of modes */)
{
  for (int m = 0; m < 3; m++) {
    if (!(modes & (1 << m)))
      continue;
    struct result res;
    read_fixture((enum mode)m, name, b, o, 4096, &res);
    free(res.v);
    const char *path = tmp_path(name);
    int good = res.status == status && strstr(res.msg, substr) != NULL &&
               strncmp(res.msg, path, strlen(path)) == 0;
    if (!tap_ok(good, "%s (%s)", desc, mode_name[m]))
      diag("status %d (want %d), message \"%s\" (want \"%s: ...%s...\")", res.status,
           status, res.msg, path, substr);
  }
}

#define ALL_MODES 7
#define FILE_MEM 5

/* ---- npy ---------------------------------------------------------------- */

static void test_npy_good(void)
{
  static double want[100000];
  struct {
    int major;
    const char *descr;
    int f32, big;
  } kinds[] = {
      {1, "<f8", 0, 0}, {2, "<f8", 0, 0}, {3, "<f8", 0, 0}, {1, ">f8", 0, 1},
      {1, "<f4", 1, 0}, {2, ">f4", 1, 1}, {3, "<f4", 1, 0}, {3, ">f8", 0, 1},
  };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t n = 1000;
    struct bytes b = {0};
    char dict[200], desc[200];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }",
             kinds[k].descr, n);
    put_npy_header(&b, kinds[k].major, 0, dict);
    put_values(&b, n, kinds[k].f32, kinds[k].big);
    expect_values(want, n, kinds[k].f32);
    snprintf(desc, sizeof desc, "npy v%d.0 %s (1000,)", kinds[k].major, kinds[k].descr);
    check_good(desc, "a.npy", &b, NULL, kinds[k].f32 ? GQ_DTYPE_F32 : GQ_DTYPE_F64,
               want, n, LEN_ALWAYS);
    free(b.p);
  }

  /* shapes and header spellings; all <f8 little-endian */
  struct {
    const char *desc, *dict;
    size_t n;
  } shapes[] = {
      {"3-d (2, 3, 5)", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 5), }", 30},
      {"scalar shape ()", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 1},
      {"empty (0,)", "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", 0},
      {"empty (2, 0, 3)", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 0, 3), }", 0},
      {"keys in another order, no trailing comma",
       "{'shape': (7,), 'fortran_order': False, 'descr': '<f8'}", 7},
      {"double quotes and odd spacing",
       "{ \"descr\" :\"<f8\" ,\"fortran_order\":False,  \"shape\":( 9 , ) ,}", 9},
      {"no spaces at all", "{'descr':'<f8','fortran_order':False,'shape':(5,)}", 5},
      {"python 2 long suffix", "{'descr': '<f8', 'fortran_order': False, 'shape': (6L,), }", 6},
      {"unknown key ignored",
       "{'descr': '<f8', 'meta': {'a': [1, (2, 3)], 'b': 'x}'}, 'fortran_order': False, "
       "'shape': (4,), }", 4},
      {"native order =f8", "{'descr': '=f8', 'fortran_order': False, 'shape': (8,), }", 8},
      {"tabs and newlines inside the dict",
       "{'descr':\t'<f8',\n'fortran_order': False,\r\n'shape': (3,)\n}", 3},
      {"large 1-d (100000,)", "{'descr': '<f8', 'fortran_order': False, 'shape': (100000,), }",
       100000},
  };
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    struct bytes b = {0};
    put_npy_header(&b, 1, 0, shapes[k].dict);
    put_values(&b, shapes[k].n, 0, 0);
    expect_values(want, shapes[k].n, 0);
    char desc[200];
    snprintf(desc, sizeof desc, "npy %s", shapes[k].desc);
    check_good(desc, "s.npy", &b, NULL, GQ_DTYPE_F64, want, shapes[k].n, LEN_ALWAYS);
    free(b.p);
  }

  /* trailing bytes after the data are ignored, as numpy.load does */
  struct bytes b = {0};
  put_npy_header(&b, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }");
  put_values(&b, 10, 0, 0);
  put_str(&b, "trailing junk");
  expect_values(want, 10, 0);
  check_good("npy trailing bytes ignored", "t.npy", &b, NULL, GQ_DTYPE_F64, want, 10, LEN_ALWAYS);
  free(b.p);

  /* big-endian data into a buffer that is not 8-byte aligned */
  b = (struct bytes){0};
  put_npy_header(&b, 1, 0, "{'descr': '>f8', 'fortran_order': False, 'shape': (100,), }");
  put_values(&b, 100, 0, 1);
  gq_reader *r;
  char msg[256];
  unsigned char raw[100 * 8 + 1];
  size_t got = 0;
  int st = gq_reader_open_mem(b.p, b.n, "u.npy", NULL, &r, msg, sizeof msg);
  if (st == GQ_SUCCESS)
    st = gq_reader_read(r, raw + 1, 100, &got, msg, sizeof msg);
  int good = st == GQ_SUCCESS && got == 100;
  for (size_t i = 0; good && i < 100; i++) {
    double x;
    memcpy(&x, raw + 1 + 8 * i, 8);
    good = same(x, value(i));
  }
  tap_ok(good, "npy >f8 swapped into an unaligned buffer");
  gq_reader_close(r);
  free(b.p);
}

/* ---- Fortran order ----------------------------------------------------- */

/* Data bytes of the array whose C-order flat element c is value(c), written
 * in Fortran order (first index fastest), as numpy.save writes an F-contiguous
 * array.  Each file position is turned into its multi-index, and that into
 * the C-order index, by plain arithmetic independent of the reader's
 * odometer. */
static void put_fortran_values(struct bytes *b, const size_t *shape, int ndim, int f32, int big)
{
  size_t n = 1;
  for (int k = 0; k < ndim; k++)
    n *= shape[k];
  int swap = big == gq_host_is_little_endian();
  for (size_t pos = 0; pos < n; pos++) {
    size_t rest = pos, idx[8];
    for (int k = 0; k < ndim; k++) {  /* first index fastest */
      idx[k] = rest % shape[k];
      rest /= shape[k];
    }
    size_t c = 0;
    for (int k = 0; k < ndim; k++)  /* last index fastest */
      c = c * shape[k] + idx[k];
    put_value(b, value(c), f32, swap);
  }
}

static void shape_text(char *out, size_t len, const size_t *shape, int ndim)
{
  size_t k = (size_t)snprintf(out, len, "(");
  for (int i = 0; i < ndim && k < len; i++)
    k += (size_t)snprintf(out + k, len - k, "%zu%s", shape[i],
                          ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
  if (k < len)
    snprintf(out + k, len - k, ")");
}

static void test_npy_fortran(void)
{
  static double want[200000];
  struct {
    int ndim;
    size_t shape[6];
  } shapes[] = {
      {2, {2, 3}},       {2, {3, 2}},          {2, {3, 4}},          {3, {2, 3, 4}},
      {3, {4, 3, 2}},    {4, {2, 3, 2, 5}},    {6, {2, 2, 2, 2, 2, 3}},
      {3, {2, 1, 3}},    {4, {3, 1, 1, 2}},    {2, {1, 5}},          {2, {5, 1}},
      {4, {1, 1, 7, 1}}, {1, {9}},             {0, {0}},             {2, {0, 3}},
      {3, {3, 0, 2}},    {2, {1, 1}},          {2, {500, 300}},      {2, {7, 20000}},
  };
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    char st[64], dict[200], desc[200];
    shape_text(st, sizeof st, shapes[k].shape, shapes[k].ndim);
    size_t n = 1;
    for (int i = 0; i < shapes[k].ndim; i++)
      n *= shapes[k].shape[i];
    snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': True, 'shape': %s, }", st);
    struct bytes b = {0};
    put_npy_header(&b, 1, 0, dict);
    put_fortran_values(&b, shapes[k].shape, shapes[k].ndim, 0, 0);
    expect_values(want, n, 0);
    snprintf(desc, sizeof desc, "npy Fortran order %s delivered in C order", st);
    check_good(desc, "f.npy", &b, NULL, GQ_DTYPE_F64, want, n, LEN_ALWAYS);
    free(b.p);
  }

  /* every dtype, byte order and version, 3-d */
  struct {
    int major;
    const char *descr;
    int f32, big;
  } kinds[] = {{1, ">f8", 0, 1}, {2, "<f4", 1, 0}, {3, ">f4", 1, 1}, {3, "=f8", 0, 0},
               {2, "<f8", 0, 0}};
  const size_t shape[3] = {3, 5, 7};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    char dict[200], desc[200];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': True, 'shape': (3, 5, 7), }",
             kinds[k].descr);
    struct bytes b = {0};
    put_npy_header(&b, kinds[k].major, 0, dict);
    put_fortran_values(&b, shape, 3, kinds[k].f32, kinds[k].big || (kinds[k].descr[0] == '=' &&
                                                                     !gq_host_is_little_endian()));
    expect_values(want, 105, kinds[k].f32);
    snprintf(desc, sizeof desc, "npy v%d.0 %s Fortran (3, 5, 7) in C order", kinds[k].major,
             kinds[k].descr);
    check_good(desc, "f.npy", &b, NULL, kinds[k].f32 ? GQ_DTYPE_F32 : GQ_DTYPE_F64, want, 105,
               LEN_ALWAYS);
    free(b.p);
  }

  /* bytes after a Fortran array are ignored, as after a C-order one */
  struct bytes b = {0};
  put_npy_header(&b, 1, 0, "{'descr': '<f8', 'fortran_order': True, 'shape': (4, 3), }");
  const size_t s43[2] = {4, 3};
  put_fortran_values(&b, s43, 2, 0, 0);
  put_str(&b, "trailing");
  expect_values(want, 12, 0);
  check_good("npy Fortran (4, 3) with trailing bytes", "f.npy", &b, NULL, GQ_DTYPE_F64, want, 12,
             LEN_ALWAYS);

  /* short data: refused at open, never a partial array in some order */
  b.n -= 8 + strlen("trailing");
  check_bad("npy Fortran (4, 3) one element short", "f.npy", &b, NULL, GQ_EIO,
            "truncated: header says 12 elements, file has 11", ALL_MODES);
  b.n -= 3;
  check_bad("npy Fortran (4, 3) short inside an element", "f.npy", &b, NULL, GQ_EIO,
            "truncated: header says 12 elements, file has 10", ALL_MODES);
  free(b.p);

  /* a pipe's buffer grows only with the bytes that arrive */
  b = (struct bytes){0};
  put_npy_header(&b, 1, 0,
                 "{'descr': '<f8', 'fortran_order': True, 'shape': (65536, 2047), }");
  put_values(&b, 1000, 0, 0);
  check_bad("npy Fortran header of 1023 MiB over 1000 elements", "f.npy", &b, NULL, GQ_EIO,
            "truncated: header says 134152192 elements, file has 1000", 2);
  free(b.p);

  /* past the limit: refused before reading, from a pipe and from a (sparse) file */
  b = (struct bytes){0};
  put_npy_header(&b, 1, 0,
                 "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 67108865), }");
  check_bad("npy Fortran past the 1 GiB limit", "f.npy", &b, NULL, GQ_EFORMAT,
            "Fortran-order array of 1073741840 bytes is too large to reorder", 2);
  const char *path = tmp_path("big.npy");
  write_file(path, b.p, b.n);
  char msg[512] = "";
  gq_reader *r = NULL;
  int st = truncate(path, (off_t)(b.n + 1073741840u)) == 0
               ? gq_reader_open(path, NULL, &r, msg, sizeof msg)
               : -1;
  tap_ok(st == GQ_EFORMAT && r == NULL && strstr(msg, "too large to reorder to C order") &&
             strstr(msg, "numpy.ascontiguousarray"),
         "npy Fortran past the 1 GiB limit (sparse file): %s", msg);
  unlink(path);
  free(b.p);
  /* one axis longer than 1 needs no reorder: the same size streams */
  b = (struct bytes){0};
  put_npy_header(&b, 1, 0,
                 "{'descr': '<f8', 'fortran_order': True, 'shape': (1, 134217730, 1), }");
  write_file(path, b.p, b.n);
  st = truncate(path, (off_t)(b.n + 1073741840u)) == 0
           ? gq_reader_open(path, NULL, &r, msg, sizeof msg)
           : -1;
  tap_ok(st == GQ_SUCCESS && gq_reader_length(r) == 134217730,
         "npy Fortran (1, 134217730, 1) of 1 GiB streams without a copy");
  gq_reader_close(r);
  unlink(path);
  free(b.p);

  static const char *not_bool[] = {"true", "1", "0", "'True'", "None", "Truex", "TRUE", "False0"};
  for (size_t k = 0; k < sizeof not_bool / sizeof not_bool[0]; k++) {
    char dict[200], desc[100];
    snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': %s, 'shape': (2, 3), }",
             not_bool[k]);
    snprintf(desc, sizeof desc, "npy fortran_order %s rejected", not_bool[k]);
    b = (struct bytes){0};
    put_npy_header(&b, 1, 0, dict);
    put_values(&b, 6, 0, 0);
    check_bad(desc, "bad.npy", &b, NULL, GQ_EFORMAT, "bad npy header: ", ALL_MODES);
    free(b.p);
  }
}

static void npy_bad(const char *desc, int major, int minor, const char *dict,
                    size_t n_data, int status, const char *substr)
{
  struct bytes b = {0};
  put_npy_header(&b, major, minor, dict);
  put_values(&b, n_data, 0, 0);
  check_bad(desc, "bad.npy", &b, NULL, status, substr, ALL_MODES);
  free(b.p);
}

static void test_npy_bad(void)
{
  const char *expect = "(expected a float (f8 f4 f2), signed or unsigned integer";
  static const char *dtypes[] = {"<c16", "|O", "<U10", "|f8", "|i4", "<i3", "<u16", "<f16", "<b2", ""};
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    char dict[200], desc[100], sub[100];
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }",
             dtypes[k]);
    snprintf(desc, sizeof desc, "npy dtype '%s' rejected", dtypes[k]);
    snprintf(sub, sizeof sub, "unsupported dtype '%s' %s", dtypes[k], expect);
    npy_bad(desc, 1, 0, dict, 3, GQ_EFORMAT, sub);
  }
  npy_bad("npy structured dtype rejected", 1, 0,
          "{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (3,), }",
          3, GQ_EFORMAT, "structured dtypes are not supported");
  npy_bad("npy version 4.0 rejected", 4, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 3, GQ_EFORMAT,
          "unsupported npy version 4.0");
  npy_bad("npy version 1.1 rejected", 1, 1,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 3, GQ_EFORMAT,
          "unsupported npy version 1.1");
  npy_bad("npy header not a dict", 1, 0, "hello", 0, GQ_EFORMAT, "bad npy header: header is not a dict");
  npy_bad("npy header missing shape", 1, 0, "{'descr': '<f8', 'fortran_order': False}", 0,
          GQ_EFORMAT, "header has no 'shape'");
  npy_bad("npy header missing descr", 1, 0, "{'fortran_order': False, 'shape': (1,)}", 1,
          GQ_EFORMAT, "header has no 'descr'");
  npy_bad("npy header missing fortran_order", 1, 0, "{'descr': '<f8', 'shape': (1,)}", 1,
          GQ_EFORMAT, "header has no 'fortran_order'");
  npy_bad("npy negative dimension", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }", 0, GQ_EFORMAT,
          "negative dimension");
  npy_bad("npy shape not a tuple", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': 'abc', }", 0, GQ_EFORMAT,
          "shape must be a tuple");
  npy_bad("npy shape with a float", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,), }", 0, GQ_EFORMAT,
          "bad npy header");
  npy_bad("npy fortran_order not a bool", 1, 0,
          "{'descr': '<f8', 'fortran_order': maybe, 'shape': (1,), }", 1, GQ_EFORMAT,
          "fortran_order must be True or False");
  npy_bad("npy unterminated string", 1, 0, "{'descr': '<f8", 0, GQ_EFORMAT, "unterminated string");
  npy_bad("npy text after the dict", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } xyz", 1, GQ_EFORMAT,
          "text after the header dict");
  npy_bad("npy missing comma between items", 1, 0,
          "{'descr': '<f8' 'fortran_order': False, 'shape': (1,), }", 1, GQ_EFORMAT,
          "expected ',' or '}'");
  npy_bad("npy shape product overflow", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
          0, GQ_EFORMAT, "shape product overflows");
  npy_bad("npy dimension overflow", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
          0, GQ_EFORMAT, "dimension too large");
  npy_bad("npy truncated data", 1, 0,
          "{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }", 999, GQ_EIO,
          "truncated: header says 1000 elements, file has 999");

  struct bytes b = {0};
  put_npy_header(&b, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }");
  put_values(&b, 999, 0, 0);
  put_str(&b, "abc");
  check_bad("npy truncated inside the last element", "bad.npy", &b, NULL, GQ_EIO,
            "truncated: header says 1000 elements, file has 999", ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  put_str(&b, "\x93NUMPX\x01\x00\x10\x00{}              ");
  check_bad("npy bad magic", "bad.npy", &b, NULL, GQ_EFORMAT, "not an npy file (bad magic)",
            ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  put_str(&b, "PK\x03\x04 this is a zip");
  check_bad("npy zip file (npz) is not npy", "bad.npy", &b, NULL, GQ_EFORMAT, "bad magic",
            ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  check_bad("npy empty file", "bad.npy", &b, NULL, GQ_EIO, "truncated npy header", ALL_MODES);
  put(&b, "\x93NUMPY\x01\x00", 8);
  check_bad("npy file ends in the preamble", "bad.npy", &b, NULL, GQ_EIO,
            "truncated npy header (8 bytes)", ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  put(&b, "\x93NUMPY\x02\x00\x40\x00", 10);
  check_bad("npy v2 ends in the 4-byte length", "bad.npy", &b, NULL, GQ_EIO,
            "truncated npy header (10 bytes)", ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  put(&b, "\x93NUMPY\x01\x00\xc8\x00{'descr': '<f8', 'fortran_order'", 10 + 31);
  check_bad("npy truncated header", "bad.npy", &b, NULL, GQ_EIO,
            "truncated npy header: 200 bytes announced, 31 present", ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  put(&b, "\x93NUMPY\x02\x00\x00\x00\x00\x10", 12);
  check_bad("npy v2 header length 256 MiB rejected", "bad.npy", &b, NULL, GQ_EFORMAT,
            "too large", ALL_MODES);
  free(b.p);
}

/* ---- raw ----------------------------------------------------------------- */

static void test_raw(void)
{
  static double want[5000];
  struct bytes b = {0};
  put_values(&b, 5000, 0, 0);
  expect_values(want, 5000, 0);
  check_good("raw f64 by extension .bin", "v.bin", &b, NULL, GQ_DTYPE_F64, want, 5000, LEN_SIZED);
  check_good("raw f64 by extension .f64", "v.f64", &b, NULL, GQ_DTYPE_F64, want, 5000, LEN_SIZED);
  gq_reader_opts o = {.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 0};
  check_good("raw forced on a .txt name", "v.txt", &b, &o, GQ_DTYPE_F64, want, 5000, LEN_SIZED);
  o.offset = 16;
  check_good("raw offset 16 skips two elements", "v.raw", &b, &o, GQ_DTYPE_F64, want + 2, 4998, LEN_SIZED);
  free(b.p);

  /* offset: 16 junk bytes then data */
  b = (struct bytes){0};
  put_str(&b, "0123456789abcdef");
  put_values(&b, 300, 0, 0);
  o = (gq_reader_opts){.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 16, .column = 0};
  expect_values(want, 300, 0);
  check_good("raw --offset=16 past a header", "h.raw", &b, &o, GQ_DTYPE_F64, want, 300, LEN_SIZED);
  o.offset = b.n;
  check_good("raw offset == size is empty", "h.raw", &b, &o, GQ_DTYPE_F64, want, 0, LEN_SIZED);
  o.offset = b.n + 1;
  check_bad("raw offset past the end", "h.raw", &b, &o, GQ_EINVAL, "is past the end", ALL_MODES);
  free(b.p);

  b = (struct bytes){0};
  put_values(&b, 777, 1, 0);
  expect_values(want, 777, 1);
  check_good("raw f32 by extension .f32", "v.f32", &b, NULL, GQ_DTYPE_F32, want, 777, LEN_SIZED);
  o = (gq_reader_opts){.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_F32, .offset = 0, .column = 0};
  check_good("raw --dtype=f32", "v.dat", &b, &o, GQ_DTYPE_F32, want, 777, LEN_SIZED);
  o = (gq_reader_opts){.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 0};
  check_good("raw --format=raw on a .f32 name is f32", "v.f32", &b, &o, GQ_DTYPE_F32, want,
             777, LEN_SIZED);
  free(b.p);

  b = (struct bytes){0};
  put_values(&b, 10, 0, 0);
  put_str(&b, "xyz");
  check_bad("raw trailing partial element (sized)", "p.bin", &b, NULL, GQ_EFORMAT,
            "not a whole number of f64 elements (3 bytes left over)", FILE_MEM);
  check_bad("raw trailing partial element (pipe)", "p.bin", &b, NULL, GQ_EFORMAT,
            "input ends inside an element (3 bytes of 8) after 10 elements", 2);
  free(b.p);

  b = (struct bytes){0};
  check_good("raw empty file is an empty vector", "e.bin", &b, NULL, GQ_DTYPE_F64, want, 0, LEN_SIZED);
}

/* ---- text ----------------------------------------------------------------- */

static void put_number(struct bytes *b, double x)
{
  char s[64];
  if (isnan(x))
    snprintf(s, sizeof s, "nan");
  else
    snprintf(s, sizeof s, "%.17g", x);
  put_str(b, s);
}

static void text_bad(const char *desc, const char *name, const char *text, int column,
                     int status, const char *substr)
{
  struct bytes b = {0};
  put_str(&b, text);
  gq_reader_opts o = {.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = column};
  check_bad(desc, name, &b, &o, status, substr, ALL_MODES);
  free(b.p);
}

static void text_good(const char *desc, const char *name, const char *text, int column,
                      const double *want, size_t n)
{
  struct bytes b = {0};
  put_str(&b, text);
  gq_reader_opts o = {.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = column};
  check_good(desc, name, &b, &o, GQ_DTYPE_F64, want, n, LEN_NEVER);
  free(b.p);
}

static void test_text(void)
{
  static double want[20000];
  size_t n = 20000;
  struct bytes b = {0};
  for (size_t i = 0; i < n; i++) {
    put_number(&b, value(i));
    put_str(&b, "\n");
  }
  expect_values(want, n, 0);
  check_good("text %.17g round-trips exactly, nan/inf included", "x.txt", &b, NULL,
             GQ_DTYPE_F64, want, n, LEN_NEVER);
  free(b.p);

  /* csv, column 2, comments, CRLF, blank lines, last line without newline */
  b = (struct bytes){0};
  put_str(&b, "# i, value, twice\r\n\r\n");
  for (size_t i = 0; i < 500; i++) {
    char s[64];
    snprintf(s, sizeof s, "%zu, ", i);
    put_str(&b, s);
    put_number(&b, value(i));
    put_str(&b, i % 7 == 0 ? " ,1e3 # note\r\n" : (i % 5 == 0 ? ",2\n\n" : ",3\n"));
  }
  put_str(&b, "500,");
  put_number(&b, value(500));
  put_str(&b, ",4");
  expect_values(want, 501, 0);
  gq_reader_opts o = {.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 2};
  check_good("csv --col=2 with comments, CRLF, blank lines, no final newline", "x.csv", &b,
             &o, GQ_DTYPE_F64, want, 501, LEN_NEVER);
  free(b.p);

  double w1[] = {1.5, -2, 0.25, INFINITY, -INFINITY, NAN, NAN, INFINITY, 1e-300, 0x1p-3};
  text_good("text spellings: nan NaN inf -inf Infinity 1e999 hex", "s.txt",
            "  1.5\n-2\n\t+.25  \ninf\n-Infinity\nnan\nNaN\n1e999\n1e-300\n0x1p-3\n", 0, w1, 10);
  double w2[] = {3, 30, 300};
  text_good("tsv --col=3: blanks around a cell trimmed", "t.tsv", "a\tb\t3\n1\t2\t30 # c\n 1 \t 2\t300\r\n", 3,
            w2, 3);
  text_good("whitespace table --col=3, comment-only lines", "t.dat",
            "# header\n1 2 3 4\n   # indented comment\n5  6 30\n7 8 300 9 10\n", 3, w2, 3);
  double w3[] = {-0.0, 0, 5};
  text_good("signed zero kept", "z.txt", "-0\n0.0\n5\n", 0, w3, 3);

  text_bad("text non-number names line and text", "x.txt", "1\n2\nabc\n4\n", 0, GQ_EFORMAT,
           "line 3: 'abc' is not a number");
  text_bad("text comma decimal is not a number", "x.txt", "1.5\n\n2;5\n", 0, GQ_EFORMAT,
           "line 3: '2;5' is not a number");
  text_bad("text two columns without --col", "x.txt", "1 2\n", 0, GQ_EFORMAT,
           "line 1: 2 columns, expected one number per line");
  text_bad("csv --col beyond the row", "x.csv", "1,2,3\n4,5,6\n7,8\n", 3, GQ_EFORMAT,
           "line 3: column 3 requested but the line has 2 columns");
  double w4[] = {2, NAN, NAN};
  text_good("csv empty field is NaN, trailing comma too", "x.csv", "1,2,3\n4,,6\n7, ,\n", 2, w4, 3);
  double w5[] = {6, NAN};
  text_good("csv trailing comma: an empty last cell", "x.csv", "1,2,6\n4,5,\n", 3, w5, 2);
  text_bad("text empty file", "empty.txt", "", 0, GQ_EFORMAT, "empty.txt: no numbers");
  text_bad("text only comments and blanks", "c.txt", "# a\n\n   \n# b", 0, GQ_EFORMAT,
           "no numbers");
  text_bad("text binary junk quoted escaped", "j.txt", "1\n\x01\x02zz\n", 0, GQ_EFORMAT,
           "line 2: '\\x01\\x02zz' is not a number");
  text_bad("text partial number", "p.txt", "1e\n", 0, GQ_EFORMAT, "line 1: '1e' is not a number");
  text_bad("text 1.2.3", "p.txt", "1.2.3\n", 0, GQ_EFORMAT, "'1.2.3' is not a number");

  /* a 3 MiB comment line forces buffer growth; line numbers stay right */
  b = (struct bytes){0};
  put_str(&b, "1\n#");
  for (int i = 0; i < 3 << 20; i++)
    put(&b, "x", 1);
  put_str(&b, "\n2\nbad\n");
  check_bad("text 3 MiB line then an error on line 4", "long.txt", &b, NULL, GQ_EFORMAT,
            "line 4: 'bad' is not a number", ALL_MODES);
  free(b.p);
}

/* ---- integer, bool and float16 dtypes (widened to f64) ------------------ */

/* n elements of `size` bytes from the little-endian values v (two's
 * complement), in the byte order asked for. */
static void put_ints(struct bytes *b, const uint64_t *v, size_t n, size_t size, int big)
{
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < size; k++) {
      const unsigned char c = (unsigned char)(v[i] >> (8 * (big ? size - 1 - k : k)));
      put(b, &c, 1);
    }
}

static void test_dtypes(void)
{
  static const struct {
    const char *code;
    size_t size;
    uint64_t bits[4];
    double want[4];
  } kinds[] = {
      {"i1", 1, {0x7f, 0x80, 0xff, 0x05}, {127, -128, -1, 5}},
      {"u1", 1, {0x7f, 0x80, 0xff, 0x05}, {127, 128, 255, 5}},
      {"b1", 1, {0x00, 0x01, 0x01, 0x00}, {0, 1, 1, 0}},
      {"i2", 2, {0x7fff, 0x8000, 0xfffe, 0x0102}, {32767, -32768, -2, 258}},
      {"u2", 2, {0x7fff, 0x8000, 0xfffe, 0x0102}, {32767, 32768, 65534, 258}},
      {"i4", 4, {0x7fffffff, 0x80000000, 0xfffffffd, 0x01020304}, {2147483647, -2147483648.0, -3, 16909060}},
      {"u4", 4, {0x7fffffff, 0x80000000, 0xfffffffd, 0x01020304}, {2147483647, 2147483648.0, 4294967293.0, 16909060}},
      {"i8", 8, {(1ull << 53), 0x8000000000000000ull, 0xffffffffffffffffull, 12345},
       {9007199254740992.0, -9223372036854775808.0, -1, 12345}},
      {"u8", 8, {(1ull << 53), 0x8000000000000000ull, 0xffffffffffffffffull, 12345},
       {9007199254740992.0, 9223372036854775808.0, 18446744073709551616.0, 12345}},
      /* float16: 1, -2, 65504 (largest), 2^-24 (smallest subnormal) */
      {"f2", 2, {0x3c00, 0xc000, 0x7bff, 0x0001}, {1, -2, 65504, 0x1p-24}},
  };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (int big = 0; big < 2; big++) {
      const char order = kinds[k].size == 1 ? (big ? '<' : '|') : (big ? '>' : '<');
      char dict[200], desc[100];
      snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': (4,), }", order,
               kinds[k].code);
      snprintf(desc, sizeof desc, "npy %c%s widened to f64 exactly", order, kinds[k].code);
      struct bytes b = {0};
      put_npy_header(&b, 1, 0, dict);
      put_ints(&b, kinds[k].bits, 4, kinds[k].size, big);
      check_good(desc, "d.npy", &b, NULL, GQ_DTYPE_F64, kinds[k].want, 4, LEN_ALWAYS);
      free(b.p);
    }

  /* float16 Inf, NaN and signed zero; a Fortran-order int16 array */
  const uint64_t special[4] = {0x7c00, 0xfc00, 0x7e00, 0x8000};
  const double special_want[4] = {INFINITY, -INFINITY, NAN, -0.0};
  struct bytes b = {0};
  put_npy_header(&b, 1, 0, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }");
  put_ints(&b, special, 4, 2, 0);
  check_good("npy <f2 inf, -inf, nan, -0", "h.npy", &b, NULL, GQ_DTYPE_F64, special_want, 4, LEN_ALWAYS);
  free(b.p);
  const uint64_t fortran[6] = {1, 4, 2, 5, 3, 6};  /* [[1,2,3],[4,5,6]] stored column by column */
  const double c_order[6] = {1, 2, 3, 4, 5, 6};
  b = (struct bytes){0};
  put_npy_header(&b, 1, 0, "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }");
  put_ints(&b, fortran, 6, 2, 1);
  check_good("npy >i2 Fortran order handed out in C order", "f.npy", &b, NULL, GQ_DTYPE_F64, c_order, 6,
             LEN_ALWAYS);
  free(b.p);

  /* raw: native order; int64 beyond 2^53 rounded to nearest and counted */
  const uint64_t raw_bits[4] = {(1ull << 53) + 1, 3, (1ull << 62) + 1, 0xffffffffffffffffull};
  const double raw_want[4] = {9007199254740992.0, 3, 4611686018427387904.0, -1};
  b = (struct bytes){0};
  put_ints(&b, raw_bits, 4, 8, !gq_host_is_little_endian());
  gq_reader_opts o = {.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_I64};
  check_good("raw int64, values beyond 2^53 rounded to nearest", "r.bin", &b, &o, GQ_DTYPE_F64, raw_want, 4,
             LEN_SIZED);
  gq_reader *r = NULL;
  char msg[512];
  double out[4];
  size_t got = 0;
  int st = gq_reader_open_mem(b.p, b.n, "r.bin", &o, &r, msg, sizeof msg);
  if (st == GQ_SUCCESS)
    st = gq_reader_read(r, out, 4, &got, msg, sizeof msg);
  tap_ok(st == GQ_SUCCESS && got == 4 && gq_reader_inexact(r) == 2 && gq_reader_stored_dtype(r) == GQ_DTYPE_I64 &&
             gq_reader_dtype(r) == GQ_DTYPE_F64,
         "int64: 2 of 4 values inexact in double (2^53 + 1, 2^62 + 1), counted (%llu)",
         r ? (unsigned long long)gq_reader_inexact(r) : 0ull);
  gq_reader_close(r);
  free(b.p);

  b = (struct bytes){0};
  put_str(&b, "\x01\x02\x03");
  o = (gq_reader_opts){.format = GQ_FORMAT_RAW, .raw_dtype = GQ_DTYPE_I16};
  check_bad("raw int16 of an odd byte count", "odd.bin", &b, &o, GQ_EFORMAT,
            "3 data bytes are not a whole number of int16 elements (1 bytes left over)", FILE_MEM);
  o = (gq_reader_opts){.raw_dtype = GQ_DTYPE_U8};
  const double u8_want[3] = {1, 2, 3};
  check_good("a dtype makes input without an extension raw (pipes too)", "noext", &b, &o, GQ_DTYPE_F64, u8_want,
             3, LEN_SIZED);
  o = (gq_reader_opts){.raw_dtype = (gq_dtype)99};
  check_bad("unknown dtype value", "noext", &b, &o, GQ_EINVAL, "unknown dtype 99", ALL_MODES);
  free(b.p);

  gq_dtype t = GQ_DTYPE_NONE;
  int names_ok = gq_dtype_from_name("int32", &t) == GQ_SUCCESS && t == GQ_DTYPE_I32 &&
                 gq_dtype_from_name("i8", &t) == GQ_SUCCESS && t == GQ_DTYPE_I64 &&
                 gq_dtype_from_name("float16", &t) == GQ_SUCCESS && t == GQ_DTYPE_F16 &&
                 gq_dtype_from_name("b1", &t) == GQ_SUCCESS && t == GQ_DTYPE_BOOL &&
                 strcmp(gq_dtype_name(GQ_DTYPE_U16), "uint16") == 0 &&
                 gq_dtype_from_name("int", &t) == GQ_EINVAL && strstr(gq_last_error(), "unknown dtype 'int'");
  tap_ok(names_ok, "dtype names: numpy's names and codes (i8 is int64), unknown refused");
  tap_ok(gq_dtype_from_name(NULL, &t) == GQ_EINVAL && gq_dtype_from_name("f8", NULL) == GQ_EINVAL &&
             gq_reader_stored_dtype(NULL) == GQ_DTYPE_NONE && gq_reader_inexact(NULL) == 0 &&
             strcmp(gq_dtype_name((gq_dtype)99), "") == 0 && strcmp(gq_format_name(GQ_FORMAT_NPZ), "npz") == 0 &&
             strcmp(gq_format_name((gq_format)-1), "") == 0,
         "NULL and out-of-range arguments: EINVAL or the neutral value");
}

/* ---- tables: header lines, names, NA cells, quotes, BOM ---------------- */

static void table_good(const char *desc, const char *name, const char *text, const gq_reader_opts *o,
                       const double *want, size_t n)
{
  struct bytes b = {0};
  put_str(&b, text);
  check_good(desc, name, &b, o, GQ_DTYPE_F64, want, n, LEN_NEVER);
  free(b.p);
}

static void table_bad(const char *desc, const char *name, const char *text, const gq_reader_opts *o, int status,
                      const char *substr)
{
  struct bytes b = {0};
  put_str(&b, text);
  check_bad(desc, name, &b, o, status, substr, ALL_MODES);
  free(b.p);
}

static void test_tables(void)
{
  const char *csv = "\xef\xbb\xbf# exported\r\ntime,\"pressure, kPa\",temp,flag\r\n0,1.5,NA,x\r\n1,\"2,5\",,y\r\n"
                    "2,\"3.5\",null,z\r\n3,-4,N/A,w\r\n";
  gq_reader_opts o = {.column_name = "pressure, kPa"};
  table_bad("csv: a quoted cell keeps its comma (\"2,5\" is one cell, no number)", "t.csv", csv, &o, GQ_EFORMAT,
            "line 4: '2,5' is not a number");
  const char *csv2 = "\xef\xbb\xbf# exported\r\ntime,\"pressure, kPa\",temp,flag\r\n0,1.5,NA,x\r\n1,\"\",,y\r\n"
                     "2,\"3.5\",null,z\r\n3,-4,N/A,w\r\n";
  const double pressure[] = {1.5, NAN, 3.5, -4};
  table_good("csv: BOM, comment, header with a quoted name, column by name, CRLF", "t.csv", csv2, &o, pressure, 4);
  o = (gq_reader_opts){.column_name = "temp"};
  const double temp[] = {NAN, NAN, NAN, NAN};
  table_good("csv: NA, empty, null, N/A cells are NaN", "t.csv", csv2, &o, temp, 4);
  o = (gq_reader_opts){.column = 1};
  const double time[] = {0, 1, 2, 3};
  table_good("csv: header detected, column by number", "t.csv", csv2, &o, time, 4);
  o = (gq_reader_opts){.column_name = "pressure"};
  table_bad("csv: unknown column name lists the names", "t.csv", csv2, &o, GQ_EINVAL,
            "no column 'pressure' (the header names 'time', 'pressure, kPa', 'temp', 'flag')");
  o = (gq_reader_opts){.column_name = "a"};
  table_bad("csv: a name twice is refused", "t.csv", "a,b,a\n1,2,3\n", &o, GQ_EINVAL,
            "column 'a' is named twice in the header (columns 1 and 3)");
  o = (gq_reader_opts){.column_name = "1"};
  table_bad("csv: a name that a data row holds twice is still no header", "t.csv", "1,1\n3,4\n", &o, GQ_EINVAL,
            "column '1' needs a header line, and line 1 holds data");
  o = (gq_reader_opts){.column_name = "a"};
  table_bad("csv: a name without a header line", "t.csv", "1,2\n3,4\n", &o, GQ_EINVAL,
            "column 'a' needs a header line, and line 1 holds data");
  table_bad("csv: a name in a file of comments", "t.csv", "# nothing\n", &o, GQ_EINVAL,
            "column 'a' needs a header line, and there is none");
  o = (gq_reader_opts){.column_name = "b"};
  const double savetxt_b[] = {2, 4};
  table_good("names from a commented first line, as numpy.savetxt(header=) writes them", "t.csv",
             "# a,b\n1,2\n3,4\n", &o, savetxt_b, 2);
  o = (gq_reader_opts){.column_name = "z"};
  table_bad("... a name it lacks: no header", "t.csv", "# a,b\n1,2\n", &o, GQ_EINVAL,
            "column 'z' needs a header line, and line 2 holds data");
  table_bad("... a comment on a later line names nothing", "t.csv", "1,2\n# z\n3,4\n", &o, GQ_EINVAL,
            "column 'z' needs a header line, and line 1 holds data");
  o = (gq_reader_opts){.column = 2, .header = GQ_HEADER_NO};
  table_bad("--no-header: the names are data", "t.csv", "x,y\n1,2\n", &o, GQ_EFORMAT, "line 1: 'y' is not a number");
  o = (gq_reader_opts){.column = 2, .header = GQ_HEADER_YES};
  const double y[] = {2, 4};
  table_good("--header: a numeric first row is a header", "t.csv", "10,20\n1,2\n3,4\n", &o, y, 2);
  o = (gq_reader_opts){.column = 2};
  const double y3[] = {20, 2, 4};
  table_good("auto: a numeric first row is data", "t.csv", "10,20\n1,2\n3,4\n", &o, y3, 3);
  const double na_first[] = {NAN, 2};
  table_good("auto: a first row of NA cells is data", "t.csv", "NA,NA\n1,2\n", &o, na_first, 2);
  o = (gq_reader_opts){0};
  const double one_col[] = {1.5, NAN, 2.5};
  table_good("one column with a header, NA inside", "v.csv", "value\n1.5\nNA\n\"2.5\"\n", &o, one_col, 3);
  table_bad("a quote left open", "v.csv", "value\n\"1.5\n", &o, GQ_EFORMAT, "line 2: a quote is not closed");
  table_bad("header only: no numbers", "v.csv", "value\n", &o, GQ_EFORMAT, "no numbers");
  o = (gq_reader_opts){.column_name = "b"};
  const double tsv_b[] = {NAN, 5, NAN};
  table_good("tsv: each tab separates (empty cells are NaN)", "t.tsv", "a\tb\tc\n1\t\t3\n4\t5\t6\n\t\t\n", &o,
             tsv_b, 3);
  const double seven[] = {7};
  o = (gq_reader_opts){.column_name = "say \"\"hi\"\""};
  table_good("a quoted name matches as written (\"\" kept)", "q.csv", "\"say \"\"hi\"\"\"\n7\n", &o, seven, 1);
  o = (gq_reader_opts){.column_name = "x", .column = 1};
  table_bad("a column by number and by name", "t.csv", "x\n1\n", &o, GQ_EINVAL, "by number or by name, not both");
  struct bytes npy = {0};
  put_npy_header(&npy, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }");
  put_values(&npy, 1, 0, 0);
  o = (gq_reader_opts){.header = GQ_HEADER_YES};
  check_bad("a header on npy is an option error", "c.npy", &npy, &o, GQ_EINVAL,
            "a header applies to text input only, this is npy", ALL_MODES);
  o = (gq_reader_opts){.member = "a"};
  check_bad("a member on npy is an option error", "c.npy", &npy, &o, GQ_EINVAL,
            "a member ('a') applies to npz input only, this is npy", ALL_MODES);
  free(npy.p);
}

/* The fast path must agree bit for bit with strtod. */
static void test_parse_double(void)
{
  static const char *fixed[] = {
      "0", "1", "-1", "123456789012345678", "9007199254740993", "9007199254740992",
      "1e22", "1e23", "1e-22", "1e-23", "0.1", "0.3", "1.7976931348623157e308",
      "4.9e-324", "2.2250738585072014e-308", "123.456e-7", "000000000000000000000001.5",
      "0.0000000000000000000000000001", "18446744073709551615", "1844674407370955161.5",
      "7.3177701707893310e+15", "89255.0e-22", "3.14159265358979323846264338327950288"};
  int bad = 0;
  char buf[128];
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
    snprintf(buf, sizeof buf, "%s", fixed[k]);
    double got, want = strtod(buf, NULL);
    if (gq_text_parse_double(buf, buf + strlen(buf), &got) != 0 || !same(got, want)) {
      if (bad++ < 5)
        diag("%s: got %.17g want %.17g", buf, got, want);
    }
  }
  tap_ok(bad == 0, "parse: hard cases agree with strtod");

  unsigned long long seed = 88172645463325252ull;
  bad = 0;
  for (int k = 0; k < 300000; k++) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    int digits = 1 + (int)(seed % 20), point = (int)((seed >> 8) % 22);
    int e = (int)((seed >> 16) % 61) - 30, with_e = (seed >> 24) & 1;
    size_t len = 0;
    if ((seed >> 25) & 1)
      buf[len++] = '-';
    unsigned long long s2 = seed;
    for (int d = 0; d < digits; d++) {
      if (d == point)
        buf[len++] = '.';
      s2 = s2 * 6364136223846793005ull + 1442695040888963407ull;
      buf[len++] = (char)('0' + (s2 >> 33) % 10);
    }
    if (with_e)
      len += (size_t)snprintf(buf + len, sizeof buf - len, "e%d", e);
    buf[len] = '\0';
    double got = 0, want = strtod(buf, NULL);
    if (gq_text_parse_double(buf, buf + len, &got) != 0 || !same(got, want)) {
      if (bad++ < 5)
        diag("%s: got %.17g want %.17g", buf, got, want);
    }
  }
  tap_ok(bad == 0, "parse: 300000 random decimals agree with strtod bit for bit");
}

/* A decimal-comma locale must not change parsing. */
static void test_locale(void)
{
  static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8",
                                "fr_FR.utf8", "ru_RU.UTF-8", "nl_NL.UTF-8"};
  const char *got_name = NULL;
  for (size_t k = 0; k < sizeof names / sizeof names[0] && !got_name; k++)
    if (setlocale(LC_NUMERIC, names[k]))
      got_name = names[k];
  if (!got_name || strtod("0.5", NULL) == 0.5) {
    printf("ok %d - # SKIP no decimal-comma locale installed\n", ++tap_count);
    setlocale(LC_NUMERIC, "C");
    return;
  }
  double want[] = {0.5, 0.12345678901234567, 1e300};
  text_good("text parsing ignores a decimal-comma process locale", "l.txt",
            "0.5\n0.12345678901234567\n1e300\n", 0, want, 3);
  setlocale(LC_NUMERIC, "C");
}

/* ---- sniffing, options, files, writer ----------------------------------- */

static void test_sniff_and_options(void)
{
  static double want[64];
  struct bytes npy = {0};
  put_npy_header(&npy, 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }");
  put_values(&npy, 64, 1, 0);
  expect_values(want, 64, 1);
  check_good("sniff: npy content without an extension", "data", &npy, NULL, GQ_DTYPE_F32,
             want, 64, LEN_ALWAYS);
  check_good("sniff: npy content named .xyz", "data.xyz", &npy, NULL, GQ_DTYPE_F32, want, 64, LEN_ALWAYS);
  gq_reader_opts o = {.format = GQ_FORMAT_NPY, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 0};
  check_good("--format=npy on a .txt name", "data.txt", &npy, &o, GQ_DTYPE_F32, want, 64, LEN_ALWAYS);
  o = (gq_reader_opts){.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 2};
  check_bad("column on npy is an option error", "c.npy", &npy, &o, GQ_EINVAL,
            "a column applies to text input only", ALL_MODES);
  o = (gq_reader_opts){.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 8, .column = 0};
  check_bad("offset on npy is an option error", "c.npy", &npy, &o, GQ_EINVAL,
            "apply to raw input only", ALL_MODES);
  o = (gq_reader_opts){.format = GQ_FORMAT_AUTO, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = -1};
  check_bad("negative column", "c.txt", &npy, &o, GQ_EINVAL, "columns count from 1", ALL_MODES);
  o = (gq_reader_opts){.format = (gq_format)9, .raw_dtype = GQ_DTYPE_NONE, .offset = 0, .column = 0};
  check_bad("unknown format value", "c.txt", &npy, &o, GQ_EINVAL, "unknown format 9", ALL_MODES);
  free(npy.p);

  double w[] = {1, 2, 3};
  text_good("sniff: text without an extension", "numbers", "1\n2\n3\n", 0, w, 3);
  text_good("sniff: short text (fewer bytes than the magic)", "short", "1\n2\n3", 0, w, 3);
  text_good("extension is case-insensitive (.TXT)", "N.TXT", "1\n2\n3\n", 0, w, 3);

  struct bytes tiny = {0};
  put_str(&tiny, "\x93NUM");
  check_bad("sniff: a prefix of the magic is text, not a number", "x", &tiny, NULL,
            GQ_EFORMAT, "line 1: '\\x93NUM' is not a number", ALL_MODES);
  free(tiny.p);

  /* open errors */
  char msg[512];
  gq_reader *r = (gq_reader *)&msg;
  const char *missing = tmp_path("missing.npy");
  int st = gq_reader_open(missing, NULL, &r, msg, sizeof msg);
  char want_msg[600];
  snprintf(want_msg, sizeof want_msg, "%s: No such file or directory", missing);
  tap_ok(st == GQ_EIO && r == NULL && strcmp(msg, want_msg) == 0, "missing file: %s", msg);
  st = gq_reader_open(tmpdir, NULL, &r, msg, sizeof msg);
  tap_ok(st == GQ_EIO && strstr(msg, "Is a directory") != NULL, "directory: %s", msg);
  st = gq_reader_open(missing, NULL, &r, NULL, 0);
  tap_ok(st == GQ_EIO, "NULL message buffer is allowed");

  /* read argument errors and sticky failure */
  const char *p = tmp_path("sticky.txt");
  write_file(p, "1\n2\nx\n3\n", 8);
  st = gq_reader_open(p, NULL, &r, msg, sizeof msg);
  double buf[8];
  size_t got = 99;
  int st0 = gq_reader_read(r, buf, 0, &got, msg, sizeof msg);
  tap_ok(st == GQ_SUCCESS && st0 == GQ_EINVAL && got == 0, "read with max_elems 0 is EINVAL");
  int st1 = gq_reader_read(r, buf, 8, &got, msg, sizeof msg);
  int good = st1 == GQ_EFORMAT && got == 2 && buf[0] == 1 && buf[1] == 2;
  msg[0] = '\0';
  int st2 = gq_reader_read(r, buf, 8, &got, msg, sizeof msg);
  tap_ok(good && st2 == GQ_EFORMAT && got == 0 && strstr(msg, "line 3: 'x'"),
     "error keeps the good values before it and is sticky");
  gq_reader_close(r);
  gq_reader_close(NULL);
}

static void test_writer(void)
{
  static double v[3000];
  static float f[3000];
  for (size_t i = 0; i < 3000; i++) {
    v[i] = value(i);
    f[i] = (float)value(i);
  }
  char msg[512];
  const char *p = tmp_path("w.npy");
  int st = gq_npy_write_f64(p, v, 3000, msg, sizeof msg);
  struct stat sb;
  tap_ok(st == GQ_SUCCESS && stat(p, &sb) == 0 && sb.st_size == 3000 * 8 + 128,
     "writer: f64 file size is a 64-aligned header plus data");
  double *back = NULL;
  size_t n = 0;
  st = gq_reader_read_all_f64(p, NULL, &back, &n, msg, sizeof msg);
  int good = st == GQ_SUCCESS && n == 3000;
  for (size_t i = 0; good && i < n; i++)
    good = same(back[i], v[i]);
  tap_ok(good, "writer + read_all_f64: f64 round trip");
  free(back);

  p = tmp_path("w32.npy");
  st = gq_npy_write_f32(p, f, 3000, msg, sizeof msg);
  gq_reader *r;
  st |= gq_reader_open(p, NULL, &r, msg, sizeof msg);
  tap_ok(st == GQ_SUCCESS && gq_reader_dtype(r) == GQ_DTYPE_F32 && gq_reader_length(r) == 3000,
     "writer: f32 file opens as f32");
  gq_reader_close(r);
  st = gq_reader_read_all_f64(p, NULL, &back, &n, msg, sizeof msg);
  good = st == GQ_SUCCESS && n == 3000;
  for (size_t i = 0; good && i < n; i++)
    good = same(back[i], (double)f[i]);
  tap_ok(good, "read_all_f64 widens f32");
  free(back);

  p = tmp_path("w0.npy");
  st = gq_npy_write_f64(p, NULL, 0, msg, sizeof msg);
  st |= gq_reader_read_all_f64(p, NULL, &back, &n, msg, sizeof msg);
  tap_ok(st == GQ_SUCCESS && n == 0 && back != NULL, "empty npy round trip");
  free(back);

  p = tmp_path("t.txt");
  write_file(p, "1\n2\n3.5\n", 8);
  st = gq_reader_read_all_f64(p, NULL, &back, &n, msg, sizeof msg);
  tap_ok(st == GQ_SUCCESS && n == 3 && back[2] == 3.5, "read_all_f64 of text");
  free(back);
  st = gq_reader_read_all_f64(tmp_path("nope.txt"), NULL, &back, &n, msg, sizeof msg);
  tap_ok(st == GQ_EIO && back == NULL && strstr(msg, "nope.txt: No such file"),
     "read_all_f64 of a missing file");

  p = tmp_path("no/such/dir/w.npy");
  st = gq_npy_write_f64(p, v, 3, msg, sizeof msg);
  tap_ok(st == GQ_EIO && strncmp(msg, p, strlen(p)) == 0, "writer: bad directory: %s", msg);
}

static void remove_tmpdir(void)
{
  static const char *names[] = {
      "a.npy", "s.npy", "t.npy", "bad.npy", "f.npy", "big.npy", "v.bin", "v.f64", "v.txt", "v.raw", "h.raw",
      "v.f32", "v.dat", "p.bin", "e.bin", "x.txt", "x.csv", "s.txt", "t.tsv", "t.dat",
      "z.txt", "empty.txt", "c.txt", "j.txt", "p.txt", "long.txt", "l.txt", "data",
      "data.xyz", "data.txt", "c.npy", "numbers", "short", "N.TXT", "x", "sticky.txt",
      "w.npy", "w32.npy", "w0.npy", "t.txt", "d.npy", "h.npy", "r.bin", "odd.bin", "noext", "t.csv",
      "v.csv", "q.csv"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    unlink(tmp_path(names[k]));
  if (rmdir(tmpdir) != 0)
    diag("could not remove %s: %s", tmpdir, strerror(errno));
}

int main(void)
{
  signal(SIGPIPE, SIG_IGN);
  if (!mkdtemp(tmpdir)) {
    printf("Bail out! mkdtemp: %s\n", strerror(errno));
    return 99;
  }
  test_npy_good();
  test_npy_bad();
  test_npy_fortran();
  test_raw();
  test_text();
  test_dtypes();
  test_tables();
  test_parse_double();
  test_locale();
  test_sniff_and_options();
  test_writer();
  remove_tmpdir();
  return tap_done();
}
