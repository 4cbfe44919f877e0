/* hist_plot.c — `gpuquad hist --plot`: the bins inline as data for gnuplot
 * (plot.c starts it, the terminal chosen by the file's extension). */
#include "config.h"

#include "hist_plot.h"
#include "plot.h"

int hist_plot(const gq_hist *h, const char *path)
{
  FILE *g = plot_open(path);
  if (!g)
    return EXIT_RUNTIME;
  fputs("set key off\n", g);
  if (h->dims == 1) {
    fprintf(g, "set style fill solid 0.8 border -1\nset xlabel 'x'\nset ylabel 'count'\n"
               "set title '%u bins on [%.6g, %.6g]; under %llu, over %llu, NaN %llu'\n"
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
  return plot_close(g, path);
}
