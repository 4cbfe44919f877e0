/* vector_out.h — writing vectors of results (`gpuquad scan`, integrate
 * --cumulative): NumPy .npy (version 1.0, little-endian <f8 or <f4, one
 * column or rows of several), raw (native binary, the columns interleaved)
 * or text (one row per line, %.17g or %.9g), written chunk by chunk.  An
 * .npy written before its length is known gets its header rewritten at the
 * end, so the file must be seekable then. */
#ifndef GQ_CLI_VECTOR_OUT_H
#define GQ_CLI_VECTOR_OUT_H

#include "cli.h"

typedef enum { VOUT_NPY = 1, VOUT_RAW = 2, VOUT_TEXT = 3 } vout_format;

typedef struct {
  FILE *f;
  const char *path;     /* "-": standard output                               */
  vout_format format;
  int is_float;         /* float32 values, else float64                       */
  int columns;
  uint64_t rows;        /* written so far                                     */
  uint64_t header_rows; /* the length the .npy header says                    */
  int part;             /* vout_open_part: the header is the whole's, kept    */
} vout;

/* The format of --out-format=TEXT (NULL: by path's extension: .npy; .txt
 * .csv .dat .tsv; .bin .raw .f64 .f32; "-" is text).  Returns an exit status
 * after a one-line message. */
int vout_choose(const char *text, const char *path, vout_format *format);
/* Open path (rows: the final length if known, else 0 and the .npy header is
 * mended at the end).  Exit status after a message. */
int vout_open(vout *w, const char *path, vout_format format, int is_float, int columns, uint64_t rows);
/* Under mpirun, rank r's rows [first, ...) of a .npy or raw file of rows
 * rows that every rank writes a part of: the creator (rank 0, before the
 * others open it) makes the file and its header as vout_open does; the
 * others open it without truncating it.  Each is then at its first row.
 * VOUT_NPY or VOUT_RAW to a path: text has no fixed row width, so no
 * offsets (the caller refuses it on every rank). */
int vout_open_part(vout *w, const char *path, vout_format format, int is_float, int columns, uint64_t rows,
                   uint64_t first, int create);
/* rows x columns values (float or double), row-major. */
int vout_write(vout *w, const void *values, size_t rows);
/* Finish (the .npy header, the close); exit status after a message. */
int vout_close(vout *w);

#endif
