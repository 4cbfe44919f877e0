/* status.c — status names, the last-error message, the error handler, version. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const char *const status_names[GQ_NSTATUS] = {
  [GQ_SUCCESS] = "success",
  [GQ_EINVAL] = "invalid argument",
  [GQ_ENOMEM] = "out of memory",
  [GQ_ECUDA] = "CUDA error",
  [GQ_ENODEV] = "no CUDA device",
  [GQ_EDOM] = "result is not finite",
  [GQ_EIO] = "input/output error",
  [GQ_EFORMAT] = "malformed or unsupported data",
  [GQ_EPARSE] = "expression does not parse",
  [GQ_EUNSUP] = "not supported",
  [GQ_ECHECK] = "result disagrees with the reference",
};

const char *gq_strerror(int status)
{
  if (status < 0 || status >= GQ_NSTATUS)
    return "unknown status";
  return status_names[status];
}

static _Thread_local char last_error[512];
static gq_error_handler_t *handler;

const char *gq_last_error(void) { return last_error; }

void gq_clear_error(void) { last_error[0] = '\0'; }

gq_error_handler_t *gq_set_error_handler(gq_error_handler_t *h)
{
  gq_error_handler_t *old = handler;
  handler = h;
  return old;
}

/* printf spells a NaN "nan" or "-nan" (the sign of a NaN means nothing) and
 * infinities "inf": messages say NaN, Inf and -Inf, whatever produced them. */
static void spell_nonfinite(char *s)
{
  static const struct { const char *from, *to; } words[] = {
    {"-nan", "NaN"}, {"nan", "NaN"}, {"-inf", "-Inf"}, {"inf", "Inf"}};
  for (char *p = s; *p; p++) {
    if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-'))
      continue;
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
      const size_t n = strlen(words[w].from), m = strlen(words[w].to);
      if (strncmp(p, words[w].from, n) != 0 || isalnum((unsigned char)p[n]) || p[n] == '_')
        continue;
      memmove(p + m, p + n, strlen(p + n) + 1); /* m <= n: never longer */
      memcpy(p, words[w].to, m);
      p += m - 1;
      break;
    }
  }
}

int gq_fail(int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  spell_nonfinite(last_error);
  if (handler)
    handler(status, last_error);
  return status;
}

int gq_null_arg(const char *function, const char *argument)
{
  return gq_fail(GQ_EINVAL, "%s: %s is NULL", function, argument);
}

int gq_check_span(const char *function, const char *argument, const void *p, size_t n, size_t size)
{
  if (gq_span_fits(p, n, size))
    return GQ_SUCCESS;
  return gq_fail(GQ_EINVAL, "%s: %zu elements of %zu bytes (%s) are more than one object can hold", function,
                 n, size, argument);
}

const char *gq_version(void) { return PACKAGE_VERSION; }

double gq_wall_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
