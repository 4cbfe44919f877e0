/* npz.c — one array of a NumPy .npz archive (numpy.savez: a zip of .npy
 * files, stored; numpy.savez_compressed: deflated).
 *
 * The zip's index (the central directory) is at its end, found through the
 * end-of-central-directory record, or its zip64 form when a count, size or
 * offset overflows 16/32 bits (numpy writes zip64 for members of 2 GiB and
 * more).  The member's sizes and offset come from the central directory;
 * its local header only says how far its data start.  Then the reader's
 * source is left on the member's bytes and the npy reader does the rest: a
 * stored member is read in place (seeks and slices work), a deflated one
 * through zlib's raw inflate, a chunk at a time, its CRC-32 and size checked
 * at its end.  Every offset and size is checked against the archive's size
 * before use, so a corrupt or truncated archive is an error, never a read
 * out of bounds.
 */
#include "config.h"

#include "lib/io/io_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#define ZIP_EOCD_SIZE 22
#define ZIP_COMMENT_MAX 65535
#define ZIP_CD_MAX ((uint64_t)64 << 20)  /* a central directory of more is refused */

static uint32_t get16(const unsigned char *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8; }
static uint32_t get32(const unsigned char *b) { return get16(b) | get16(b + 2) << 16; }
static uint64_t get64(const unsigned char *b) { return get32(b) | (uint64_t)get32(b + 4) << 32; }

/* n bytes at offset off of the archive (counted from the input's start). */
static int read_at(const struct gq_source *s, uint64_t off, void *buf, size_t n)
{
  if (s->fd < 0) {
    if (off > s->mem_size || n > s->mem_size - off)
      return EIO;
    memcpy(buf, s->mem + off, n);
    return 0;
  }
  size_t done = 0;
  while (done < n) {
    const ssize_t k = pread(s->fd, (char *)buf + done, n - done, (off_t)(s->base + off + done));
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      return errno;
    if (k == 0)
      return EIO;
    done += (size_t)k;
  }
  return 0;
}

/* What the central directory says of one member. */
struct zip_entry {
  const unsigned char *name;
  size_t name_len;
  unsigned flags, method;
  uint32_t crc;
  uint64_t csize, usize, offset;
};

/* The zip64 extended information (tag 1) replaces, in this order, the
 * sizes and the offset that the fixed fields mark 0xFFFFFFFF. */
static int read_zip64_extra(const unsigned char *x, size_t len, struct zip_entry *e)
{
  while (len >= 4) {
    const uint32_t tag = get16(x), size = get16(x + 2);
    if (size > len - 4)
      return -1;
    if (tag == 1) {
      const unsigned char *p = x + 4, *end = p + size;
      uint64_t *fields[3] = {&e->usize, &e->csize, &e->offset};
      for (int k = 0; k < 3; k++) {
        if (*fields[k] != 0xFFFFFFFFu)
          continue;
        if (end - p < 8)
          return -1;
        *fields[k] = get64(p);
        p += 8;
      }
      return 0;
    }
    x += 4 + size;
    len -= 4 + size;
  }
  return 0;
}

/* Entry k's header at cd[*at]; *at moves past it.  0, or -1 if the
 * directory ends inside it or it is malformed. */
static int next_entry(const unsigned char *cd, size_t cd_size, size_t *at, struct zip_entry *e)
{
  if (cd_size - *at < 46 || get32(cd + *at) != 0x02014b50u)
    return -1;
  const unsigned char *h = cd + *at;
  const size_t name_len = get16(h + 28), extra_len = get16(h + 30), comment_len = get16(h + 32);
  if (cd_size - *at - 46 < name_len + extra_len + comment_len)
    return -1;
  e->flags = get16(h + 8);
  e->method = get16(h + 10);
  e->crc = get32(h + 16);
  e->csize = get32(h + 20);
  e->usize = get32(h + 24);
  e->offset = get32(h + 42);
  e->name = h + 46;
  e->name_len = name_len;
  *at += 46 + name_len + extra_len + comment_len;
  return read_zip64_extra(h + 46 + name_len, extra_len, e);
}

/* An entry's name without ".npy", printable, appended to list. */
static void list_name(char *list, size_t len, const struct zip_entry *e)
{
  size_t n = e->name_len;
  if (n >= 4 && memcmp(e->name + n - 4, ".npy", 4) == 0)
    n -= 4;
  size_t at = strlen(list);
  if (at + 8 >= len)
    return;
  if (at > 0) {
    memcpy(list + at, ", ", 3);
    at += 2;
  }
  for (size_t i = 0; i < n && at + 5 < len; i++)
    list[at++] = e->name[i] >= 0x20 && e->name[i] < 0x7f ? (char)e->name[i] : '?';
  if (at + 5 >= len)
    memcpy(list + len - 5, "...", 4);
  else
    list[at] = '\0';
}

static int entry_is(const struct zip_entry *e, const char *member)
{
  const size_t n = strlen(member);
  return (e->name_len == n || (e->name_len == n + 4 && memcmp(e->name + n, ".npy", 4) == 0)) &&
         memcmp(e->name, member, n) == 0;
}

/* The end-of-central-directory record (or its zip64 form): where the
 * directory is, how long, how many entries. */
static int find_directory(gq_reader *r, uint64_t size, uint64_t *cd_off, uint64_t *cd_size, uint64_t *entries,
                          char *msg, size_t msglen)
{
  const struct gq_source *s = &r->src;
  const size_t tail = size < ZIP_EOCD_SIZE + ZIP_COMMENT_MAX ? (size_t)size : ZIP_EOCD_SIZE + ZIP_COMMENT_MAX;
  unsigned char *t = malloc(tail ? tail : 1);
  if (!t)
    return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
  int err = read_at(s, size - tail, t, tail);
  long at = -1;
  for (long i = (long)tail - ZIP_EOCD_SIZE; !err && i >= 0 && at < 0; i--)
    if (get32(t + i) == 0x06054b50u && (size_t)i + ZIP_EOCD_SIZE + get16(t + i + 20) == tail)
      at = i;
  if (err || at < 0) {
    free(t);
    char text[256];
    gq_io_errno_text(err, text, sizeof text);
    return err && err != EIO ? gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "%s", text)
                             : gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                                          "not a zip archive, or truncated (no end of central directory)");
  }
  const unsigned char *e = t + at;
  *entries = get16(e + 10);
  *cd_size = get32(e + 12);
  *cd_off = get32(e + 16);
  const uint64_t eocd = size - tail + (uint64_t)at;
  free(t);
  if (*entries == 0xFFFF || *cd_size == 0xFFFFFFFFu || *cd_off == 0xFFFFFFFFu) {
    unsigned char loc[20], z[56];
    if (eocd < 20 || read_at(s, eocd - 20, loc, 20) != 0 || get32(loc) != 0x07064b50u)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "corrupt zip64 archive (no zip64 locator)");
    const uint64_t z_off = get64(loc + 8);
    if (z_off > size - 56 || read_at(s, z_off, z, 56) != 0 || get32(z) != 0x06064b50u)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "corrupt zip64 archive (bad zip64 end record)");
    *entries = get64(z + 32);
    *cd_size = get64(z + 40);
    *cd_off = get64(z + 48);
  }
  if (*cd_off > size || *cd_size > size - *cd_off)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "corrupt or truncated zip archive (central directory beyond its end)");
  if (*cd_size > ZIP_CD_MAX)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "zip central directory of %llu bytes is too large (limit %llu)",
                      (unsigned long long)*cd_size, (unsigned long long)ZIP_CD_MAX);
  return GQ_SUCCESS;
}

/* The member named (or the only one) from the central directory. */
static int find_member(gq_reader *r, const char *member, const unsigned char *cd, size_t cd_size,
                       uint64_t entries, struct zip_entry *found, char *msg, size_t msglen)
{
  char names[256] = "";
  uint64_t count = 0, matches = 0;
  size_t at = 0;
  for (; count < entries; count++) {
    struct zip_entry e;
    if (next_entry(cd, cd_size, &at, &e) != 0)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                        "corrupt zip archive (central directory entry %llu)", (unsigned long long)count + 1);
    list_name(names, sizeof names, &e);
    if (member ? entry_is(&e, member) && matches++ == 0 : count == 0)
      *found = e;
  }
  if (count == 0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "the archive holds no arrays");
  if (!member && count > 1)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                      "the archive holds %llu arrays (%s): name one as %s:NAME", (unsigned long long)count,
                      names, r->name);
  if (member && matches == 0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "no array '%s' in the archive (it holds %s)",
                      member, names);
  return GQ_SUCCESS;
}

#ifdef HAVE_ZLIB
struct gq_inflate {
  z_stream zs;
  uint64_t pos, left;       /* the next compressed byte's offset, and how many are left */
  uLong crc, want_crc;
  uint64_t out, want_out;   /* bytes inflated, and the central directory's size */
  int ended;
  unsigned char in[1 << 16];
};

static int start_inflate(gq_reader *r, const struct zip_entry *e, uint64_t data_off, char *msg, size_t msglen)
{
  struct gq_inflate *z = calloc(1, sizeof *z);
  if (!z || inflateInit2(&z->zs, -MAX_WBITS) != Z_OK) {  /* raw deflate: zip has no zlib header */
    free(z);
    return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM, "out of memory starting zlib");
  }
  z->pos = data_off;
  z->left = e->csize;
  z->crc = crc32(0L, Z_NULL, 0);
  z->want_crc = e->crc;
  z->want_out = e->usize;
  r->src.z = z;
  return GQ_SUCCESS;
}

/* Stops a read: what was inflated so far in *got, the reason in s->ztext. */
static int inflate_fail(struct gq_source *s, size_t done, size_t *got, const char *why, const char *detail)
{
  *got = done;
  snprintf(s->ztext, sizeof s->ztext, "%s%s%s%s", why, detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
  return EIO;
}

/* Output stops at the size the index gives; then inflate runs on into a
 * spare byte until the stream's end, so that its CRC-32 is checked even when
 * the reader asks for no byte more, and a byte beyond that size is an error. */
int gq_inflate_read(struct gq_source *s, void *buf, size_t n, size_t *got)
{
  struct gq_inflate *z = s->z;
  unsigned char *out = buf, spare;
  size_t done = 0;
  while (!z->ended && (done < n || z->out == z->want_out)) {
    if (z->zs.avail_in == 0 && z->left > 0) {
      const size_t k = z->left < sizeof z->in ? (size_t)z->left : sizeof z->in;
      const int err = read_at(s, z->pos, z->in, k);
      if (err == EIO)
        return inflate_fail(s, done, got, "truncated archive: the member's data end early", NULL);
      if (err) {
        *got = done;
        return err;
      }
      z->pos += k;
      z->left -= k;
      z->zs.next_in = z->in;
      z->zs.avail_in = (uInt)k;
    }
    const int past = z->out == z->want_out;
    size_t want = past ? 1 : n - done;
    if (!past && want > z->want_out - z->out)
      want = (size_t)(z->want_out - z->out);
    if (want > (1u << 30))
      want = 1u << 30;
    z->zs.next_out = past ? &spare : out + done;
    z->zs.avail_out = (uInt)want;
    const int rc = inflate(&z->zs, Z_NO_FLUSH);
    const size_t made = want - z->zs.avail_out;
    if (past && made)
      return inflate_fail(s, done, got, "corrupt archive: the member inflates to more bytes than its index says", NULL);
    z->crc = crc32(z->crc, out + done, (uInt)made);
    done += made;
    z->out += made;
    if (rc == Z_STREAM_END) {
      z->ended = 1;
      if (z->out != z->want_out)
        return inflate_fail(s, done, got, "corrupt archive: the member inflates to fewer bytes than its index says",
                            NULL);
      if (z->crc != z->want_crc)
        return inflate_fail(s, done, got, "corrupt archive: CRC-32 mismatch in the member", NULL);
    } else if (rc == Z_BUF_ERROR && z->zs.avail_in == 0 && z->left == 0) {
      return inflate_fail(s, done, got, "truncated archive: the member's compressed data end early", NULL);
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return inflate_fail(s, done, got, "corrupt deflated data in the archive", z->zs.msg ? z->zs.msg : "zlib error");
    }
  }
  *got = done;
  s->consumed += done;
  s->remaining = done < s->remaining ? s->remaining - done : 0;
  return 0;
}

void gq_inflate_free(struct gq_inflate *z)
{
  if (!z)
    return;
  inflateEnd(&z->zs);
  free(z);
}
#else
/* Without zlib no inflater is ever made (gq_npz_open refuses a deflated
 * member first); these keep the source's calls linkable. */
int gq_inflate_read(struct gq_source *s, void *buf, size_t n, size_t *got)
{
  (void)s, (void)buf, (void)n;
  *got = 0;
  return ENOSYS;
}
void gq_inflate_free(struct gq_inflate *z) { (void)z; }
#endif

int gq_npz_open(gq_reader *r, const char *member, char *msg, size_t msglen)
{
  struct gq_source *s = &r->src;
  if (!s->sized)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EUNSUP,
                      "an .npz archive is read from a file, not a pipe (its index is at its end)");
  const uint64_t size = s->remaining + s->consumed;  /* nothing consumed yet: sniffed bytes are back */
  uint64_t cd_off = 0, cd_size = 0, entries = 0;
  int st = find_directory(r, size, &cd_off, &cd_size, &entries, msg, msglen);
  if (st)
    return st;
  unsigned char *cd = malloc(cd_size ? (size_t)cd_size : 1);
  if (!cd)
    return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
  struct zip_entry e = {0};
  int err = read_at(s, cd_off, cd, (size_t)cd_size);
  st = err ? gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "cannot read the zip central directory")
           : find_member(r, member, cd, (size_t)cd_size, entries, &e, msg, msglen);
  free(cd);  /* e.name pointed into it: not used from here on */
  if (st)
    return st;
  if (e.flags & 1)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EUNSUP, "the member is encrypted");
  if (e.method != 0 && e.method != 8)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EUNSUP,
                      "zip compression method %u (numpy writes stored (0) or deflated (8))", e.method);
  unsigned char local[30];
  if (e.offset > size - 30 || read_at(s, e.offset, local, 30) != 0 || get32(local) != 0x04034b50u)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "corrupt zip archive (bad local header)");
  const uint64_t data_off = e.offset + 30 + get16(local + 26) + get16(local + 28);
  if (data_off > size || e.csize > size - data_off)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "corrupt or truncated zip archive (member data beyond its end)");
  if (e.method == 0 && e.csize != e.usize)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                      "corrupt zip archive (a stored member's sizes differ)");

  /* the source from here on: the member's bytes, uncompressed */
  s->peek_len = s->peek_pos = 0;
  s->consumed = 0;
  s->remaining = e.usize;
  if (e.method == 8) {
#ifdef HAVE_ZLIB
    return start_inflate(r, &e, data_off, msg, msglen);
#else
    return gq_io_fail(r, r->name, msg, msglen, GQ_EUNSUP,
                      "the member is deflated (numpy.savez_compressed) and this gpuquad was built without "
                      "zlib: rebuild with zlib (Debian: zlib1g-dev), or save with numpy.savez");
#endif
  }
  if (s->fd < 0) {
    s->mem_pos = (size_t)data_off;
    s->mem_size = (size_t)(data_off + e.csize);
  } else if (lseek(s->fd, (off_t)(s->base + data_off), SEEK_SET) < 0) {
    char text[256];
    gq_io_errno_text(errno, text, sizeof text);
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "%s", text);
  }
  return GQ_SUCCESS;
}
