/* pi.c — pi through libgpuquad: the trapezoid rule for 4*sqrt(1-x^2) on the
 * GPU when there is one (else the CPU), checked against the exact value.
 *
 *   cc pi.c $(pkg-config --cflags --libs gpuquad) -o pi && ./pi 1e9
 */
#include <gpuquad.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  const uint64_t n = argc > 1 ? (uint64_t)strtod(argv[1], NULL) : 1000000;
  gq_context *ctx = gq_context_create(GQ_DEVICE_AUTO);
  if (!ctx) {
    fprintf(stderr, "pi: %s\n", gq_last_error());
    return 1;
  }
  const gq_integrand *f = gq_integrand_builtin("circle");
  gq_trapezoid_result r;
  gq_reference ref = {0};
  double tolerance = 0;
  int status = gq_integrate_trapezoid(ctx, f, 0.0, 1.0, n, GQ_PRECISION_DOUBLE, &r);
  if (status == GQ_SUCCESS)
    status = gq_integrate_reference(f, 0.0, 1.0, &ref);
  if (status == GQ_SUCCESS)
    status = gq_trapezoid_check(&r, GQ_PRECISION_DOUBLE, &ref, &tolerance);
  printf("pi ~ %.17g  (error %.3g, estimate %.3g, tolerance %.3g) on %s, %.3f ms: %s\n", r.result,
         r.result - ref.value, r.abserr, tolerance, gq_context_device_name(ctx), r.kernel_ms,
         gq_strerror(status));
  gq_context_free(ctx);
  return status == GQ_SUCCESS ? 0 : 1;
}
