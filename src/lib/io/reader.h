/* reader.h — streaming vector input for `gpuquad dot|rms|stats`.
 *
 * A reader turns a file (or standard input, path "-") into chunks of numbers
 * that the caller reduces one at a time, so inputs larger than memory work.
 * gq_reader_read() fills a caller-provided buffer (e.g. one half of a pinned
 * double buffer), with no per-element work on the little-endian binary paths;
 * float32 data stay float32 so only 4 bytes per element cross PCIe.
 *
 * Formats
 *   npy   NumPy .npy, versions 1.0, 2.0, 3.0; dtypes <f8 <f4 >f8 >f4, and
 *         =f8 =f4 (native order of this machine, as numpy.load takes them);
 *         f2, i1..i8, u1..u8 and b1 in any order ('|' for one byte) are
 *         widened to f64 on read (dtype.c).  An npz member (npz.c) is an npy
 *         read through a source left on the member's bytes.
 *         Any shape, delivered flat in C order (numpy's ravel(), so that
 *         element i is the one numpy.load(f).flat[i] names and two files of
 *         either layout pair element by element as numpy.vdot pairs them).
 *         A C-order array, or a Fortran-order one with at most one axis
 *         longer than 1 (where the two orders coincide), is streamed.  Any
 *         other Fortran-order array is read whole into memory at open and
 *         handed out in C order; past GQ_NPY_FORTRAN_MAX bytes it is refused
 *         (GQ_EFORMAT), never read in file order.  Shape () is one element,
 *         a shape with a 0 is empty.  Big-endian data are byte-swapped on
 *         read.  Bytes after the last element are ignored (as numpy.load
 *         does).  Unknown header keys are ignored; fortran_order must be
 *         True or False.
 *   raw   headerless binary of f64 (default), f32 or any opts.raw_dtype in
 *         the machine's native (little-endian) order, after opts.offset bytes.  A trailing partial
 *         element is an error.  An empty file is an empty vector.
 *   text  one number per line, or column opts.column (1-based) of rows whose
 *         fields are separated by whitespace or by commas (whitespace around a
 *         comma is ignored; ",," is an empty field).  '#' starts a comment;
 *         blank lines and CRLF line ends are fine.  Numbers are C-locale
 *         strtod syntax whatever the process locale (nan, inf, hex floats
 *         included); an overflowing literal becomes +-inf.  Without a column
 *         a line with more than one field is an error.  A text input with no
 *         numbers at all is an error (GQ_EFORMAT).  Delivered as f64.
 *
 * Choosing the format (opts.format == GQ_FORMAT_AUTO)
 *   by extension, case-insensitive: .npy -> npy; .txt .csv .dat .tsv -> text;
 *   .bin .raw .f64 .f32 -> raw (.f32 implies f32 unless opts.raw_dtype says
 *   otherwise).  Any other name, and "-", is sniffed: the npy magic means
 *   npy, anything else is read as text.  Raw is never guessed.
 *
 * Status codes (gpuquad.h): GQ_EIO for open/read failures and truncated data
 * (including a truncated npy header); GQ_EFORMAT for malformed or unsupported
 * content; GQ_EINVAL for bad options (and an offset past the end of the
 * input); GQ_ENOMEM.  Every message starts with the file name ("<stdin>" for
 * "-").  The library never prints.  After an error a reader stays failed and
 * returns the same status and message.
 */
#ifndef GQ_IO_READER_H
#define GQ_IO_READER_H

#include <stddef.h>
#include <stdint.h>

#include "gpuquad.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gq_dtype, gq_format, gq_reader_opts, gq_reader and the functions that
 * open, describe and close a reader are public (gpuquad.h); reading chunks
 * is the library's own business. */

/* The most bytes of a Fortran-order npy array held to reorder it (1 GiB). */
#define GQ_NPY_FORTRAN_MAX ((uint64_t)1 << 30)

size_t      gq_dtype_size(gq_dtype t);             /* 8, 4, 2 or 1; 0 for NONE */

/* Fill buf with up to max_elems elements of gq_reader_dtype(r).
 * *got == max_elems unless the input ends; *got == 0 means end of input.
 * On error *got holds the elements that were stored in buf before it.
 * max_elems == 0 is GQ_EINVAL. */
int gq_reader_read(gq_reader *r, void *buf, size_t max_elems, size_t *got,
                   char *msg, size_t msglen);

/* Restrict a reader that has delivered nothing to elements [first, first +
 * count) of its input (a rank's share): skipped by a seek, and only those
 * read.  npy (C order, or Fortran order with one axis longer than 1) and raw
 * from a file or memory; the last slice reads on to the end of the input,
 * so its checks are the whole's.  GQ_EUNSUP for text, pipes and Fortran
 * arrays held whole; GQ_EINVAL for a range beyond the length. */
int gq_reader_slice(gq_reader *r, uint64_t first, uint64_t count, char *msg, size_t msglen);

/* The rest of an open reader as a malloc'd double array (f32 widened); the
 * reader stays open (for gq_reader_inexact).  As read_all_f64 below. */
int gq_reader_read_rest_f64(gq_reader *r, double **data, size_t *n, char *msg, size_t msglen);

/* Convenience: the whole input as a malloc'd double array (f32 widened).
 * *data is NULL on error; for an empty input it is a valid malloc(1) block. */
int gq_reader_read_all_f64(const char *path, const gq_reader_opts *opts,
                           double **data, size_t *n, char *msg, size_t msglen);

/* Write a 1-d .npy (version 1.0, shape (n,), native byte order, header padded
 * so the data start on a 64-byte boundary).  path "-" writes to stdout. */
int gq_npy_write_f64(const char *path, const double *data, size_t n,
                     char *msg, size_t msglen);
int gq_npy_write_f32(const char *path, const float *data, size_t n,
                     char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif /* GQ_IO_READER_H */
