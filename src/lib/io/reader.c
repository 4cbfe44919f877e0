/* reader.c — byte sources, format choice, raw and npy data paths.
 *
 * Binary data are read with read(2) straight into the caller's buffer, in as
 * few calls as the kernel allows; the only per-element work is the byte swap
 * of big-endian npy data.
 */
#include "lib/io/io_internal.h"
#include "lib/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- messages ---------------------------------------------------------- */

void gq_io_errno_text(int err, char *buf, size_t len)
{
#if defined(_GNU_SOURCE) && defined(__GLIBC__)
  const char *s = strerror_r(err, buf, len);  /* GNU variant */
  if (s != buf)
    snprintf(buf, len, "%s", s);
#else
  if (strerror_r(err, buf, len) != 0)
    snprintf(buf, len, "error %d", err);
#endif
}

int gq_io_fail(gq_reader *r, const char *name, char *msg, size_t msglen,
               int status, const char *fmt, ...)
{
  char text[GQ_ERRMSG_MAX];
  /* A name too long to leave room for the reason is shortened, never dropped:
   * the message must still say which input failed. */
  const char *shown = name ? name : "?";
  const int room = (int)(sizeof text / 2);
  int k = strlen(shown) > (size_t)room
              ? snprintf(text, sizeof text, "%.*s...: ", room, shown)
              : snprintf(text, sizeof text, "%s: ", shown);
  if (k < 0 || (size_t)k >= sizeof text)
    k = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text + k, sizeof text - (size_t)k, fmt, ap);
  va_end(ap);
  if (msg && msglen)
    snprintf(msg, msglen, "%s", text);
  gq_fail(status, "%s", text); /* a public reader reports like the rest */
  if (r && r->status == GQ_SUCCESS) {
    r->status = status;
    memcpy(r->errmsg, text, sizeof text);
  }
  return status;
}

void gq_source_errtext(const struct gq_source *s, int err, char *buf, size_t len)
{
  if (s && s->ztext[0])
    snprintf(buf, len, "%s", s->ztext);
  else
    gq_io_errno_text(err, buf, len);
}

static int fail_errno(gq_reader *r, const char *name, char *msg, size_t msglen,
                      int err)
{
  char text[256];
  gq_source_errtext(r ? &r->src : NULL, err, text, sizeof text);
  return gq_io_fail(r, name, msg, msglen, GQ_EIO, "%s", text);
}

/* ---- byte source ------------------------------------------------------- */

int gq_source_read(struct gq_source *s, void *buf, size_t n, size_t *got)
{
  if (s->z)
    return gq_inflate_read(s, buf, n, got);
  unsigned char *out = buf;
  size_t done = 0;
  if (s->peek_pos < s->peek_len && n > 0) {
    size_t k = s->peek_len - s->peek_pos;
    if (k > n)
      k = n;
    memcpy(out, s->peek + s->peek_pos, k);
    s->peek_pos += k;
    done += k;
  }
  if (s->fd < 0) {
    size_t k = s->mem_size - s->mem_pos;
    if (k > n - done)
      k = n - done;
    if (k)
      memcpy(out + done, s->mem + s->mem_pos, k);
    s->mem_pos += k;
    done += k;
  } else {
    while (done < n) {
      size_t want = n - done;
      if (want > (size_t)1 << 30)  /* Linux caps one read at ~2 GiB */
        want = (size_t)1 << 30;
      ssize_t k = read(s->fd, out + done, want);
      if (k < 0) {
        if (errno == EINTR)
          continue;
        *got = done;
        s->consumed += done;
        return errno;
      }
      if (k == 0)
        break;
      done += (size_t)k;
    }
  }
  *got = done;
  s->consumed += done;
  if (s->sized)
    s->remaining = done < s->remaining ? s->remaining - done : 0;
  return 0;
}

/* Skip n bytes: seek where possible, read and discard otherwise.
 * *skipped < n means the input ended first. */
static int source_skip(struct gq_source *s, uint64_t n, uint64_t *skipped)
{
  uint64_t done = 0;
  while (s->peek_pos < s->peek_len && done < n) {
    s->peek_pos++;
    done++;
  }
  if (s->sized && !s->z) {  /* an inflated member cannot seek */
    uint64_t left = s->remaining - done;  /* remaining still counts peek */
    uint64_t k = n - done < left ? n - done : left;
    if (s->fd < 0) {
      s->mem_pos += (size_t)k;
    } else if (k > 0 && lseek(s->fd, (off_t)k, SEEK_CUR) < 0) {
      return errno;
    }
    done += k;
    s->remaining -= done;
    s->consumed += done;
    *skipped = done;
    return 0;
  }
  s->consumed += done;
  unsigned char junk[65536];
  while (done < n) {
    size_t want = n - done < sizeof junk ? (size_t)(n - done) : sizeof junk;
    size_t got;
    int err = gq_source_read(s, junk, want, &got);
    if (err)
      return err;
    done += got;
    if (got < want)
      break;
  }
  *skipped = done;
  return 0;
}

/* ---- opening ----------------------------------------------------------- */

const char *gq_format_name(gq_format f)
{
  static const char *const names[] = {"auto", "npy", "raw", "text", "npz"};
  return f >= GQ_FORMAT_AUTO && f <= GQ_FORMAT_NPZ ? names[f] : "";
}

/* The n bytes at s are `want` (lower case), in any case. */
static int ext_is_n(const char *s, const char *want, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != want[i])
      return 0;
  }
  return 1;
}

static int ext_is(const char *ext, const char *want)
{
  return strlen(ext) == strlen(want) && ext_is_n(ext, want, strlen(want));
}

/* Format implied by the name's extension, or AUTO; *f32 set for ".f32". */
static gq_format format_from_name(const char *name, int *f32)
{
  const char *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name;
  const char *dot = strrchr(base, '.');
  *f32 = 0;
  if (!dot || dot == base)
    return GQ_FORMAT_AUTO;
  const char *ext = dot + 1;
  if (ext_is(ext, "npy"))
    return GQ_FORMAT_NPY;
  if (ext_is(ext, "npz"))
    return GQ_FORMAT_NPZ;
  if (ext_is(ext, "txt") || ext_is(ext, "csv") || ext_is(ext, "dat") ||
      ext_is(ext, "tsv"))
    return GQ_FORMAT_TEXT;
  if (ext_is(ext, "f32")) {
    *f32 = 1;
    return GQ_FORMAT_RAW;
  }
  if (ext_is(ext, "bin") || ext_is(ext, "raw") || ext_is(ext, "f64"))
    return GQ_FORMAT_RAW;
  return GQ_FORMAT_AUTO;
}

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static int sniff(gq_reader *r, char *msg, size_t msglen)
{
  struct gq_source *s = &r->src;
  size_t got;
  int err = gq_source_read(s, s->peek, sizeof npy_magic, &got);
  if (err)
    return fail_errno(r, r->name, msg, msglen, err);
  /* push the bytes back */
  s->peek_len = got;
  s->peek_pos = 0;
  s->consumed -= got;
  if (s->sized)
    s->remaining += got;
  /* a zip's first record is a file ("PK\3\4") or, empty, its end ("PK\5\6") */
  r->format = got == sizeof npy_magic && memcmp(s->peek, npy_magic, got) == 0 ? GQ_FORMAT_NPY
              : got >= 4 && memcmp(s->peek, "PK\3\4", 4) == 0            ? GQ_FORMAT_NPZ
              : got >= 4 && memcmp(s->peek, "PK\5\6", 4) == 0            ? GQ_FORMAT_NPZ
                                                                          : GQ_FORMAT_TEXT;
  return GQ_SUCCESS;
}

static int raw_open(gq_reader *r, gq_dtype dtype, uint64_t offset, char *msg,
                    size_t msglen)
{
  struct gq_source *s = &r->src;
  r->stored = dtype;
  r->dtype = gq_dtype_is_float(dtype) ? dtype : GQ_DTYPE_F64;
  r->elem_size = gq_dtype_size(dtype);
  r->swap = 0;
  if (s->sized) {
    uint64_t size = s->remaining;
    if (offset > size)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                        "offset %llu is past the end of the file (%llu bytes)",
                        (unsigned long long)offset, (unsigned long long)size);
    uint64_t data = size - offset;
    if (data % r->elem_size)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                        "%llu data bytes are not a whole number of %s "
                        "elements (%llu bytes left over)",
                        (unsigned long long)data, gq_dtype_name(dtype),
                        (unsigned long long)(data % r->elem_size));
    r->length = (int64_t)(data / r->elem_size);
  } else {
    r->length = -1;
  }
  uint64_t skipped = 0;
  int err = source_skip(s, offset, &skipped);
  if (err)
    return fail_errno(r, r->name, msg, msglen, err);
  if (skipped < offset)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "offset %llu is past the end of the input (%llu bytes)",
                      (unsigned long long)offset, (unsigned long long)skipped);
  return GQ_SUCCESS;
}

/* Takes ownership of nothing but r; r->src and r->name already set.
 * member: an npz member named in the path, or NULL. */
static int open_common(gq_reader *r, const gq_reader_opts *opts, const char *member, char *msg,
                       size_t msglen)
{
  static const gq_reader_opts defaults = {.format = GQ_FORMAT_AUTO};
  const gq_reader_opts *o = opts ? opts : &defaults;
  if (o->format < GQ_FORMAT_AUTO || o->format > GQ_FORMAT_NPZ)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "unknown format %d",
                      (int)o->format);
  if (o->raw_dtype != GQ_DTYPE_NONE && gq_dtype_size(o->raw_dtype) == 0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "unknown dtype %d",
                      (int)o->raw_dtype);
  if (o->column < 0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "column %d: columns count from 1", o->column);
  if (o->header < GQ_HEADER_NO || o->header > GQ_HEADER_YES)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "unknown header mode %d", o->header);
  if (o->column_name && o->column)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "a column by number or by name, not both");
  if (o->column_name && o->header == GQ_HEADER_NO)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "column '%s' is named by a header line, and the header is turned off", o->column_name);
  if (member && o->member)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "an npz member in the path and in the options");
  const int member_in_path = member != NULL;  /* "A.npz:NAME": A's extension counts */
  if (o->member)
    member = o->member;

  int name_f32 = 0;
  const int is_stdin = strcmp(r->name, "<stdin>") == 0;
  gq_format by_name = is_stdin         ? GQ_FORMAT_AUTO
                      : member_in_path ? GQ_FORMAT_NPZ
                                       : format_from_name(r->name, &name_f32);
  gq_format f = o->format == GQ_FORMAT_AUTO ? by_name : o->format;
  if (f == GQ_FORMAT_AUTO) {
    int st = sniff(r, msg, msglen);
    if (st)
      return st;
    f = r->format;
    /* a dtype says the bytes are numbers, not text: raw on a pipe works so */
    if (f == GQ_FORMAT_TEXT && o->raw_dtype != GQ_DTYPE_NONE)
      f = GQ_FORMAT_RAW;
  }
  r->format = f;

  if (f != GQ_FORMAT_RAW && (o->offset != 0 || o->raw_dtype != GQ_DTYPE_NONE))
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "offset and dtype apply to raw input only, this is %s", gq_format_name(f));
  if (f != GQ_FORMAT_TEXT && (o->column != 0 || o->column_name || o->header != GQ_HEADER_AUTO))
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "a %s applies to text input only, this is %s",
                      o->header != GQ_HEADER_AUTO && !o->column && !o->column_name ? "header" : "column",
                      gq_format_name(f));
  if (f != GQ_FORMAT_NPZ && member)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "a member ('%s') applies to npz input only, this is %s", member, gq_format_name(f));

  switch (f) {
  case GQ_FORMAT_NPY:
    return gq_npy_open(r, msg, msglen);
  case GQ_FORMAT_NPZ: {
    const int st = gq_npz_open(r, member, msg, msglen);
    return st ? st : gq_npy_open(r, msg, msglen);
  }
  case GQ_FORMAT_RAW: {
    gq_dtype t = o->raw_dtype != GQ_DTYPE_NONE ? o->raw_dtype
                 : name_f32                    ? GQ_DTYPE_F32
                                               : GQ_DTYPE_F64;
    return raw_open(r, t, o->offset, msg, msglen);
  }
  default:
    r->column = o->column;
    r->header = o->header;
    return gq_text_open(r, o->column_name, msg, msglen);
  }
}

static gq_reader *reader_new(const char *name)
{
  gq_reader *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  size_t len = strlen(name);
  r->name = malloc(len + 1);
  if (!r->name) {
    free(r);
    return NULL;
  }
  memcpy(r->name, name, len + 1);
  r->src.fd = -1;
  r->length = -1;
  r->end = UINT64_MAX;
  r->c_locale = (locale_t)0;
  return r;
}

static int finish_open(gq_reader *r, const gq_reader_opts *opts, const char *member,
                       gq_reader **out, char *msg, size_t msglen)
{
  int st = open_common(r, opts, member, msg, msglen);
  if (st) {
    gq_reader_close(r);
    return st;
  }
  *out = r;
  return GQ_SUCCESS;
}

static void source_init_fd(struct gq_source *s, int fd)
{
  struct stat sb;
  s->fd = fd;
  s->sized = 0;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
    off_t cur = lseek(fd, 0, SEEK_CUR);
    if (cur >= 0 && cur <= sb.st_size) {
      s->sized = 1;
      s->base = (uint64_t)cur;
      s->remaining = (uint64_t)(sb.st_size - cur);
#if defined(POSIX_FADV_SEQUENTIAL)
      posix_fadvise(fd, cur, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
  }
}

int gq_reader_open_fd(int fd, const char *name, const gq_reader_opts *opts,
                      gq_reader **out, char *msg, size_t msglen)
{
  if (!out)
    return gq_io_fail(NULL, name, msg, msglen, GQ_EINVAL, "no reader pointer");
  *out = NULL;
  if (!name)
    name = "<fd>";
  if (fd < 0) /* -1 would pass for the memory source's marker */
    return gq_io_fail(NULL, name, msg, msglen, GQ_EINVAL, "bad file descriptor %d", fd);
  gq_reader *r = reader_new(name);
  if (!r)
    return gq_io_fail(NULL, name, msg, msglen, GQ_ENOMEM, "out of memory");
  source_init_fd(&r->src, fd);
  return finish_open(r, opts, NULL, out, msg, msglen);
}

/* "ARCHIVE.npz:NAME" where no file has that whole name: the archive's
 * path (a copy, in *archive) and the member's name, else NULL. */
static const char *npz_member_in_path(const char *path, char **archive)
{
  *archive = NULL;
  const char *colon = NULL;
  for (const char *p = strchr(path, ':'); p; p = strchr(p + 1, ':'))
    if (p - path >= 4 && ext_is_n(p - 4, ".npz", 4))
      colon = p;
  struct stat sb;
  if (!colon || stat(path, &sb) == 0)
    return NULL;
  const size_t len = (size_t)(colon - path);
  *archive = malloc(len + 1);
  if (!*archive)
    return NULL;
  memcpy(*archive, path, len);
  (*archive)[len] = '\0';
  return colon + 1;
}

int gq_reader_open(const char *path, const gq_reader_opts *opts,
                   gq_reader **out, char *msg, size_t msglen)
{
  if (out)
    *out = NULL;
  if (!out || !path)
    return gq_io_fail(NULL, path, msg, msglen, GQ_EINVAL, "no path or reader pointer");
  if (strcmp(path, "-") == 0)
    return gq_reader_open_fd(STDIN_FILENO, "<stdin>", opts, out, msg, msglen);

  gq_reader *r = reader_new(path);
  if (!r)
    return gq_io_fail(NULL, path, msg, msglen, GQ_ENOMEM, "out of memory");
  char *archive = NULL;
  const char *member = npz_member_in_path(path, &archive);
  int fd;
  do
    fd = open(archive ? archive : path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  const int open_errno = errno;
  free(archive);
  if (fd < 0) {
    int st = fail_errno(NULL, path, msg, msglen, open_errno);
    gq_reader_close(r);
    return st;
  }
  struct stat sb;
  if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    close(fd);
    gq_reader_close(r);
    return fail_errno(NULL, path, msg, msglen, EISDIR);
  }
  r->src.own_fd = 1;
  source_init_fd(&r->src, fd);
  return finish_open(r, opts, member, out, msg, msglen);
}

int gq_reader_open_mem(const void *data, size_t size, const char *name,
                       const gq_reader_opts *opts, gq_reader **out, char *msg,
                       size_t msglen)
{
  if (!name)
    name = "<memory>";
  if (out)
    *out = NULL;
  if (!out || (!data && size))
    return gq_io_fail(NULL, name, msg, msglen, GQ_EINVAL, "no data or reader pointer");
  if (!gq_span_fits(data, size, 1))
    return gq_io_fail(NULL, name, msg, msglen, GQ_EINVAL, "%zu bytes are more than one object can hold", size);
  gq_reader *r = reader_new(name);
  if (!r)
    return gq_io_fail(NULL, name, msg, msglen, GQ_ENOMEM, "out of memory");
  r->src.mem = data;
  r->src.mem_size = size;
  r->src.sized = 1;
  r->src.remaining = size;
  return finish_open(r, opts, NULL, out, msg, msglen);
}

void gq_reader_close(gq_reader *r)
{
  if (!r)
    return;
  if (r->src.own_fd && r->src.fd >= 0)
    close(r->src.fd);
  if (r->c_locale != (locale_t)0)
    freelocale(r->c_locale);
  gq_inflate_free(r->src.z);
  free(r->tbuf);
  free(r->fortran_data);
  free(r->name);
  free(r);
}

gq_format gq_reader_format(const gq_reader *r)
{
  return r ? r->format : (gq_null_arg(__func__, "r"), GQ_FORMAT_AUTO);
}
gq_dtype gq_reader_dtype(const gq_reader *r)
{
  return r ? r->dtype : (gq_null_arg(__func__, "r"), GQ_DTYPE_NONE);
}
int64_t gq_reader_length(const gq_reader *r)
{
  return r ? r->length : (gq_null_arg(__func__, "r"), -1);
}
gq_dtype gq_reader_stored_dtype(const gq_reader *r)
{
  return r ? r->stored : (gq_null_arg(__func__, "r"), GQ_DTYPE_NONE);
}
uint64_t gq_reader_inexact(const gq_reader *r)
{
  return r ? r->inexact : (gq_null_arg(__func__, "r"), 0);
}
const char *gq_reader_name(const gq_reader *r)
{
  return r ? r->name : (gq_null_arg(__func__, "r"), "");
}

/* ---- reading ----------------------------------------------------------- */

/* In place, through memcpy so that a caller's buffer need not be aligned
 * (compilers turn the shifts into bswap). */
static void swap_bytes(void *buf, size_t n, size_t elem_size)
{
  unsigned char *p = buf;
  if (elem_size == 2) {
    for (size_t i = 0; i < n; i++, p += 2) {
      const unsigned char t = p[0];
      p[0] = p[1];
      p[1] = t;
    }
  } else if (elem_size == 8) {
    for (size_t i = 0; i < n; i++, p += 8) {
      uint64_t x;
      memcpy(&x, p, 8);
      x = ((x & 0x00000000FFFFFFFFull) << 32) | (x >> 32);
      x = ((x & 0x0000FFFF0000FFFFull) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFull);
      x = ((x & 0x00FF00FF00FF00FFull) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFull);
      memcpy(p, &x, 8);
    }
  } else if (elem_size == 4) {
    for (size_t i = 0; i < n; i++, p += 4) {
      uint32_t x;
      memcpy(&x, p, 4);
      x = (x << 16) | (x >> 16);
      x = ((x & 0x00FF00FFu) << 8) | ((x >> 8) & 0x00FF00FFu);
      memcpy(p, &x, 4);
    }
  }
}

static int binary_read(gq_reader *r, void *buf, size_t max, size_t *got,
                       char *msg, size_t msglen)
{
  size_t want = max;
  const size_t out_size = gq_dtype_size(r->dtype);
  if (want > SIZE_MAX / out_size)
    want = SIZE_MAX / out_size;
  const int npy = r->format == GQ_FORMAT_NPY || r->format == GQ_FORMAT_NPZ;
  if (npy) {
    uint64_t left = (uint64_t)r->length - r->delivered;
    if (want > left)
      want = (size_t)left;
  }
  if (want > r->end - r->delivered)
    want = (size_t)(r->end - r->delivered);
  if (want == 0)
    return GQ_SUCCESS;
  /* a type to widen is read into the end of buf, so that widening it in
   * place (gq_dtype_widen) stores each double over bytes already read */
  const int widen = r->stored != r->dtype;
  unsigned char *in = (unsigned char *)buf + (widen ? want * (out_size - r->elem_size) : 0);
  size_t whole;
  int err = 0;
  size_t bytes = 0;
  if (r->fortran_data) {  /* held whole and checked at open */
    gq_npy_fortran_gather(r, in, want);
    whole = want;
  } else {
    err = gq_source_read(&r->src, in, want * r->elem_size, &bytes);
    whole = bytes / r->elem_size;
  }
  if (r->swap)
    swap_bytes(in, whole, r->elem_size);
  if (widen)
    r->inexact += gq_dtype_widen(r->stored, in, buf, whole);
  *got = whole;
  r->delivered += whole;
  if (err)
    return fail_errno(r, r->name, msg, msglen, err);
  if (whole < want) {
    if (npy)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EIO,
                        "truncated: header says %lld elements, file has %llu",
                        (long long)r->length, (unsigned long long)r->delivered);
    if (bytes % r->elem_size)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                        "input ends inside an element (%zu bytes of %zu) after "
                        "%llu elements",
                        bytes % r->elem_size, r->elem_size,
                        (unsigned long long)r->delivered);
  }
  return GQ_SUCCESS;
}

int gq_reader_slice(gq_reader *r, uint64_t first, uint64_t count, char *msg, size_t msglen)
{
  if (!r)
    return gq_io_fail(NULL, "?", msg, msglen, GQ_EINVAL, "no reader");
  if (r->status)
    return gq_io_fail(NULL, r->name, msg, msglen, r->status, "%s", r->errmsg);
  if (r->format == GQ_FORMAT_TEXT || r->length < 0)
    return gq_io_fail(NULL, r->name, msg, msglen, GQ_EUNSUP,
                      "%s input cannot be divided (its length is not known before reading it): use .npy "
                      "or raw binary from a file",
                      r->format == GQ_FORMAT_TEXT ? "text" : "streamed");
  if (r->fortran_data)
    return gq_io_fail(NULL, r->name, msg, msglen, GQ_EUNSUP,
                      "a Fortran-order array cannot be divided: save it with numpy.ascontiguousarray");
  const uint64_t n = (uint64_t)r->length;
  if (r->delivered != 0 || first > n || count > n - first)
    return gq_io_fail(NULL, r->name, msg, msglen, GQ_EINVAL, "elements [%llu, %llu) are no slice of %llu",
                      (unsigned long long)first, (unsigned long long)(first + count), (unsigned long long)n);
  uint64_t skipped = 0;
  const uint64_t bytes = first * r->elem_size;
  const int err = source_skip(&r->src, bytes, &skipped);
  if (err)
    return fail_errno(r, r->name, msg, msglen, err);
  if (skipped < bytes)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "truncated: header says %lld elements, file has %llu",
                      (long long)r->length, (unsigned long long)(skipped / r->elem_size));
  r->delivered = first;
  /* the last slice reads on to the end, and finds a trailing partial element as the whole would */
  r->end = first + count == n ? UINT64_MAX : first + count;
  return GQ_SUCCESS;
}

int gq_reader_read(gq_reader *r, void *buf, size_t max_elems, size_t *got,
                   char *msg, size_t msglen)
{
  size_t dummy;
  if (!got)
    got = &dummy;
  *got = 0;
  if (!r)
    return gq_io_fail(NULL, "?", msg, msglen, GQ_EINVAL, "no reader");
  if (r->status) {
    if (msg && msglen)
      snprintf(msg, msglen, "%s", r->errmsg);
    return r->status;
  }
  if (!buf || max_elems == 0)
    return gq_io_fail(NULL, r->name, msg, msglen, GQ_EINVAL,
                      "read needs a buffer of at least one element");
  if (r->format == GQ_FORMAT_TEXT)
    return gq_text_read(r, buf, max_elems, got, msg, msglen);
  return binary_read(r, buf, max_elems, got, msg, msglen);
}

int gq_reader_read_rest_f64(gq_reader *r, double **data, size_t *n, char *msg, size_t msglen)
{
  if (!data || !n || !r)
    return gq_io_fail(NULL, r ? r->name : "?", msg, msglen, GQ_EINVAL, "no reader or output pointers");
  *data = NULL;
  *n = 0;
  int st = GQ_SUCCESS;
  size_t cap = 1 << 16;
  if (r->length >= 0) {
    if ((uint64_t)r->length > SIZE_MAX / sizeof(double))
      return gq_io_fail(NULL, r->name, msg, msglen, GQ_ENOMEM,
                        "%lld elements do not fit in memory", (long long)r->length);
    cap = r->length > 0 ? (size_t)r->length : 1;
  }
  double *all = malloc(cap * sizeof *all);
  float *f32 = NULL;
  size_t f32_cap = 1 << 16;
  if (all && r->dtype == GQ_DTYPE_F32)
    f32 = malloc(f32_cap * sizeof *f32);
  if (!all || (r->dtype == GQ_DTYPE_F32 && !f32)) {
    st = gq_io_fail(NULL, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
    goto out;
  }
  size_t count = 0;
  for (;;) {
    if (count == cap) {
      if (cap > SIZE_MAX / 2 / sizeof *all) {
        st = gq_io_fail(NULL, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
        goto out;
      }
      double *bigger = realloc(all, 2 * cap * sizeof *all);
      if (!bigger) {
        st = gq_io_fail(NULL, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
        goto out;
      }
      all = bigger;
      cap *= 2;
    }
    size_t got = 0;
    if (r->dtype == GQ_DTYPE_F32) {
      size_t want = cap - count < f32_cap ? cap - count : f32_cap;
      st = gq_reader_read(r, f32, want, &got, msg, msglen);
      for (size_t i = 0; i < got; i++)
        all[count + i] = f32[i];
    } else {
      st = gq_reader_read(r, all + count, cap - count, &got, msg, msglen);
    }
    count += got;
    if (st)
      goto out;
    if (got == 0)
      break;
  }
  *data = all;
  *n = count;
  all = NULL;
out:
  free(all);
  free(f32);
  return st;
}

int gq_reader_read_all_f64(const char *path, const gq_reader_opts *opts,
                           double **data, size_t *n, char *msg, size_t msglen)
{
  if (!data || !n)
    return gq_io_fail(NULL, path, msg, msglen, GQ_EINVAL, "no output pointers");
  *data = NULL;
  *n = 0;
  gq_reader *r;
  int st = gq_reader_open(path, opts, &r, msg, msglen);
  if (st)
    return st;
  st = gq_reader_read_rest_f64(r, data, n, msg, msglen);
  gq_reader_close(r);
  return st;
}
