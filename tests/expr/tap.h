/* tap.h — minimal TAP producer for the expr tests.  The plan ("1..N") is
 * printed first: results are collected and written at the end, so a test
 * program may run data-driven loops without counting in advance. */
#ifndef GQ_TEST_TAP_H
#define GQ_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tap_log;
static size_t tap_len, tap_cap;
static int tap_count, tap_failed;

static void tap_append(const char *s)
{
  size_t n = strlen(s);
  if (tap_len + n + 1 > tap_cap) {
    size_t cap = tap_cap ? tap_cap * 2 : 4096;
    while (cap < tap_len + n + 1) cap *= 2;
    char *p = realloc(tap_log, cap);
    if (!p) {
      fputs("Bail out! out of memory\n", stdout);
      exit(99);
    }
    tap_log = p, tap_cap = cap;
  }
  memcpy(tap_log + tap_len, s, n + 1);
  tap_len += n;
}

/* Records one test; returns cond so callers can add diagnostics. */
static int ok(int cond, const char *fmt, ...)
{
  char line[1024];
  int n;
  va_list ap;
  tap_count++;
  if (!cond) tap_failed++;
  n = snprintf(line, sizeof line, "%sok %d - ", cond ? "" : "not ", tap_count);
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  /* A description must stay on one line and must not contain '#'. */
  for (char *c = line; *c; c++)
    if (*c == '\n' || *c == '#') *c = ' ';
  tap_append(line);
  tap_append("\n");
  return cond;
}

static void diag(const char *fmt, ...)
{
  char line[1024] = "# ";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + 2, sizeof line - 2, fmt, ap);
  va_end(ap);
  for (char *c = line + 2; *c; c++)
    if (*c == '\n') *c = ' ';
  tap_append(line);
  tap_append("\n");
}

static int tap_done(void)
{
  printf("1..%d\n", tap_count);
  if (tap_log) fputs(tap_log, stdout);
  free(tap_log);
  return tap_failed ? 1 : 0;
}

#endif
