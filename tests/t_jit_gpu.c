/* t_jit_gpu.c — expression integrands on the GPU (NVRTC): results against
 * the CPU backend, the JIT circle against the built-in, the kernel cache
 * (miss, loaded, hit, off, corrupt entry), the exact rerun when fast_sqrt
 * meets 0, and the report of points where f is not finite.  Exits 77 without
 * a GPU. */
#include "config.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/gpuquad.h"
#include "exact_sum.h"
#include "tap.h"

static int cache_files(const char *dir, char *first, size_t size)
{
  DIR *d = opendir(dir);
  int n = 0;
  if (!d)
    return 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strstr(e->d_name, ".cubin") && !strstr(e->d_name, ".cubin.")) {
      if (n++ == 0 && first)
        snprintf(first, size, "%s/%s", dir, e->d_name);
    }
  closedir(d);
  return n;
}

int main(void)
{
  if (gq_cuda_device_count() == 0) {
    printf("1..0 # SKIP no CUDA device\n");
    return 77;
  }
  char dir[] = "/tmp/gpuquad-jit-XXXXXX";
  if (!mkdtemp(dir))
    return 99;
  setenv("GPUQUAD_CACHE_DIR", dir, 1);
  gq_context *gpu = gq_context_create(0), *cpu = gq_context_create(GQ_DEVICE_CPU);

  /* GPU against CPU, double and float */
  const struct { const char *text; double a, b; } cases[] = {
    {"exp(-x*x)*cos(3*x)", -2, 2}, {"4*sqrt(1-x^2)", 0, 1}, {"1/(1+25*x^2)", -1, 1},
    {"if(x < 0.3, sin(7*x), x^3 - x)", 0, 1}, {"log1p(x)*tgamma(x+1)", 0, 2}, {"x^7 - 2*x", -1, 1.5},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gq_integrand *f = NULL;
    gq_integrand_parse(cases[i].text, NULL, 0, 1, &f, NULL);
    for (int p = 0; p < 2; p++) {
      gq_trapezoid_result g, c;
      const uint64_t n = 1000003;
      const int gs = gq_integrate_trapezoid(gpu, f, cases[i].a, cases[i].b, n, (gq_precision)p, &g);
      gq_integrate_trapezoid(cpu, f, cases[i].a, cases[i].b, n, (gq_precision)p, &c);
      /* per-point evaluation differs by an ulp or so (device libm, FMA
       * contraction); float evaluation by a float ulp */
      const double tol = (p ? 1e-6 : 1e-13) * (fabs(c.result) + 1e-3);
      tap_ok(gs == GQ_SUCCESS && fabs(g.result - c.result) <= tol, "%s %s: GPU %.17g CPU %.17g (jit %d, %.1f ms)",
             cases[i].text, p ? "float" : "double", g.result, c.result, g.jit, g.compile_ms);
    }
    gq_integrand_free(f);
  }

  /* The JIT circle is the built-in circle. */
  {
    gq_integrand *f = NULL;
    gq_integrand_parse("4*sqrt(1-x^2)", NULL, 0, 1, &f, NULL);
    gq_trapezoid_result j, b;
    gq_integrate_trapezoid(gpu, f, 0, 1, 1000000000, GQ_PRECISION_DOUBLE, &j);
    gq_integrate_trapezoid(gpu, gq_integrand_builtin("circle"), 0, 1, 1000000000, GQ_PRECISION_DOUBLE, &b);
    tap_ok(fabs(j.result - b.result) <= ulp_of(b.result), "JIT circle %.17g = built-in %.17g (%.3f vs %.3f ms)",
           j.result, b.result, j.kernel_ms, b.kernel_ms);
    gq_integrand_free(f);
  }

  /* The cache, in a folder of its own: miss, loaded, hit, off, corrupt. */
  {
    char sub[64];
    snprintf(sub, sizeof sub, "%s/own", dir);
    setenv("GPUQUAD_CACHE_DIR", sub, 1);
    gq_integrand *f = NULL;
    gq_integrand_parse("sin(k*x)/(1+x)", (const char *const[]){"k=17"}, 1, 1, &f, NULL);
    gq_context *c1 = gq_context_create(0);
    gq_trapezoid_result r1, r2, r3, r4, r5;
    gq_integrate_trapezoid(c1, f, 0, 3, 100000, 0, &r1);
    tap_ok(r1.jit == GQ_JIT_MISS && r1.compile_ms > 0, "first use compiles (%.1f ms)", r1.compile_ms);
    tap_ok(cache_files(sub, NULL, 0) == 1, "and stores one cubin in %s", sub);
    gq_integrate_trapezoid(c1, f, 0, 3, 100000, 0, &r2);
    tap_ok(r2.jit == GQ_JIT_LOADED && r2.result == r1.result, "second use in the context reuses the module");
    gq_context_free(c1);
    gq_context *c2 = gq_context_create(0);
    gq_integrate_trapezoid(c2, f, 0, 3, 100000, 0, &r3);
    tap_ok(r3.jit == GQ_JIT_HIT && r3.result == r1.result, "a new context loads from the cache (%.1f ms vs %.1f)",
           r3.compile_ms, r1.compile_ms);
    gq_context_free(c2);
    gq_context *c3 = gq_context_create(0);
    gq_context_set_jit_cache(c3, 0);
    gq_integrate_trapezoid(c3, f, 0, 3, 100000, 0, &r4);
    tap_ok(r4.jit == GQ_JIT_OFF && r4.result == r1.result, "--no-cache compiles again");
    gq_context_free(c3);
    /* corrupt the entry: rejected, never a crash or a wrong kernel */
    char path[4200];
    const int nfiles = cache_files(sub, path, sizeof path);
    FILE *fp = fopen(path, "r+b");
    if (fp) {
      fseek(fp, 40, SEEK_SET);
      fputs("garbage garbage garbage", fp);
      fclose(fp);
    }
    gq_context *c4 = gq_context_create(0);
    const int st = gq_integrate_trapezoid(c4, f, 0, 3, 100000, 0, &r5);
    tap_ok(nfiles == 1 && st == GQ_SUCCESS && r5.result == r1.result && r5.jit == GQ_JIT_REJECTED,
           "a corrupt cache entry is rejected, compiled again (jit %d)", r5.jit);
    gq_context_free(c4);
    gq_integrand_free(f);
  }

  /* fast_sqrt(0) at an interior point: the exact rerun gives the right sum. */
  {
    gq_integrand *f = NULL;
    gq_integrand_parse("sqrt(abs(x - 0.5))", NULL, 0, 1, &f, NULL);
    gq_trapezoid_result g, c;
    const int gs = gq_integrate_trapezoid(gpu, f, 0, 1, 1000, 0, &g);
    gq_integrate_trapezoid(cpu, f, 0, 1, 1000, 0, &c);
    tap_ok(gs == GQ_SUCCESS && fabs(g.result - c.result) <= 4 * ulp_of(c.result),
           "sqrt(0) at x = 0.5: GPU %.17g CPU %.17g", g.result, c.result);
    gq_integrand_free(f);
  }

  /* Where f is not finite. */
  {
    gq_integrand *f = NULL;
    gq_integrand_parse("1/(x - 0.5)", NULL, 0, 1, &f, NULL);
    gq_trapezoid_result r;
    const int st = gq_integrate_trapezoid(gpu, f, 0, 1, 1000, 0, &r);
    tap_ok(st == GQ_EDOM && r.nonfinite_count == 1 && r.nonfinite_x == 0.5, "1/(x-0.5): 1 point, x = %g (%s)",
           r.nonfinite_x, gq_last_error());
    gq_integrand_free(f);
    gq_integrand_parse("log(abs(x - 0.5) - 0.25)", NULL, 0, 1, &f, NULL);
    const int st2 = gq_integrate_trapezoid(gpu, f, 0, 1, 1000, 0, &r);
    tap_ok(st2 == GQ_EDOM && r.nonfinite_count == 501 && r.nonfinite_x == 0.25,
           "log(|x-0.5|-0.25): %llu points, first x = %.17g (%s)", (unsigned long long)r.nonfinite_count,
           r.nonfinite_x, gq_last_error());
    gq_integrand_free(f);
  }
  gq_context_free(gpu);
  gq_context_free(cpu);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    return 99;
  return tap_done();
}
