/* t_exact_jit.c — NVRTC compiles the deterministic grid, box and Monte
 * Carlo kernels of expressions (kernels/engine/exact_tile.cuh and the exact
 * accumulator's headers, embedded), double and float, for sm_90.  NVRTC
 * needs no GPU, so this runs wherever CUDA was configured. */
#include "config.h"

#include "../src/lib/exact.h"
#include "tap.h"

int main(void)
{
  const char *exprs[] = {"4*sqrt(1-x^2)", "exp(-x*x)*cos(3*x)"};
  for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(exprs[i], NULL, 0, 1, &f, NULL) == GQ_SUCCESS, "parse %s", exprs[i]))
      continue;
    for (int p = 0; p < 2; p++) {
      size_t size = 0;
      const int st = gq_jit_compile_exact_only(f, p, 90, &size);
      tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 deterministic %s: %s (%zu-byte cubin)%s%s",
             p ? "float" : "double", exprs[i], size, st ? ": " : "", st ? gq_last_error() : "");
      const int sm = gq_jit_mc_compile_exact_only(f, 1, p ? GQ_MC_NORMAL : GQ_MC_UNIFORM, p, 90, &size);
      tap_ok(sm == GQ_SUCCESS && size > 1000, "NVRTC sm_90 deterministic mc %s: %s (%zu-byte cubin)%s%s",
             p ? "float, normal" : "double, uniform", exprs[i], size, sm ? ": " : "", sm ? gq_last_error() : "");
      const int ss = gq_jit_mc_compile_exact_only(f, 1, GQ_MC_SOBOL_COMPILE, p, 90, &size);
      tap_ok(ss == GQ_SUCCESS && size > 1000, "NVRTC sm_90 deterministic Sobol %s: %s (%zu-byte cubin)%s%s",
             p ? "float" : "double", exprs[i], size, ss ? ": " : "", ss ? gq_last_error() : "");
    }
    gq_integrand_free(f);
  }
  gq_integrand *box = NULL;
  if (tap_ok(gq_integrand_parse("x*y + sqrt(z)", NULL, 0, 3, &box, NULL) == GQ_SUCCESS, "parse x*y + sqrt(z)"))
    for (unsigned panels = 0; panels <= 1; panels++) {
      size_t size = 0;
      const int st = gq_jit_product_compile_exact_only(box, 0, 3, panels, 90, &size);
      tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 deterministic 3-D box (%s) (%zu-byte cubin)%s%s",
             panels ? "Gauss-Legendre" : "Newton-Cotes", size, st ? ": " : "", st ? gq_last_error() : "");
    }
  gq_integrand_free(box);
  return tap_done();
}
