/* t_mc_jit_compile.c — NVRTC compiles the Monte Carlo module (the fused
 * kernel, fast and exact) of expressions in 1, 2, 5 and 16
 * dimensions, uniform and normal, double and float, for sm_90.  NVRTC needs
 * no GPU, so this runs wherever CUDA was configured. */
#include "config.h"

#include "../src/lib/internal.h"
#include "tap.h"

int main(void)
{
  const struct { const char *text; int dims; } cases[] = {
    {"sqrt(1-x^2)", 1},
    {"exp(-(x1^2+x2^2))", 2},
    {"4*sqrt(1-x^2)", 1}, /* a power-of-two scale split off */
    {"x1*x2*x3*x4*x5 + if(x1 < 0.5, sin(x2), cos(x3))", 5},
    {"x1+x2+x3+x4+x5+x6+x7+x8+x9+x10+x11+x12+x13+x14+x15+x16", 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(cases[i].text, NULL, 0, cases[i].dims, &f, NULL) == GQ_SUCCESS, "parse %s",
                cases[i].text))
      continue;
    for (int dist = 0; dist < 2; dist++)
      for (int p = 0; p < 2; p++) {
        if (i >= 3 && p == 1 && dist == 1)
          continue; /* keep the run short: the large cases once per precision */
        size_t size = 0;
        const int st = gq_jit_mc_compile_only(f, cases[i].dims, dist, p, 90, &size);
        tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 mc %s %s D=%d: %s (%zu-byte cubin)%s%s",
               dist ? "normal" : "uniform", p ? "float" : "double", cases[i].dims, cases[i].text, size,
               st ? ": " : "", st ? gq_last_error() : "");
      }
    gq_integrand_free(f);
  }
  return tap_done();
}
