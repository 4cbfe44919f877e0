/* hist_plot.c — `gpuquad hist --plot`: a gnuplot script on a pipe (popen),
 * the bins inline as data, the terminal chosen by the file's extension
 * (pngcairo, svg).  gnuplot is looked up on PATH each run, so a missing one
 * is one clear line and exit status 2, never a failure to start. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist_plot.h"

int cli_find_gnuplot(char *buf, size_t size)
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

const char *cli_plot_terminal(const char *path)
{
  const size_t len = strlen(path);
  if (len > 4 && strcmp(path + len - 4, ".png") == 0)
    return "pngcairo size 1000,600";
  if (len > 4 && strcmp(path + len - 4, ".svg") == 0)
    return "svg size 1000,600";
  return NULL;
}

int hist_plot_check(const char *path)
{
  if (!cli_plot_terminal(path))
    return cli_error(EXIT_USAGE, "--plot=%s: expected a FILE.png or FILE.svg", path);
  /* the name goes into a single-quoted gnuplot string: no quote, no control */
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (*p == '\'' || *p < 0x20)
      return cli_error(EXIT_USAGE, "--plot=%s: the name may not hold a quote or a control character", path);
  char gnuplot[4096];
  if (!cli_find_gnuplot(gnuplot, sizeof gnuplot))
    return cli_error(EXIT_USAGE, "--plot=%s: gnuplot was not found on PATH (install it, e.g. the gnuplot-nox "
                                 "package, or leave --plot out)", path);
  if (strchr(gnuplot, '\''))
    return cli_error(EXIT_USAGE, "--plot: gnuplot's path %s holds a quote", gnuplot);
  return EXIT_OK;
}

int hist_plot(const gq_hist *h, const char *path)
{
  char gnuplot[4096], command[4200];
  if (!cli_find_gnuplot(gnuplot, sizeof gnuplot))
    return cli_error(EXIT_USAGE, "--plot=%s: gnuplot was not found on PATH", path);
  snprintf(command, sizeof command, "'%s'", gnuplot);
  fflush(NULL);
  FILE *g = popen(command, "w");
  if (!g)
    return cli_error(EXIT_RUNTIME, "--plot: cannot start %s", gnuplot);
  fprintf(g, "set terminal %s\nset output '%s'\nset key off\n", cli_plot_terminal(path), path);
  if (h->dims == 1) {
    fprintf(g, "set style fill solid 0.8 border -1\nset xlabel 'x'\nset ylabel 'count'\n"
               "set title '%u bins on [%.17g, %.17g]; under %llu, over %llu, NaN %llu'\n"
               "set xrange [%.17g:%.17g]\nplot '-' using 1:2:3 with boxes\n",
            h->bins[0], h->lo[0], h->hi[0], (unsigned long long)h->under, (unsigned long long)h->over,
            (unsigned long long)h->nan, h->lo[0], h->hi[0]);
    for (uint32_t k = 0; k < h->bins[0]; k++) {
      const double from = gq_hist_edge(h, 0, k), to = gq_hist_edge(h, 0, k + 1);
      fprintf(g, "%.17g %llu %.17g\n", 0.5 * (from + to), (unsigned long long)h->counts[k], to - from);
    }
  } else {
    fprintf(g, "set xlabel 'x'\nset ylabel 'y'\nset cblabel 'count'\nset title '%u x %u cells'\n"
               "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\nplot '-' using 1:2:3 with image\n",
            h->bins[0], h->bins[1], h->lo[0], h->hi[0], h->lo[1], h->hi[1]);
    for (uint32_t i = 0; i < h->bins[0]; i++)
      for (uint32_t j = 0; j < h->bins[1]; j++)
        fprintf(g, "%.17g %.17g %llu\n", 0.5 * (gq_hist_edge(h, 0, i) + gq_hist_edge(h, 0, i + 1)),
                0.5 * (gq_hist_edge(h, 1, j) + gq_hist_edge(h, 1, j + 1)),
                (unsigned long long)h->counts[(size_t)i * h->bins[1] + j]);
  }
  fputs("e\n", g);
  const int status = pclose(g);
  if (status != 0)
    return cli_error(EXIT_RUNTIME, "--plot=%s: gnuplot failed (status %d)", path, status);
  return EXIT_OK;
}
