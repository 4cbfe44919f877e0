/* t_scan_jit_compile.c — NVRTC compiles the cumulative integral's module
 * (the look-back scan over an expression's grid values, cumulative.cuh and
 * the scan headers embedded as strings) for sm_90.  NVRTC needs no GPU, so
 * this runs wherever CUDA was configured. */
#include "config.h"

#include "../src/lib/scan_internal.h"
#include "tap.h"

int main(void)
{
  const char *const cases[] = {"sqrt(1-x^2)", "4*sqrt(1-x^2)", "sin(x)*exp(-x/3) + if(x < 0.5, x^2, 1/x)"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(cases[i], NULL, 0, 1, &f, NULL) == GQ_SUCCESS, "parse %s", cases[i]))
      continue;
    size_t size = 0;
    const int st = gq_jit_cumulative_compile_only(f, 90, &size);
    tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 cumulative %s (%zu-byte cubin)%s%s", cases[i], size,
           st ? ": " : "", st ? gq_last_error() : "");
    gq_integrand_free(f);
  }
  return tap_done();
}
