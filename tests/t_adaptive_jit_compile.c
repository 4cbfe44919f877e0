/* t_adaptive_jit_compile.c — NVRTC compiles adaptive cubature's region
 * kernel (kernels/adaptive/regions.cuh in the expression's module) for
 * every dimension count, 1 (G7-K15) to 8 (Genz-Malik), for sm_90, and for
 * an integrand changed onto finite limits.  NVRTC needs no GPU, so this
 * runs wherever CUDA was configured. */
#include "config.h"

#include "../src/lib/adaptive_internal.h"
#include "tap.h"

int main(void)
{
  static const char *const texts[] = {"4*sqrt(1-x^2)",         "exp(-(x1^2+x2^2))", "x1*x2*x3",
                                      "cos(x1+x2+x3+x4)",      "abs(x1-x5)",        "x1+x2+x3+x4+x5+x6",
                                      "if(x1<0.5,x7,0)",       "exp(-(x1+x2+x3+x4+x5+x6+x7+x8))"};
  for (int dims = 1; dims <= 8; dims++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(texts[dims - 1], NULL, 0, dims, &f, NULL) == GQ_SUCCESS, "parse %s",
                texts[dims - 1]))
      continue;
    size_t size = 0;
    const int st = gq_jit_adaptive_compile_only(f, dims, 90, &size);
    tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 adaptive D=%d: %s (%zu-byte cubin)%s%s", dims,
           texts[dims - 1], size, st ? ": " : "", st ? gq_last_error() : "");
    gq_integrand_free(f);
  }
  return tap_done();
}
