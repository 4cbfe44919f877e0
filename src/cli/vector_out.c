/* vector_out.c — the writers of vector_out.h. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "vector_out.h"

static int has_extension(const char *path, const char *const *exts)
{
  const char *dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/'))
    return 0;
  for (; *exts; exts++)
    if (strcasecmp(dot + 1, *exts) == 0)
      return 1;
  return 0;
}

int vout_choose(const char *text, const char *path, vout_format *format)
{
  if (text) {
    if (strcmp(text, "npy") == 0) *format = VOUT_NPY;
    else if (strcmp(text, "raw") == 0) *format = VOUT_RAW;
    else if (strcmp(text, "text") == 0) *format = VOUT_TEXT;
    else return cli_error(EXIT_USAGE, "--out-format=%s: expected npy, raw or text", text);
    return EXIT_OK;
  }
  static const char *const npy[] = {"npy", NULL}, *const text_exts[] = {"txt", "csv", "dat", "tsv", NULL},
                           *const raw[] = {"bin", "raw", "f64", "f32", NULL};
  if (strcmp(path, "-") == 0 || has_extension(path, text_exts)) *format = VOUT_TEXT;
  else if (has_extension(path, npy)) *format = VOUT_NPY;
  else if (has_extension(path, raw)) *format = VOUT_RAW;
  else
    return cli_error(EXIT_USAGE, "--out=%s: cannot tell the format from the name (.npy, .txt, .csv, .bin, .f64...); "
                                 "give --out-format=npy|raw|text", path);
  return EXIT_OK;
}

/* The .npy 1.0 header, always HEADER_BYTES long (the shape's digits are
 * padded with spaces), so that it can be rewritten in place. */
enum { HEADER_BYTES = 128 };
static int write_header(vout *w, uint64_t rows)
{
  char dict[HEADER_BYTES];
  char shape[64];
  if (w->columns == 1)
    snprintf(shape, sizeof shape, "(%llu,)", (unsigned long long)rows);
  else
    snprintf(shape, sizeof shape, "(%llu, %d)", (unsigned long long)rows, w->columns);
  const int len = snprintf(dict, sizeof dict, "{'descr': '<f%d', 'fortran_order': False, 'shape': %s, }",
                           w->is_float ? 4 : 8, shape);
  const int room = HEADER_BYTES - 10; /* magic 6, version 2, length 2 */
  memset(dict + len, ' ', (size_t)(room - len));
  dict[room - 1] = '\n';
  const unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(room & 0xff),
                                  (unsigned char)(room >> 8)};
  w->header_rows = rows;
  return fwrite(head, 1, sizeof head, w->f) == sizeof head && fwrite(dict, 1, (size_t)room, w->f) == (size_t)room;
}

int vout_open(vout *w, const char *path, vout_format format, int is_float, int columns, uint64_t rows)
{
  memset(w, 0, sizeof *w);
  w->path = path;
  w->format = format;
  w->is_float = is_float;
  w->columns = columns;
  w->f = strcmp(path, "-") == 0 ? stdout : fopen(path, format == VOUT_TEXT ? "w" : "wb");
  if (!w->f)
    return cli_error(EXIT_USAGE, "%s: cannot open for writing: %s", path, strerror(errno));
  if (format == VOUT_NPY && !write_header(w, rows)) {
    vout_close(w);
    return cli_error(EXIT_RUNTIME, "%s: write error: %s", path, strerror(errno));
  }
  return EXIT_OK;
}

int vout_open_part(vout *w, const char *path, vout_format format, int is_float, int columns, uint64_t rows,
                   uint64_t first, int create)
{
  int rc = EXIT_OK;
  if (create) {
    rc = vout_open(w, path, format, is_float, columns, rows);
  } else {
    memset(w, 0, sizeof *w);
    w->path = path;
    w->format = format;
    w->is_float = is_float;
    w->columns = columns;
    w->header_rows = rows;
    w->f = fopen(path, "r+b");
    if (!w->f)
      rc = cli_error(EXIT_RUNTIME, "%s: cannot open the file rank 0 made: %s", path, strerror(errno));
  }
  if (rc != EXIT_OK)
    return rc;
  w->part = 1;
  const uint64_t at = (format == VOUT_NPY ? HEADER_BYTES : 0) + first * (uint64_t)columns * (is_float ? 4 : 8);
  if (at > INT64_MAX || fseeko(w->f, (off_t)at, SEEK_SET) != 0) {
    vout_close(w);
    return cli_error(EXIT_RUNTIME, "%s: cannot seek to row %llu: %s", path, (unsigned long long)first, strerror(errno));
  }
  return EXIT_OK;
}

int vout_write(vout *w, const void *values, size_t rows)
{
  const size_t count = rows * (size_t)w->columns;
  int ok = 1;
  if (w->format == VOUT_TEXT) {
    for (size_t k = 0; k < count && ok; k++) {
      const double v = w->is_float ? (double)((const float *)values)[k] : ((const double *)values)[k];
      const char end = (k + 1) % (size_t)w->columns == 0 ? '\n' : ' ';
      ok = fprintf(w->f, w->is_float ? "%.9g%c" : "%.17g%c", v, end) > 0;
    }
  } else {
    const size_t size = w->is_float ? sizeof(float) : sizeof(double);
    ok = fwrite(values, size, count, w->f) == count;
  }
  if (!ok)
    return cli_error(EXIT_RUNTIME, "%s: write error: %s", w->path, strerror(errno));
  w->rows += rows;
  return EXIT_OK;
}

int vout_close(vout *w)
{
  if (!w->f)
    return EXIT_OK;
  int rc = EXIT_OK;
  if (w->format == VOUT_NPY && !w->part && w->rows != w->header_rows) {
    if (fflush(w->f) != 0 || fseek(w->f, 0, SEEK_SET) != 0 || !write_header(w, w->rows))
      rc = cli_error(EXIT_RUNTIME, "%s: cannot mend the .npy header (%llu rows; a pipe cannot be rewound: "
                                   "write raw or text there)",
                     w->path, (unsigned long long)w->rows);
  }
  if (w->f == stdout) {
    if (fflush(stdout) != 0 && rc == EXIT_OK)
      rc = cli_error(EXIT_RUNTIME, "write error: %s", strerror(errno));
  } else if (fclose(w->f) != 0 && rc == EXIT_OK) {
    rc = cli_error(EXIT_RUNTIME, "%s: write error: %s", w->path, strerror(errno));
  }
  w->f = NULL;
  return rc;
}
