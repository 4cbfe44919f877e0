/* t_trapezoid_gpu.c — the CUDA backend against the trapezoid sum computed here
 * in double-double, against the CPU backend, and against the exact integrals.
 * Exits 77 (skipped) where there is no CUDA device. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include "exact_sum.h"
#include "tap.h"

static const gq_integrand *cur;
static double eval_cur(double x) { return gq_integrand_eval(cur, x); }

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  gq_context *gpu = gq_context_create(0), *cpu = gq_context_create(GQ_DEVICE_CPU);
  if (!tap_ok(gpu != NULL, "CUDA context: %s", gpu ? gq_context_device_name(gpu) : gq_last_error()))
    return tap_done();
  tap_ok(gq_context_backend(gpu) == GQ_BACKEND_CUDA, "backend is CUDA, %d multiprocessors",
         gq_context_threads(gpu));

  /* Sizes around the tile (256 x 8 = 2048 points) and grid boundaries. */
  const uint64_t sizes[] = {1, 2, 3, 31, 2047, 2048, 2049, 2050, 1000003, 16777219};
  for (size_t k = 0; (cur = gq_integrand_builtin_at(k)); k++) {
    double a, b;
    gq_integrand_limits(cur, &a, &b);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      const uint64_t n = sizes[s];
      gq_trapezoid_result g, c;
      const int gs = gq_integrate_trapezoid(gpu, cur, a, b, n, GQ_PRECISION_DOUBLE, &g);
      gq_integrate_trapezoid(cpu, cur, a, b, n, GQ_PRECISION_DOUBLE, &c);
      double abs_sum;
      const double t = exact_trapezoid(eval_cur, a, b, n, &abs_sum);
      /* The device's exp/sin differ from glibc's by an ulp at some points and
       * nvcc contracts a*b+c into FMAs; the sum itself is compensated. */
      const double tol = 4.0 * ulp_of(t) + 2.0 * DBL_EPSILON * abs_sum / sqrt((double)n);
      tap_ok(gs == GQ_SUCCESS && fabs(g.result - t) <= tol,
             "%s n=%llu: GPU %.17g, exact %.17g (%.2g ulp), CPU %.17g", gq_integrand_name(cur),
             (unsigned long long)n, g.result, t, fabs(g.result - t) / ulp_of(t), c.result);
      if (n >= 2)
        tap_ok(fabs(g.coarse - c.coarse) <= 4.0 * tol, "%s n=%llu: T(2h) GPU %.17g CPU %.17g",
               gq_integrand_name(cur), (unsigned long long)n, g.coarse, c.coarse);
    }
  }

  /* The headline problem and float precision, against the exact integral. */
  for (size_t k = 0; (cur = gq_integrand_builtin_at(k)); k++) {
    for (int p = 0; p < 2; p++) {
      double a, b, tol;
      gq_integrand_limits(cur, &a, &b);
      gq_trapezoid_result r;
      gq_reference ref;
      const uint64_t n = 1000000000;
      const int st = gq_integrate_trapezoid(gpu, cur, a, b, n, (gq_precision)p, &r);
      gq_integrate_reference(cur, a, b, &ref);
      const int cs = gq_trapezoid_check(&r, (gq_precision)p, &ref, &tol);
      tap_ok(st == GQ_SUCCESS && cs == GQ_SUCCESS,
             "%s %s n=1e9: %.17g vs %.17g, diff %.3g, tol %.3g, %.3f ms", gq_integrand_name(cur),
             p ? "float" : "double", r.result, ref.value, r.result - ref.value, tol, r.kernel_ms);
    }
  }

  /* Repeatable: blocks finish in any order, the compensated total does not care. */
  {
    cur = gq_integrand_builtin("circle");
    gq_trapezoid_result r1, r2;
    gq_integrate_trapezoid(gpu, cur, 0, 1, 1000000000, GQ_PRECISION_DOUBLE, &r1);
    int same = 1;
    for (int i = 0; i < 5; i++) {
      gq_integrate_trapezoid(gpu, cur, 0, 1, 1000000000, GQ_PRECISION_DOUBLE, &r2);
      same &= fabs(r1.result - r2.result) <= ulp_of(r1.result);
    }
    tap_ok(same, "six runs agree to 1 ulp (%.17g)", r1.result);
  }

#ifdef HAVE_CUDA
  /* A caller's stream: the same result, and back to the context's own. */
  {
    cudaStream_t stream;
    cur = gq_integrand_builtin("gauss");
    gq_trapezoid_result own, theirs;
    gq_integrate_trapezoid(gpu, cur, -3, 3, 10000001, GQ_PRECISION_DOUBLE, &own);
    const int made = cudaStreamCreate(&stream) == cudaSuccess;
    const int set = made && gq_context_set_stream(gpu, stream) == GQ_SUCCESS;
    gq_integrate_trapezoid(gpu, cur, -3, 3, 10000001, GQ_PRECISION_DOUBLE, &theirs);
    tap_ok(set && theirs.result == own.result, "on the caller's stream: %.17g", theirs.result);
    tap_ok(gq_context_set_stream(gpu, NULL) == GQ_SUCCESS, "back to the context's stream");
    if (made)
      cudaStreamDestroy(stream);
  }
#endif

  /* Errors on the GPU path. */
  {
    gq_trapezoid_result r;
    cur = gq_integrand_builtin("circle");
    tap_ok(gq_integrate_trapezoid(gpu, cur, 0, 2, 1000, GQ_PRECISION_DOUBLE, &r) == GQ_EDOM,
           "circle on [0,2] on the GPU: EDOM");
    gq_context *bad = NULL;
    tap_ok(gq_context_open(&bad, 999) == GQ_ENODEV && !bad, "device 999: ENODEV (%s)", gq_last_error());
  }
  gq_context_free(gpu);
  gq_context_free(cpu);
  return tap_done();
}
