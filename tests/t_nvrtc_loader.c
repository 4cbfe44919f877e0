/* t_nvrtc_loader.c — NVRTC is opened on the first JIT compile, not linked
 * (src/lib/nvrtc_loader.c).  NVRTC needs no GPU, so this runs wherever CUDA
 * was configured; tests/link_deps.sh runs it twice:
 *   t_nvrtc_loader            NVRTC loads and compiles an expression
 *   t_nvrtc_loader MISSING    with GPUQUAD_NVRTC=MISSING (a file that does not
 *                             exist) the compile fails with GQ_ECUDA and one
 *                             line naming MISSING, and the CPU backend works */
#include "config.h"

#include <math.h>
#include <string.h>

#include "../src/lib/internal.h"
#include "../src/lib/nvrtc_loader.h"
#include "tap.h"

int main(int argc, char **argv)
{
  const char *missing = argc > 1 ? argv[1] : NULL;
  gq_integrand *f = NULL;
  if (!tap_ok(gq_integrand_parse("4*sqrt(1-x^2)", NULL, 0, 1, &f, NULL) == GQ_SUCCESS, "parse"))
    return tap_done();
  size_t size = 0;
  const int st = gq_jit_compile_only(f, 0, 90, &size);
  const char *msg = st ? gq_last_error() : "";
  if (!missing) {
    tap_ok(gq_nvrtc_load() == GQ_SUCCESS, "NVRTC loads (%s)", GQ_NVRTC_SONAME);
    tap_ok(st == GQ_SUCCESS && size > 1000, "the first JIT compile loads NVRTC: %zu-byte cubin%s%s", size,
           st ? ": " : "", msg);
  } else {
    tap_ok(st == GQ_ECUDA, "without NVRTC the JIT compile fails with GQ_ECUDA (got %d)", st);
    tap_ok(strstr(msg, "cannot load NVRTC") && strstr(msg, missing) && !strchr(msg, '\n'),
           "one line naming the library: %s", msg);
    tap_ok(gq_nvrtc_load() == GQ_EUNSUP && strstr(gq_last_error(), missing), "gq_nvrtc_load: GQ_EUNSUP, %s",
           gq_last_error());
    /* The CPU backend never needs NVRTC: the quarter circle's area, pi, to
     * the trapezoid rule's error at n = 1e6 (1.2e-9: sqrt's slope at x = 1). */
    gq_context *ctx = NULL;
    gq_trapezoid_result r = {0};
    int cpu = gq_context_open(&ctx, GQ_DEVICE_CPU);
    if (cpu == GQ_SUCCESS)
      cpu = gq_integrate_trapezoid(ctx, f, 0.0, 1.0, 1000000, GQ_PRECISION_DOUBLE, &r);
    if (cpu != GQ_SUCCESS)
      diag("%s", gq_last_error());
    tap_ok(cpu == GQ_SUCCESS && fabs(r.result - 3.14159265358979324) < 1e-8,
           "the CPU backend integrates the expression without NVRTC: %.17g", r.result);
    gq_context_free(ctx);
  }
  gq_integrand_free(f);
  return tap_done();
}
