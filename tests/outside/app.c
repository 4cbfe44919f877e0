/* app.c — an outside program of the installed libgpuquad (tests/outside.sh
 * builds it with CMake and with make + pkg-config): on the CPU backend, the
 * integral of x^2 on [0, 1] by Simpson's rule, exact for cubics (1/3 up to
 * rounding), and the dot product of (1, 2, 3) and (4, 5, 6), 32 exactly.
 * Exit 0 when both are right. */
#include <gpuquad.h>
#include <math.h>
#include <stdio.h>

int main(void)
{
  gq_context *ctx = gq_context_create(GQ_DEVICE_CPU);
  if (!ctx) {
    fprintf(stderr, "app: %s\n", gq_last_error());
    return 1;
  }
  gq_integrand *f = NULL;
  gq_rule_result r;
  int status = gq_integrand_parse("x^2", NULL, 0, 1, &f, NULL);
  if (status == GQ_SUCCESS)
    status = gq_integrate_rule(ctx, f, GQ_RULE_SIMPSON, 0.0, 1.0, 1000, GQ_PRECISION_DOUBLE, &r);
  const double x[] = {1, 2, 3}, y[] = {4, 5, 6};
  double dot = 0;
  if (status == GQ_SUCCESS)
    status = gq_dot(ctx, 3, x, y, &dot);
  if (status != GQ_SUCCESS) {
    fprintf(stderr, "app: %s: %s\n", gq_strerror(status), gq_last_error());
    gq_integrand_free(f);
    gq_context_free(ctx);
    return 1;
  }
  const int right = fabs(r.result - 1.0 / 3.0) <= 1e-14 && dot == 32;
  printf("gpuquad %s: x^2 on [0, 1] = %.17g, dot = %.17g: %s\n", gq_version(), r.result, dot,
         right ? "right" : "WRONG");
  gq_integrand_free(f);
  gq_context_free(ctx);
  return right ? 0 : 1;
}
