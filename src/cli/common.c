/* common.c — option scanning, errors and the device choice, shared by every
 * gpuquad command. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

int cli_error(int status, const char *fmt, ...)
{
  va_list ap;
  fputs("gpuquad: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
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

static const cli_option *find_option(const cli_option *opts, size_t n, const char *name, size_t len)
{
  for (size_t k = 0; k < n; k++)
    if (strlen(opts[k].name) == len && strncmp(opts[k].name, name, len) == 0)
      return &opts[k];
  return NULL;
}

int cli_parse(int argc, char **argv, int first, const cli_option *opts, size_t nopts,
              const char **positional, int max_positional, int *npositional,
              char *err, size_t errlen)
{
  int npos = 0, only_positional = 0;
  for (int i = first; i < argc; i++) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (npos >= max_positional) {
        snprintf(err, errlen, "unexpected argument '%s'", arg);
        return -1;
      }
      positional[npos++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      only_positional = 1;
      continue;
    }
    if (arg[1] != '-') {
      snprintf(err, errlen, "unknown option '%s' (options are spelled --name=value)", arg);
      return -1;
    }
    const char *name = arg + 2, *eq = strchr(name, '=');
    const size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const cli_option *o = find_option(opts, nopts, name, len);
    if (!o) {
      snprintf(err, errlen, "unknown option '--%.*s' (see gpuquad --help)", (int)len, name);
      return -1;
    }
    if (o->kind == OPT_FLAG) {
      if (eq) {
        snprintf(err, errlen, "option '--%s' takes no value", o->name);
        return -1;
      }
      *o->flag = o->set_to;
      continue;
    }
    const char *value;
    if (eq) {
      value = eq + 1;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      snprintf(err, errlen, "option '--%s' needs a value", o->name);
      return -1;
    }
    if (o->kind == OPT_VALUE) {
      *o->value = value;
    } else if (*o->flag < o->set_to) {
      o->value[(*o->flag)++] = value;
    } else {
      snprintf(err, errlen, "option '--%s' given more than %d times", o->name, o->set_to);
      return -1;
    }
  }
  if (npositional)
    *npositional = npos;
  return 0;
}

int cli_parse_error(const char *text, const char *const *params, const gq_parse_error *err)
{
  const char *line = err->in_param ? params[err->param_index] : text;
  if (err->in_param)
    fprintf(stderr, "gpuquad: --param %s: %s\n", line, err->message);
  else
    fprintf(stderr, "gpuquad: --f: %s\n", err->message);
  if (strlen(line) <= 200 && err->column <= strlen(line)) {
    fprintf(stderr, "  %s\n  ", line);
    for (size_t k = 0; k < err->column; k++)
      fputc(line[k] == '\t' ? '\t' : ' ', stderr);
    fputs("^\n", stderr);
  }
  return EXIT_USAGE;
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
    char *end;
    const long k = strtol(text + 5, &end, 10);
    if (end == text + 5 || *end || k < 0 || k > 1024)
      return -1;
    *device = (int)k;
  } else
    return -1;
  return 0;
}

int cli_open_context(const char *device_text, int quiet, gq_context **ctx)
{
  int device;
  if (cli_parse_device(device_text, &device) != 0)
    return cli_error(EXIT_USAGE, "--device=%s: expected auto, cpu, cuda or cuda:N", device_text);
  if (device == GQ_DEVICE_AUTO && gq_cuda_device_count() == 0) {
    if (!quiet)
      fprintf(stderr, "gpuquad: no CUDA device found; using the CPU backend\n");
    device = GQ_DEVICE_CPU;
  }
  const int status = gq_context_open(ctx, device);
  if (status != GQ_SUCCESS) {
    if (status == GQ_ENODEV)
      return cli_error(EXIT_USAGE, "--device=%s: %s", device_text, gq_last_error());
    return cli_error(cli_exit_status(status), "%s", gq_last_error());
  }
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

/* ---- JSON ----------------------------------------------------------------- */
void json_begin(json_writer *w, FILE *out)
{
  w->out = out;
  w->fields = 0;
  fputc('{', out);
}

static void json_key(json_writer *w, const char *key)
{
  fprintf(w->out, "%s\"%s\": ", w->fields++ ? ", " : "", key);
}

void json_string(json_writer *w, const char *key, const char *value)
{
  json_key(w, key);
  fputc('"', w->out);
  for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(w->out, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(w->out, "\\u%04x", *p);
    else
      fputc(*p, w->out);
  }
  fputc('"', w->out);
}

void json_number(json_writer *w, const char *key, double value)
{
  json_key(w, key);
  if (value == value && value - value == 0.0)
    fprintf(w->out, "%.17g", value);
  else
    fputs("null", w->out);
}

void json_uint(json_writer *w, const char *key, uint64_t value)
{
  json_key(w, key);
  fprintf(w->out, "%llu", (unsigned long long)value);
}

void json_bool(json_writer *w, const char *key, int value)
{
  json_key(w, key);
  fputs(value ? "true" : "false", w->out);
}

void json_end(json_writer *w)
{
  fputs("}\n", w->out);
}

double cli_wall_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
