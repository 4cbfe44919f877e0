/* plot.c — gnuplot on a pipe (plot.h).  gnuplot is looked up on PATH each
 * run, so a missing one is one clear line and exit status 2, never a failure
 * to start; the output name travels in a single-quoted gnuplot string. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "plot.h"

int plot_find_gnuplot(char *buf, size_t size)
{
  const char *path = getenv("PATH");
  if (!path)
    return 0;
  for (const char *dir = path; *dir;) {
    const char *end = strchr(dir, ':');
    const size_t len = end ? (size_t)(end - dir) : strlen(dir);
    if (len > 0 && (size_t)snprintf(buf, size, "%.*s/gnuplot", (int)len, dir) < size && access(buf, X_OK) == 0)
      return 1;
    if (!end)
      break;
    dir = end + 1;
  }
  return 0;
}

/* The gnuplot terminal for a FILE.png or FILE.svg, NULL for any other name. */
static const char *terminal_of(const char *path)
{
  const size_t len = strlen(path);
  if (len > 4 && strcmp(path + len - 4, ".png") == 0)
    return "pngcairo size 1000,600 font ',11'";
  if (len > 4 && strcmp(path + len - 4, ".svg") == 0)
    return "svg size 1000,600 dynamic font 'sans,11'";
  return NULL;
}

int plot_check(const char *path)
{
  /* under mpirun every rank would start its own gnuplot on the one file */
  if (cli_mpi_ranks() > 1)
    return cli_error(EXIT_USAGE, "--plot=%s: draw from one process, not %d ranks under mpirun", path,
                     cli_mpi_ranks());
  if (!terminal_of(path))
    return cli_error(EXIT_USAGE, "--plot=%s: expected a FILE.png or FILE.svg", path);
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (*p == '\'' || *p < 0x20)
      return cli_error(EXIT_USAGE, "--plot=%s: the name may not hold a quote or a control character", path);
  char gnuplot[4096];
  if (!plot_find_gnuplot(gnuplot, sizeof gnuplot))
    return cli_error(EXIT_USAGE, "--plot=%s: gnuplot was not found on PATH (install it, e.g. the gnuplot-nox "
                                 "package, or leave --plot out)", path);
  if (strchr(gnuplot, '\''))
    return cli_error(EXIT_USAGE, "--plot: gnuplot's path %s holds a quote", gnuplot);
  return EXIT_OK;
}

FILE *plot_open(const char *path)
{
  char gnuplot[4096], command[4200];
  if (!plot_find_gnuplot(gnuplot, sizeof gnuplot)) {
    cli_error(EXIT_USAGE, "--plot=%s: gnuplot was not found on PATH", path);
    return NULL;
  }
  snprintf(command, sizeof command, "'%s'", gnuplot);
  fflush(NULL);
  FILE *g = popen(command, "w");
  if (!g) {
    cli_error(EXIT_RUNTIME, "--plot: cannot start %s", gnuplot);
    return NULL;
  }
  fprintf(g, "set terminal %s noenhanced\nset output '%s'\nset grid lc rgb '#dddddd'\n", terminal_of(path), path);
  return g;
}

int plot_close(FILE *g, const char *path)
{
  const int status = pclose(g);
  if (status != 0)
    return cli_error(EXIT_RUNTIME, "--plot=%s: gnuplot failed (status %d)", path, status);
  return EXIT_OK;
}

void plot_string(FILE *g, const char *text)
{
  fputc('\'', g);
  for (const char *p = text; *p; p++) {
    if (*p == '\'')
      fputc('\'', g);
    fputc(*p == '\n' ? ' ' : *p, g);
  }
  fputc('\'', g);
}
