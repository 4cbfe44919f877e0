/* t_product_jit_compile.c — NVRTC compiles the product-grid kernels (the
 * sums with fast and exact functions and the count of non-finite values) of
 * expressions in 1 to 6 dimensions, Gauss-Legendre and Newton-Cotes axes,
 * double and float, for sm_90.  NVRTC needs no GPU, so this runs wherever
 * CUDA was configured. */
#include "config.h"

#include "../src/lib/internal.h"
#include "tap.h"

int main(void)
{
  const struct {
    const char *text;
    int dims, gl, precision;
  } cases[] = {
    {"4*sqrt(1-x^2)", 1, 1, GQ_PRECISION_DOUBLE},
    {"exp(-(x1^2+x2^2))", 2, 0, GQ_PRECISION_DOUBLE},
    {"exp(-(x^2+y^2+z^2))", 3, 1, GQ_PRECISION_DOUBLE},
    {"x1*x2*x3*x4", 4, 0, GQ_PRECISION_FLOAT},
    {"x1+x2+x3+x4+x5+x6", 6, 1, GQ_PRECISION_DOUBLE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    if (!tap_ok(gq_integrand_parse(cases[i].text, NULL, 0, cases[i].dims, &f, NULL) == GQ_SUCCESS, "parse %s",
                cases[i].text))
      continue;
    size_t size = 0;
    const int st = gq_jit_product_compile_only(f, cases[i].precision, cases[i].dims, (unsigned)cases[i].gl, 90, &size);
    tap_ok(st == GQ_SUCCESS && size > 1000, "NVRTC sm_90 product %s %s D=%d: %s (%zu-byte cubin)%s%s",
           cases[i].gl ? "gauss-legendre" : "newton-cotes", cases[i].precision ? "float" : "double", cases[i].dims,
           cases[i].text, size, st ? ": " : "", st ? gq_last_error() : "");
    gq_integrand_free(f);
  }
  return tap_done();
}
