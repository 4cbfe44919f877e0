/* io_internal.h — shared between reader.c, npy.c and text.c; not installed. */
#ifndef GQ_IO_INTERNAL_H
#define GQ_IO_INTERNAL_H

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/io/reader.h"

/* A byte source: a descriptor or a memory block, with a few bytes of
 * push-back so that format sniffing works on pipes. */
struct gq_source {
  int fd;                     /* -1 for memory */
  int own_fd;                 /* close on gq_reader_close */
  const unsigned char *mem;
  size_t mem_size, mem_pos;
  unsigned char peek[8];      /* bytes read ahead by the sniffer */
  size_t peek_len, peek_pos;
  int sized;                  /* regular file or memory: remaining size known */
  uint64_t remaining;         /* bytes left when sized (counting peek) */
  uint64_t consumed;          /* bytes handed out so far */
  uint64_t base;              /* fd: the file offset where the input starts */
  struct gq_inflate *z;       /* an npz member being inflated (npz.c), or NULL */
  char ztext[128];            /* why z failed, for the errno it returned */
};

#define GQ_ERRMSG_MAX 512
#define GQ_NPY_MAX_DIMS 64

struct gq_reader {
  struct gq_source src;
  char *name;
  gq_format format;
  gq_dtype dtype;             /* delivered: f64 or f32 */
  gq_dtype stored;            /* in the input; widened to f64 unless dtype's */
  size_t elem_size;           /* of the stored type */
  uint64_t inexact;           /* int64/uint64 values rounded on widening */
  int swap;                   /* file byte order differs from the host's */
  int64_t length;             /* -1 if unknown */
  uint64_t delivered;         /* elements handed out (from 0, or a slice's first) */
  uint64_t end;               /* a slice's end (gq_reader_slice), else UINT64_MAX */
  int status;                 /* sticky: first error */
  char errmsg[GQ_ERRMSG_MAX];
  /* text */
  int column;
  int header;                 /* gq_header; resolved at open */
  int tabs;                   /* .tsv: each tab separates (no run of blanks) */
  char *tbuf;                 /* bytes [tpos, tend) are unparsed */
  size_t tcap, tpos, tend;
  int teof;
  uint64_t line;              /* number of the next line to parse */
  locale_t c_locale;
  /* npy in Fortran order with two or more axes longer than 1: the file
   * holds the first index fastest, so C order cannot be streamed.  The data
   * are held whole and handed out in C order by an odometer over the axes
   * (axes of length 1 dropped: they change no order). */
  unsigned char *fortran_data;
  int f_ndim;
  uint64_t f_shape[GQ_NPY_MAX_DIMS];
  uint64_t f_stride[GQ_NPY_MAX_DIMS];  /* elements apart in the file */
  uint64_t f_index[GQ_NPY_MAX_DIMS];   /* C-order position of the next element */
  uint64_t f_offset;                   /* its element offset in fortran_data */
};

/* Reads up to n bytes, looping over short reads; fewer only at end of input.
 * Returns 0, or an errno value. */
int gq_source_read(struct gq_source *s, void *buf, size_t n, size_t *got);

/* strerror(err), thread-safe. */
void gq_io_errno_text(int err, char *buf, size_t len);

/* Fail: write "name: <fmt>" into msg (and into r->errmsg if r), return status. */
int gq_io_fail(gq_reader *r, const char *name, char *msg, size_t msglen,
               int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 6, 7)))
#endif
  ;

/* The text for an error gq_source_read returned: the inflater's reason
 * when it made one, else strerror. */
void gq_source_errtext(const struct gq_source *s, int err, char *buf, size_t len);

/* dtype.c: the stored type of a binary input widened to double.  n
 * elements at src to dst (8 bytes each, no alignment needed); src may lie in
 * dst's last n * size bytes.  Returns how many int64/uint64 values rounded. */
uint64_t gq_dtype_widen(gq_dtype t, const void *src, void *dst, size_t n);
int gq_dtype_is_float(gq_dtype t);  /* f64 or f32: delivered as stored */

/* npz.c: open member `member` (NULL: the only one) of the zip archive in
 * r->src and leave r->src on its bytes (inflated if deflated). */
int gq_npz_open(gq_reader *r, const char *member, char *msg, size_t msglen);
/* Reads of an inflated member (gq_source_read calls it when s->z is set). */
int gq_inflate_read(struct gq_source *s, void *buf, size_t n, size_t *got);
void gq_inflate_free(struct gq_inflate *z);

/* npy.c */
int gq_npy_open(gq_reader *r, char *msg, size_t msglen);
/* Copies the next n elements of a held Fortran-order array, in C order. */
void gq_npy_fortran_gather(gq_reader *r, void *out, size_t n);
/* Parses a header dict (exposed for tests and the fuzzer). */
int gq_npy_parse_header(const char *h, size_t len, char *descr, size_t descrlen,
                        int *fortran, uint64_t *shape, int *ndim, int maxdim,
                        char *err, size_t errlen);

/* text.c */
/* column_name: resolve it from the header line (opts.column_name), or NULL. */
int gq_text_open(gq_reader *r, const char *column_name, char *msg, size_t msglen);
int gq_text_read(gq_reader *r, double *out, size_t max, size_t *got,
                 char *msg, size_t msglen);
/* One token [s, e) -> double; the byte at e must be writable (the parser
 * NUL-terminates in place for strtod).  Returns 0 or -1. */
int gq_text_parse_double(char *s, char *e, double *out);

static inline int gq_host_is_little_endian(void)
{
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

#endif /* GQ_IO_INTERNAL_H */
