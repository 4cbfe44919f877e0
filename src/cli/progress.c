/* progress.c — the progress line on standard error (progress.h).  The
 * library reports (done, total, unit) between pieces of work; this turns
 * them into "what runs, how far, how fast, how long still", throttled so
 * that drawing never costs more than a write every fifth of a second. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "progress.h"

const char *cli_progress_text;

enum { MODE_AUTO, MODE_ALWAYS, MODE_NEVER };

static struct {
  int mode;
  int on;            /* attached: reports are drawn                         */
  int tty;           /* drawing in place with \r                            */
  double delay_s;    /* silent until a task has run this long               */
  double start_ms;   /* the task's start: attach, or the previous task's end */
  double last_ms;    /* the last line drawn                                 */
  uint64_t last_done;
  int width;         /* of the line on screen, 0 when none is               */
} state;

void cli_usage_progress(FILE *out)
{
  fputs("  --progress=WHEN      progress on stderr for long work: auto (a terminal,\n"
        "                       after a second), always (plain lines), never\n",
        out);
}

int cli_progress_check(void)
{
  const char *t = cli_progress_text;
  if (!t || strcmp(t, "auto") == 0)
    state.mode = MODE_AUTO;
  else if (strcmp(t, "always") == 0)
    state.mode = MODE_ALWAYS;
  else if (strcmp(t, "never") == 0)
    state.mode = MODE_NEVER;
  else
    return cli_error(EXIT_USAGE, "--progress=%s: expected auto, always or never", t);
  return EXIT_OK;
}

void cli_progress_attach(gq_context *ctx)
{
  if (cli_progress_check() != EXIT_OK || state.mode == MODE_NEVER || cli_mpi_rank() != 0)
    return;
  state.tty = isatty(STDERR_FILENO);
  if (state.mode == MODE_AUTO && !state.tty)
    return;
  state.delay_s = state.mode == MODE_AUTO ? 1.0 : 0.0;
  state.start_ms = cli_wall_ms();
  state.last_ms = -1e300;
  state.last_done = 0;
  state.on = 1;
  if (ctx)
    gq_context_set_progress(ctx, cli_progress_report, NULL);
}

void cli_progress_problems(gq_context *ctx, uint64_t done, uint64_t total)
{
  if (!state.on)
    return;
  gq_context_set_progress(ctx, NULL, NULL);
  cli_progress_report(done, total, "integrals", NULL);
}

void cli_progress_clear(void)
{
  if (state.width > 0) {
    fprintf(stderr, "\r%*s\r", state.width, "");
    fflush(stderr);
    state.width = 0;
  }
}

/* v in the unit's words: bytes as kB, MB, GB; counts whole below 1e5, else
 * with 3 digits, as rates always are. */
static void amount(char *buf, size_t size, double v, const char *unit, int rate)
{
  if (strcmp(unit, "bytes") == 0) {
    static const char *const prefix[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int k = 0;
    while (v >= 1000.0 && k < 5) {
      v /= 1000.0;
      k++;
    }
    snprintf(buf, size, k ? "%.3g %s" : "%.0f %s", v, prefix[k]);
  } else {
    snprintf(buf, size, v < 1e5 && !rate ? "%.0f %s" : "%.3g %s", v, unit);
  }
}

static void duration(char *buf, size_t size, double s)
{
  if (!(s < 1e7))
    snprintf(buf, size, "?");
  else if (s < 60.0)
    snprintf(buf, size, "%.0f s", ceil(s));
  else if (s < 3600.0)
    snprintf(buf, size, "%d:%02d", (int)(s / 60.0), (int)fmod(s, 60.0));
  else
    snprintf(buf, size, "%d:%02d:%02d", (int)(s / 3600.0), (int)fmod(s / 60.0, 60.0), (int)fmod(s, 60.0));
}

void cli_progress_report(uint64_t done, uint64_t total, const char *unit, void *user)
{
  (void)user;
  if (!state.on)
    return;
  const double now = cli_wall_ms();
  if (done < state.last_done) /* a new task of the same call */
    state.start_ms = now;
  state.last_done = done;
  const int end = total > 0 && done == total;
  const double elapsed_s = (now - state.start_ms) / 1000.0;
  if (state.tty && (elapsed_s < state.delay_s || now - state.last_ms < 200.0) && !end)
    return; /* quick work stays silent; a terminal is redrawn 5 times a second at most */
  if (!state.tty && (now - state.last_ms < 1000.0 || done == 0) && !end)
    return; /* plain lines: one a second, and none before there is news */
  if (end) {
    state.last_done = 0;
    if (state.tty) { /* the task is over: its line goes */
      cli_progress_clear();
      state.start_ms = now;
      return;
    }
  }
  state.last_ms = now;
  const double rate = elapsed_s > 0.0 ? (double)done / elapsed_s : NAN;
  char so_far[64], whole[64], speed[80], left[32], line[256];
  amount(so_far, sizeof so_far, (double)done, unit, 0);
  amount(whole, sizeof whole, (double)total, unit, 0);
  amount(speed, sizeof speed, rate, unit, 1);
  if (total == 0) /* how much is not known in advance */
    snprintf(line, sizeof line, "gpuquad: %s, %s/s", so_far, isfinite(rate) ? speed : "?");
  else if (end)
    snprintf(line, sizeof line, "gpuquad: 100%% of %s in %.3g s, %s/s", whole, elapsed_s,
             isfinite(rate) ? speed : "?");
  else {
    duration(left, sizeof left, rate > 0.0 ? (double)(total - done) / rate : NAN);
    snprintf(line, sizeof line, "gpuquad: %.1f%% of %s, %s/s, %s left", 100.0 * (double)done / (double)total,
             whole, isfinite(rate) ? speed : "?", left);
  }
  if (state.tty) {
    const int len = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, state.width > len ? state.width - len : 0, "");
    state.width = len > state.width ? len : state.width;
  } else {
    fprintf(stderr, "%s\n", line);
  }
  fflush(stderr);
  if (end)
    state.start_ms = now;
}
