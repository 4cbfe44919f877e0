/* t_vegas_jit_compile.c — NVRTC compiles the VEGAS module (vegas.cuh's pass
 * kernel: fast and exact functions, warp-aggregated and shared training
 * bins) and the Sobol sampler's Monte Carlo module for expressions in 1, 4,
 * 8 and 16 dimensions, double and float, for sm_90.  NVRTC needs no GPU, so
 * this runs wherever CUDA was configured. */
#include "config.h"

#include "../src/lib/internal.h"
#include "tap.h"

int main(void)
{
  const struct { const char *text; int dims; } cases[] = {
    {"sqrt(1-x^2)", 1},
    {"exp(-100*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2+(x4-0.5)^2))", 4},
    {"cos(x1+x2+x3+x4+x5+x6+x7+x8)", 8},
    {"x1+x2+x3+x4+x5+x6+x7+x8+x9+x10+x11+x12+x13+x14+x15+x16", 16},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(cases[i].text, NULL, 0, cases[i].dims, &f, NULL) == GQ_SUCCESS, "parse %s",
                cases[i].text))
      continue;
    for (int p = 0; p < 2; p++) {
      size_t size = 0;
      int st = gq_jit_vegas_compile_only(f, cases[i].dims, p, 90, &size);
      tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 vegas %s D=%d: %s (%zu-byte cubin)%s%s",
             p ? "float" : "double", cases[i].dims, cases[i].text, size, st ? ": " : "", st ? gq_last_error() : "");
      st = gq_jit_mc_compile_only(f, cases[i].dims, GQ_MC_SOBOL_COMPILE, p, 90, &size);
      tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 mc sobol %s D=%d: %s (%zu-byte cubin)%s%s",
             p ? "float" : "double", cases[i].dims, cases[i].text, size, st ? ": " : "", st ? gq_last_error() : "");
    }
    gq_integrand_free(f);
  }
  return tap_done();
}
