/* text.c — numbers from text, one per line or one column of a table.
 *
 * Numbers are parsed by Clinger's fast path where it is exact: a decimal
 * mantissa m <= 2^53 and a power of ten |e| <= 22 are both exact doubles, so
 * m * 10^e (or m / 10^-e) is one correctly rounded IEEE operation.  Anything
 * else (more digits, larger exponents, nan, inf, hex) goes to strtod under a
 * C locale set with uselocale() for the duration of a read, so that a
 * process locale with a decimal comma cannot change the result.
 *
 * Tables as spreadsheets and pandas write them: a header line (names for
 * --col), cells in double quotes (with commas inside, "" for a quote), NA
 * spellings and empty cells as NaN, a UTF-8 byte-order mark, and in a .tsv
 * each tab a separator.  Only a cell that is no number is compared with the
 * NA spellings, so the numbers' fast path is unchanged.
 */
#include "lib/io/io_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_CHUNK    ((size_t)1 << 20)   /* bytes read from the source at a time */
#define TEXT_MAX_LINE ((size_t)64 << 20)  /* longest line accepted */

static int is_ws(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

int gq_text_parse_double(char *s, char *e, double *out)
{
#if FLT_EVAL_METHOD == 0
  static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char *p = s;
  int neg = 0;
  if (p < e && (*p == '-' || *p == '+')) {
    neg = *p == '-';
    p++;
  }
  uint64_t m = 0;
  int sig = 0, digits = 0, exp10 = 0;
  for (; p < e && is_digit(*p); p++, digits++) {
    if (sig >= 19)
      goto slow;
    m = m * 10 + (uint64_t)(*p - '0');
    sig += m != 0;
  }
  if (p < e && *p == '.') {
    for (p++; p < e && is_digit(*p); p++, digits++) {
      if (sig >= 19)
        goto slow;
      m = m * 10 + (uint64_t)(*p - '0');
      sig += m != 0;
      exp10--;
    }
  }
  if (digits == 0)
    goto slow;
  if (p < e && (*p == 'e' || *p == 'E')) {
    int eneg = 0, ex = 0;
    p++;
    if (p < e && (*p == '-' || *p == '+')) {
      eneg = *p == '-';
      p++;
    }
    if (p == e || !is_digit(*p))
      goto slow;
    for (; p < e && is_digit(*p); p++)
      if (ex < 100000)
        ex = ex * 10 + (*p - '0');
    exp10 += eneg ? -ex : ex;
  }
  if (p != e)
    goto slow;
  if (m == 0) {
    *out = neg ? -0.0 : 0.0;
    return 0;
  }
  if (m > ((uint64_t)1 << 53) || exp10 < -22 || exp10 > 22)
    goto slow;
  {
    double v = (double)m;
    v = exp10 < 0 ? v / pow10[-exp10] : v * pow10[exp10];
    *out = neg ? -v : v;
    return 0;
  }
slow:
#endif
  if (s == e)
    return -1;
  char save = *e;
  *e = '\0';
  char *end;
  double v = strtod(s, &end);
  *e = save;
  if (end != e || is_ws(*s))
    return -1;
  *out = v;
  return 0;
}

/* Forward: the first line may be a header (below). */
static int text_header(gq_reader *r, const char *column_name, char *msg, size_t msglen);
static int refill(gq_reader *r, char *msg, size_t msglen);

int gq_text_open(gq_reader *r, const char *column_name, char *msg, size_t msglen)
{
  r->dtype = GQ_DTYPE_F64;
  r->stored = GQ_DTYPE_F64;
  r->elem_size = sizeof(double);
  r->length = -1;
  r->line = 1;
  r->tcap = TEXT_CHUNK;
  r->tbuf = malloc(r->tcap + 1);  /* +1: parse_double may write at the end */
  if (!r->tbuf)
    return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
  r->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (r->c_locale == (locale_t)0)
    return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM,
                      "cannot create the C locale");
  const size_t len = strlen(r->name);
  r->tabs = len >= 4 && (strcmp(r->name + len - 4, ".tsv") == 0 || strcmp(r->name + len - 4, ".TSV") == 0);
  int st = refill(r, msg, msglen);
  if (st)
    return st;
  if (r->tend >= 3 && memcmp(r->tbuf, "\xef\xbb\xbf", 3) == 0)  /* UTF-8 byte-order mark */
    r->tpos = 3;
  if (r->header == GQ_HEADER_NO && !column_name)
    return GQ_SUCCESS;
  locale_t old = uselocale(r->c_locale);
  st = text_header(r, column_name, msg, msglen);
  uselocale(old);
  return st;
}

/* Move the unparsed tail to the front, grow if a line fills the buffer, and
 * read more. */
static int refill(gq_reader *r, char *msg, size_t msglen)
{
  size_t keep = r->tend - r->tpos;
  if (r->tpos > 0 && keep > 0)
    memmove(r->tbuf, r->tbuf + r->tpos, keep);
  r->tpos = 0;
  r->tend = keep;
  if (keep == r->tcap) {
    if (r->tcap >= TEXT_MAX_LINE)
      return gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                        "line %llu: longer than %zu MiB",
                        (unsigned long long)r->line, TEXT_MAX_LINE >> 20);
    char *bigger = realloc(r->tbuf, 2 * r->tcap + 1);
    if (!bigger)
      return gq_io_fail(r, r->name, msg, msglen, GQ_ENOMEM, "out of memory");
    r->tbuf = bigger;
    r->tcap *= 2;
  }
  size_t want = r->tcap - r->tend, got = 0;
  int err = gq_source_read(&r->src, r->tbuf + r->tend, want, &got);
  if (err) {
    char text[256];
    gq_io_errno_text(err, text, sizeof text);
    return gq_io_fail(r, r->name, msg, msglen, GQ_EIO, "%s", text);
  }
  r->tend += got;
  if (got < want)
    r->teof = 1;
  return GQ_SUCCESS;
}

/* A token as it may be quoted in a message: at most 40 bytes, escaped. */
static void quote_token(const char *s, const char *e, char *out, size_t outlen)
{
  size_t n = 0;
  const char *p = s;
  for (; p < e && p - s < 40 && n + 5 < outlen; p++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out[n++] = (char)c;
    else
      n += (size_t)snprintf(out + n, outlen - n, "\\x%02x", c);
  }
  if (p < e && n + 4 < outlen) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = '\0';
}

/* The field of a row that starts at *p (before e): its text [*fs, *fe),
 * inside the quotes if quoted.  *p moves to the next field.  Returns 1 when
 * another field follows, 0 at the row's end, -1 for a quote left open. */
static int next_field(const gq_reader *r, char **p, char *e, char **fs, char **fe)
{
  char *q = *p;
  if (q < e && *q == '"') {
    char *c = q + 1;
    while (c < e && !(*c == '"' && (c + 1 == e || c[1] != '"')))
      c += *c == '"' ? 2 : 1;  /* "" is a quote inside */
    if (c >= e)
      return -1;
    *fs = q + 1;
    *fe = c;
    q = c + 1;
  } else {
    *fs = q;
    if (r->tabs) {
      while (q < e && *q != '\t')
        q++;
      for (*fe = q; *fe > *fs && is_ws((*fe)[-1]); (*fe)--)
        ;
    } else {
      while (q < e && !is_ws(*q) && *q != ',')
        q++;
      *fe = q;
    }
  }
  if (r->tabs) {
    while (q < e && *q != '\t')  /* blanks, or text after a closing quote */
      q++;
    if (q == e)
      return 0;
    for (q++; q < e && is_ws(*q) && *q != '\t'; q++)
      ;
  } else {
    while (q < e && is_ws(*q))
      q++;
    if (q == e)
      return 0;
    if (*q == ',')
      for (q++; q < e && is_ws(*q); q++)
        ;
  }
  *p = q;
  return 1;
}

/* The row's first field: blanks skipped, except a tab of a .tsv (an empty
 * first cell: a line of tabs is a row of them).  NULL for a blank or
 * comment-only line. */
static char *row_start(const gq_reader *r, char *s, char **e)
{
  char *hash = memchr(s, '#', (size_t)(*e - s));
  if (hash)
    *e = hash;
  char *p = s;
  while (p < *e && is_ws(*p) && !(r->tabs && *p == '\t'))
    p++;
  return p == *e ? NULL : p;
}

/* Cells that mean "no value", as pandas reads them by default (nan, NaN
 * and -nan are numbers to strtod already). */
static int is_na(const char *s, const char *e)
{
  static const char *const na[] = {"NA", "N/A", "n/a", "NULL", "null", "None", "<NA>", "#N/A"};
  for (size_t k = 0; k < sizeof na / sizeof na[0]; k++)
    if ((size_t)(e - s) == strlen(na[k]) && memcmp(s, na[k], (size_t)(e - s)) == 0)
      return 1;
  return 0;
}

/* One line [s, e) (no '\n').  Returns 1 with *v set, 0 for a blank or comment
 * line, or a GQ_E* status (negated) with the message filled. */
static int text_line(gq_reader *r, char *s, char *e, double *v, char *msg,
                     size_t msglen)
{
  char *p = row_start(r, s, &e);
  if (!p)
    return 0;
  const int want = r->column ? r->column : 1;
  int col = 0;
  char *ts = NULL, *te = NULL;
  unsigned long long line = (unsigned long long)r->line;
  for (;;) {
    char *fs, *fe;
    const int more = next_field(r, &p, e, &fs, &fe);
    if (more < 0)
      return -gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "line %llu: a quote is not closed", line);
    if (++col == want) {
      ts = fs;
      te = fe;
      if (r->column)
        break;
    }
    if (!more)
      break;
  }
  if (!r->column && col > 1)
    return -gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                       "line %llu: %d columns, expected one number per line "
                       "(choose a column)", line, col);
  if (!ts)
    return -gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                       "line %llu: column %d requested but the line has %d "
                       "column%s", line, want, col, col == 1 ? "" : "s");
  if (ts == te) {
    *v = NAN;  /* an empty cell, as an NA one below: the NaN policy decides */
    return 1;
  }
  if (gq_text_parse_double(ts, te, v) != 0) {
    if (is_na(ts, te)) {
      *v = NAN;
      return 1;
    }
    char q[200];
    quote_token(ts, te, q, sizeof q);
    return -gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT,
                       "line %llu: '%s' is not a number", line, q);
  }
  return 1;
}

/* A header cell: no number, and starting as a name does (a letter, '_', or
 * a UTF-8 lead byte); an NA spelling is a missing value, not a name. */
static int name_like(char *s, char *e)
{
  double v;
  if (s == e)
    return 0;
  const unsigned c = (unsigned char)*s;
  return ((c | 0x20u) - 'a' < 26u || c == '_' || (c >= 0xc2 && c <= 0xf4)) &&
         gq_text_parse_double(s, e, &v) != 0 && !is_na(s, e);
}

/* The header line [p, e): whether it is one (GQ_HEADER_AUTO: no cell a
 * number, one a name), and the column named; 1 header, 0 data, or a
 * negated status. */
static int header_line(gq_reader *r, char *p, char *e, const char *column_name, char *msg, size_t msglen)
{
  const unsigned long long line = (unsigned long long)r->line;
  int names = 0, numbers = 0, col = 0, found = 0, twice = 0;
  char list[320] = "";
  size_t listed = 0;
  for (int more = 1; more;) {
    char *fs, *fe;
    double v;
    more = next_field(r, &p, e, &fs, &fe);
    if (more < 0)
      return -gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "line %llu: a quote is not closed", line);
    col++;
    numbers += fs < fe && gq_text_parse_double(fs, fe, &v) == 0;
    names += name_like(fs, fe);
    if (column_name && strlen(column_name) == (size_t)(fe - fs) && memcmp(column_name, fs, (size_t)(fe - fs)) == 0) {
      if (found && !twice)
        twice = col;
      if (!found)
        found = col;
    }
    if (listed + 8 < sizeof list) {
      char q[200];
      quote_token(fs, fe, q, sizeof q);
      listed += (size_t)snprintf(list + listed, sizeof list - listed, "%s'%s'", col > 1 ? ", " : "", q);
    }
  }
  if (r->header == GQ_HEADER_AUTO && (numbers > 0 || names == 0))
    return 0;
  if (twice)
    return -gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                       "column '%s' is named twice in the header (columns %d and %d): choose it by number",
                       column_name, found, twice);
  if (column_name && !found)
    return -gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "no column '%s' (the header names %s%s)", column_name,
                       list, listed + 8 >= sizeof list ? "..." : "");
  if (column_name)
    r->column = found;
  return 1;
}

/* The column [s, e) names name (1-based), 0 if none, -1 if two do.  The
 * names of a commented first line, as numpy.savetxt(header=...) writes them
 * and numpy.genfromtxt(names=True) reads them. */
static int column_named(const gq_reader *r, char *s, char *e, const char *name)
{
  const size_t len = strlen(name);
  int col = 0, found = 0;
  while (s < e && is_ws(*s))
    s++;
  for (int more = s < e; more;) {
    char *fs, *fe;
    if ((more = next_field(r, &s, e, &fs, &fe)) < 0)
      return 0;
    col++;
    if ((size_t)(fe - fs) == len && memcmp(fs, name, len) == 0) {
      if (found)
        return -1;
      found = col;
    }
  }
  return found;
}

/* Blank and comment lines skipped to the first row, which header_line
 * judges; a header is consumed.  A column named where the first row is data
 * may be named by a commented first line ("# time,pressure"). */
static int text_header(gq_reader *r, const char *column_name, char *msg, size_t msglen)
{
  char *commented = NULL;  /* the first line's text after its '#' */
  size_t commented_len = 0;
  int st = GQ_SUCCESS;
  for (;;) {
    char *p = r->tbuf + r->tpos, *end = r->tbuf + r->tend;
    char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl && !r->teof) {
      const int st = refill(r, msg, msglen);
      if (st)
        return st;
      continue;
    }
    char *e = nl ? nl : end;
    const size_t next = nl ? (size_t)(nl + 1 - r->tbuf) : r->tend;
    char *hash = r->line == 1 && column_name ? memchr(p, '#', (size_t)(e - p)) : NULL;
    if (hash && (commented = malloc((size_t)(e - hash))) != NULL) {
      commented_len = (size_t)(e - hash - 1);
      memcpy(commented, hash + 1, commented_len);
    }
    char *row = p < e ? row_start(r, p, &e) : NULL;
    if (!row && !nl)
      break;  /* no rows at all */
    if (!row) {
      r->tpos = next;
      r->line++;
      continue;
    }
    const int k = header_line(r, row, e, column_name, msg, msglen);
    if (k < 0) {
      st = -k;
    } else if (k == 1) {
      r->tpos = next;
      r->line++;
    } else if (column_name) {
      const int col = commented ? column_named(r, commented, commented + commented_len, column_name) : 0;
      if (col > 0)
        r->column = col;
      else if (col < 0)
        st = gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                        "column '%s' is named twice in the commented first line: choose it by number", column_name);
      else
        st = gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL,
                        "column '%s' needs a header line, and line %llu holds data (--header takes it as one)",
                        column_name, (unsigned long long)r->line);
    }
    free(commented);
    return st;
  }
  free(commented);
  if (column_name)
    return gq_io_fail(r, r->name, msg, msglen, GQ_EINVAL, "column '%s' needs a header line, and there is none",
                      column_name);
  return GQ_SUCCESS;
}

int gq_text_read(gq_reader *r, double *out, size_t max, size_t *got, char *msg,
                 size_t msglen)
{
  locale_t old = uselocale(r->c_locale);
  size_t n = 0;
  int st = GQ_SUCCESS;
  while (n < max) {
    char *p = r->tbuf + r->tpos, *end = r->tbuf + r->tend;
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *line_end;
    if (nl) {
      line_end = nl;
      r->tpos = (size_t)(nl + 1 - r->tbuf);
    } else if (!r->teof) {
      st = refill(r, msg, msglen);
      if (st)
        break;
      continue;
    } else if (p < end) {  /* last line, no newline */
      line_end = end;
      r->tpos = r->tend;
    } else {
      break;  /* end of input */
    }
    int k = text_line(r, p, line_end, &out[n], msg, msglen);
    if (k < 0) {
      st = -k;
      break;
    }
    n += (size_t)k;
    r->line++;
  }
  uselocale(old);
  *got = n;
  r->delivered += n;
  if (st == GQ_SUCCESS && n == 0 && r->delivered == 0)
    st = gq_io_fail(r, r->name, msg, msglen, GQ_EFORMAT, "no numbers");
  return st;
}
