/* tap.h — Test Anything Protocol output for the C test programs. */
#ifndef GQ_TAP_H
#define GQ_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failures;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int tap_ok(int ok, const char *fmt, ...)
{
  va_list ap;
  printf("%sok %d - ", ok ? "" : "not ", ++tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
  if (!ok)
    tap_failures++;
  return ok;
}

/* A comment line ("# ..."), for details under a result. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void diag(const char *fmt, ...)
{
  va_list ap;
  fputs("# ", stdout);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
}

static int tap_done(void)
{
  printf("1..%d\n", tap_count);
  return tap_failures ? 1 : 0;
}

#endif
