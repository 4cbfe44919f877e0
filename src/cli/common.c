/* common.c — messages, the process's streams and the device choice, shared
 * by every gpuquad command. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mpi.h"
#include "numparse.h"
#include "progress.h"

/* ---- messages ------------------------------------------------------------ */
/* The bytes of one valid UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 where p starts none. */
static size_t utf8_length(const unsigned char *p)
{
  if (p[0] < 0x80)
    return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xbf;
  if (p[0] >= 0xc2 && p[0] <= 0xdf)
    n = 2;
  else if (p[0] >= 0xe0 && p[0] <= 0xef) {
    n = 3;
    lo = p[0] == 0xe0 ? 0xa0 : 0x80;
    hi = p[0] == 0xed ? 0x9f : 0xbf;
  } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
    n = 4;
    lo = p[0] == 0xf0 ? 0x90 : 0x80;
    hi = p[0] == 0xf4 ? 0x8f : 0xbf;
  } else
    return 0;
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (size_t k = 2; k < n; k++)
    if (p[k] < 0x80 || p[k] > 0xbf)
      return 0;
  return n;
}

/* A control character: C0, DEL, or C1 (U+0080..U+009F, 0xc2 0x80..0x9f). */
static int is_control(const unsigned char *p, size_t len)
{
  return (len == 1 && (p[0] < 0x20 || p[0] == 0x7f)) || (len == 2 && p[0] == 0xc2 && p[1] < 0xa0);
}

/* The escape of the character at p (len bytes, 0: one invalid byte) for a
 * message, into buf; returns its length, 0 where the character stays as it is.
 * \n, \t, \r, and \xHH for other controls and for bytes that are no UTF-8,
 * so that a message stays one readable line whatever a name holds. */
static size_t message_escape(const unsigned char *p, size_t len, char buf[8])
{
  if (len == 1 && (p[0] == '\n' || p[0] == '\t' || p[0] == '\r'))
    return (size_t)snprintf(buf, 8, "\\%c", p[0] == '\n' ? 'n' : p[0] == '\t' ? 't' : 'r');
  if (len == 0 || (len == 1 && is_control(p, len)))
    return (size_t)snprintf(buf, 8, "\\x%02x", p[0]);
  if (is_control(p, len))
    return (size_t)snprintf(buf, 8, "\\u%04x", p[1]);
  return 0;
}

/* text with message_escape applied, on out; returns the columns written
 * (one per character) up to byte offset stop, for a caret under it. */
static size_t put_escaped(FILE *out, const char *text, size_t stop)
{
  size_t column = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p;) {
    const size_t len = utf8_length(p);
    char buf[8];
    const size_t escaped = message_escape(p, len, buf);
    const size_t step = len ? len : 1;
    if (escaped)
      fputs(buf, out);
    else
      fwrite(p, 1, step, out);
    if ((size_t)(p - (const unsigned char *)text) < stop)
      column += escaped ? escaped : 1;
    p += step;
  }
  return column;
}

void cli_verror(const char *prefix, const char *fmt, va_list ap)
{
  char small[512], *text = small;
  va_list again;
  va_copy(again, ap);
  const int len = vsnprintf(small, sizeof small, fmt, ap);
  if (len >= (int)sizeof small && (text = malloc((size_t)len + 1)) != NULL)
    vsnprintf(text, (size_t)len + 1, fmt, again);
  else
    text = small; /* out of memory: the message, cut short */
  va_end(again);
  cli_progress_clear(); /* a message never lands inside the progress line */
  fputs(prefix, stderr);
  put_escaped(stderr, text, 0);
  fputc('\n', stderr);
  if (text != small)
    free(text);
}

int cli_error(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  cli_verror("gpuquad: ", fmt, ap);
  va_end(ap);
  return status;
}

/* ---- the process's streams ------------------------------------------------ */
static int stdout_errno; /* why stdout first failed, when a flush saw it */

void cli_guard_streams(void)
{
  for (int fd = 0; fd <= 2; fd++)
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      /* open takes the lowest free number: fd itself */
      const int opened = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
      if (opened >= 0 && opened != fd)
        close(opened);
    }
  signal(SIGPIPE, SIG_IGN);
  /* Off a terminal, a buffer larger than any help text or summary: stdio's
   * own flushes (of an 8 KiB buffer) fail silently into ferror with errno
   * lost, while a flush of ours (cli_flush_stdout, cli_close_output) can say
   * why the output failed. */
  static char buffer[1 << 16];
  if (!isatty(STDOUT_FILENO))
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
}

int cli_flush_stdout(void)
{
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout))
    return 0;
  if (!stdout_errno)
    stdout_errno = errno;
  return -1;
}

int cli_close_output(int status)
{
  const int failed_before = ferror(stdout);
  errno = 0;
  const int close_failed = fclose(stdout) != 0;
  const int cause = stdout_errno ? stdout_errno : close_failed ? errno : 0;
  if (failed_before || close_failed) {
    if (cause)
      cli_error(EXIT_RUNTIME, "write error: %s", strerror(cause));
    else
      cli_error(EXIT_RUNTIME, "write error");
    if (status == EXIT_OK || status == EXIT_CHECK)
      status = EXIT_RUNTIME;
  }
  /* stderr carries only messages: a failed run has its status already, and
   * a note lost (no GPU, NaN present) does not make a result wrong. */
  return status;
}

int cli_exit_status(int s)
{
  switch (s) {
  case GQ_SUCCESS:
    return EXIT_OK;
  case GQ_ECHECK:
    return EXIT_CHECK;
  case GQ_ECUDA:
  case GQ_ENOMEM:
    return EXIT_RUNTIME;
  default: /* EINVAL, ENODEV, EDOM, EIO, EFORMAT, EPARSE, EUNSUP: the input */
    return EXIT_USAGE;
  }
}

int cli_parse_error(const char *text, const char *const *params, const gq_parse_error *err)
{
  const char *line = err->in_param ? params[err->param_index] : text;
  if (err->in_param)
    cli_error(EXIT_USAGE, "--param %s: %s", line, err->message);
  else
    cli_error(EXIT_USAGE, "--f: %s", err->message);
  if (strlen(line) <= 200 && err->column <= strlen(line)) {
    fputs("  ", stderr);
    const size_t column = put_escaped(stderr, line, err->column);
    fprintf(stderr, "\n  %*s^\n", (int)column, "");
  }
  return EXIT_USAGE;
}

int cli_params_resolve(cli_params *resolved, const char *const *params, int count)
{
  resolved->count = 0;
  for (int k = 0; k < count; k++) {
    resolved->text[k] = params[k];
    resolved->owned[k] = NULL;
    resolved->count++;
    const char *eq = strchr(params[k], '=');
    if (!eq)
      continue; /* the library says what is wrong with the definition */
    const char *v = eq + 1, *end = v + strlen(v);
    while (*v == ' ' || *v == '\t')
      v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
      end--;
    const size_t name_len = (size_t)(eq - params[k]), value_len = (size_t)(end - v);
    /* room for the value as given, or as NAME=%.17g */
    char *copy = malloc(name_len + value_len + 32), why[128];
    if (!copy) {
      cli_params_free(resolved);
      return cli_error(EXIT_RUNTIME, "out of memory");
    }
    resolved->owned[k] = copy;
    char *value = copy + name_len + 1;
    memcpy(value, v, value_len);
    value[value_len] = '\0';
    double x;
    if (gq_parse_real(value, &x, why, sizeof why) != 0) {
      const int rc = cli_error(EXIT_USAGE, "--param %s: '%s' %s", params[k], value, why);
      cli_params_free(resolved);
      return rc;
    }
    /* Plain decimals are the expression grammar's own numbers: they go as
     * given.  pi and e become the decimal that reads back as the same double. */
    const char *unsigned_value = value + (value[0] == '+' || value[0] == '-');
    if (strcmp(unsigned_value, "pi") != 0 && strcmp(unsigned_value, "e") != 0)
      continue;
    snprintf(copy, name_len + value_len + 32, "%.*s=%.17g", (int)name_len, params[k], x);
    resolved->text[k] = copy;
  }
  return EXIT_OK;
}

void cli_params_free(cli_params *resolved)
{
  for (int k = 0; k < resolved->count; k++) {
    free(resolved->owned[k]);
    resolved->owned[k] = NULL;
  }
  resolved->count = 0;
}

int cli_parse_device(const char *text, int *device)
{
  if (strcmp(text, "auto") == 0)
    *device = GQ_DEVICE_AUTO;
  else if (strcmp(text, "cpu") == 0)
    *device = GQ_DEVICE_CPU;
  else if (strcmp(text, "cuda") == 0 || strcmp(text, "gpu") == 0)
    *device = 0;
  else if (strncmp(text, "cuda:", 5) == 0) {
    uint64_t k;
    if (gq_parse_whole(text + 5, 0, 1024, &k, NULL, 0) != 0)
      return -1;
    *device = (int)k;
  } else
    return -1;
  return 0;
}

int cli_deterministic;

void cli_usage_deterministic(FILE *out)
{
  fputs("  --deterministic      the same bits on any thread count, device or chunking\n"
        "                       (exact sums rounded once: data; integrate, mc on a GPU)\n",
        out);
}

void cli_prestart(const char *device_text, int jit)
{
  int device;
  if (cli_parse_device(device_text, &device) != 0)
    return;
  device = cli_mpi_device(device_text, device); /* under mpirun: the rank's GPU */
  gq_context_prestart(device, jit ? GQ_PRESTART_JIT : 0);
}

int cli_open_context(const char *device_text, int quiet, gq_context **ctx)
{
  if (cli_progress_check() != EXIT_OK)
    return EXIT_USAGE;
  int device;
  if (cli_parse_device(device_text, &device) != 0)
    return cli_error(EXIT_USAGE, "--device=%s: expected auto, cpu, cuda or cuda:N", device_text);
  device = cli_mpi_device(device_text, device); /* under mpirun: the rank's GPU */
  if (device == GQ_DEVICE_AUTO && gq_cuda_device_count() == 0) {
    if (!quiet)
      fprintf(stderr, "gpuquad: no CUDA device found; using the CPU backend\n");
    device = GQ_DEVICE_CPU;
  }
  const int opened = gq_context_open(ctx, device);
  const int status = cli_mpi_share(opened == GQ_SUCCESS ? *ctx : NULL, opened); /* under mpirun: all opened? */
  if (status != GQ_SUCCESS) {
    gq_context_free(*ctx);
    *ctx = NULL;
    if (status == GQ_ENODEV)
      return cli_error(EXIT_USAGE, "--device=%s: %s", device_text, gq_last_error());
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  }
  if (cli_deterministic)
    gq_context_set_deterministic(*ctx, 1);
  cli_progress_attach(*ctx);
  return EXIT_OK;
}

const char *cli_jit_name(int jit)
{
  switch (jit) {
  case GQ_JIT_MISS: return "compiled";
  case GQ_JIT_HIT: return "cache hit";
  case GQ_JIT_OFF: return "compiled, cache off";
  case GQ_JIT_LOADED: return "loaded";
  case GQ_JIT_REJECTED: return "compiled, cache entry rejected and replaced";
  case GQ_JIT_UNSAFE: return "compiled, cache folder not private: not used";
  default: return "none";
  }
}

void cli_jit_note(int jit)
{
  if (jit == GQ_JIT_UNSAFE)
    fprintf(stderr, "gpuquad: note: kernel cache not used: its folder belongs to another user or others can "
                    "write to it (see GPUQUAD_CACHE_DIR in gpuquad(1))\n");
}

/* ---- JSON (and the same record as CSV) ------------------------------------ */
void json_begin(json_writer *w, FILE *out)
{
  memset(w, 0, sizeof *w);
  w->out = out;
  fputc('{', out);
}

int json_begin_csv(json_writer *w, FILE *out)
{
  memset(w, 0, sizeof *w);
  w->dest = out;
  w->header = open_memstream(&w->header_text, &w->header_len);
  w->out = open_memstream(&w->row_text, &w->row_len);
  if (w->header && w->out)
    return 0;
  if (w->header)
    fclose(w->header);
  if (w->out)
    fclose(w->out);
  free(w->header_text);
  free(w->row_text);
  return -1;
}

int json_begin_as(json_writer *w, FILE *out, int csv)
{
  if (!csv) {
    json_begin(w, out);
    return 0;
  }
  return json_begin_csv(w, out) == 0 ? 0 : cli_error(EXIT_RUNTIME, "out of memory");
}

static void json_key(json_writer *w, const char *key)
{
  if (w->dest) {
    fprintf(w->header, "%s%s", w->fields ? "," : "", key);
    if (w->fields++)
      fputc(',', w->out);
    return;
  }
  fprintf(w->out, "%s\"%s\": ", w->fields++ ? ", " : "", key);
}

/* A CSV cell: quoted, with quotes doubled, when it holds a separator, a
 * quote, a line break or an edge blank (RFC 4180). */
static void csv_cell(FILE *out, const char *text, size_t len)
{
  int quote = len > 0 && (text[0] == ' ' || text[len - 1] == ' ');
  for (size_t k = 0; k < len && !quote; k++)
    quote = text[k] == ',' || text[k] == '"' || text[k] == '\n' || text[k] == '\r';
  if (!quote) {
    fwrite(text, 1, len, out);
    return;
  }
  fputc('"', out);
  for (size_t k = 0; k < len; k++) {
    if (text[k] == '"')
      fputc('"', out);
    fputc(text[k], out);
  }
  fputc('"', out);
}

void json_string(json_writer *w, const char *key, const char *value)
{
  json_key(w, key);
  if (w->dest) {
    csv_cell(w->out, value, strlen(value));
    return;
  }
  fputc('"', w->out);
  /* Valid JSON whatever the bytes: a file name need not be UTF-8.  Controls
   * as \u00XX, each byte that is no UTF-8 as U+FFFD (the replacement
   * character). */
  for (const unsigned char *p = (const unsigned char *)value; *p;) {
    const size_t len = utf8_length(p);
    if (len == 0)
      fputs("\\ufffd", w->out);
    else if (*p == '"' || *p == '\\')
      fprintf(w->out, "\\%c", *p);
    else if (is_control(p, len))
      fprintf(w->out, "\\u%04x", len == 1 ? p[0] : p[1]);
    else
      fwrite(p, 1, len, w->out);
    p += len ? len : 1;
  }
  fputc('"', w->out);
}

void json_number(json_writer *w, const char *key, double value)
{
  json_key(w, key);
  if (w->dest && value != value)
    fputs("nan", w->out);
  else if (w->dest && value - value != 0.0)
    fputs(value < 0 ? "-inf" : "inf", w->out);
  else if (value == value && value - value == 0.0)
    fprintf(w->out, "%.17g", value);
  else
    fputs("null", w->out);
}

void json_uint(json_writer *w, const char *key, uint64_t value)
{
  json_key(w, key);
  fprintf(w->out, "%llu", (unsigned long long)value);
}

/* One element of a flat JSON array as a CSV cell: a string unquoted (the
 * members written here hold no escapes), anything else as it is. */
static void csv_element(FILE *out, const char *text, size_t len)
{
  while (len > 0 && *text == ' ')
    text++, len--;
  if (len >= 2 && text[0] == '"' && text[len - 1] == '"')
    text++, len -= 2;
  csv_cell(out, text, len);
}

void json_raw(json_writer *w, const char *key, const char *json)
{
  if (!w->dest || json[0] != '[') {
    json_key(w, key);
    if (w->dest)
      csv_cell(w->out, json, strlen(json));
    else
      fputs(json, w->out);
    return;
  }
  /* an array: one column per element, split at the commas outside strings */
  const char *p = json + 1, *start = p;
  int k = 0, in_string = 0;
  for (; *p; p++) {
    if (*p == '"')
      in_string = !in_string;
    if (in_string || (*p != ',' && *p != ']'))
      continue;
    if (p > start || *p == ',') {
      char column[128];
      snprintf(column, sizeof column, "%s_%d", key, ++k);
      json_key(w, column);
      csv_element(w->out, start, (size_t)(p - start));
    }
    start = p + 1;
    if (*p == ']')
      break;
  }
}

void json_bool(json_writer *w, const char *key, int value)
{
  json_key(w, key);
  fputs(value ? "true" : "false", w->out);
}

void json_end(json_writer *w)
{
  if (!w->dest) {
    fputs("}\n", w->out);
    return;
  }
  fclose(w->header);
  fclose(w->out);
  fprintf(w->dest, "%s\n%s\n", w->header_text ? w->header_text : "", w->row_text ? w->row_text : "");
  free(w->header_text);
  free(w->row_text);
}

double cli_wall_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int cli_split_list(const char *name, const char *text, int dims, char tok[][CLI_TOKEN])
{
  const size_t len = strlen(text);
  if (len > 0 && (text[0] == ',' || text[len - 1] == ',' || strstr(text, ",,")))
    return cli_error(EXIT_USAGE, "--%s=%s: expected a number or a comma-separated list", name, text);
  int count = 1;
  for (const char *p = text; (p = strchr(p, ',')) != NULL; p++)
    count++;
  if (count != 1 && count != dims)
    return cli_error(EXIT_USAGE, "--%s has %d values but --dim=%d (give one value, or one per dimension)", name,
                     count, dims);
  const char *p = text;
  for (int k = 0; k < count; k++) {
    const char *comma = strchr(p, ',');
    const size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (n >= CLI_TOKEN)
      return cli_error(EXIT_USAGE, "--%s: value %d is too long", name, k + 1);
    memcpy(tok[k], p, n);
    tok[k][n] = '\0';
    p = comma ? comma + 1 : p + n;
  }
  for (int d = count; d < dims; d++)
    strcpy(tok[d], tok[0]);
  return EXIT_OK;
}
