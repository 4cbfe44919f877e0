/* t_gen.c — gq_generate's uniform and normal data (Philox4x32-10 in the
 * layout of philox.h).  CPU (no argument): the first quad of seed 0 against
 * Random123's known answer, every element of several lengths and seeds
 * against a reference computed here from philox.h, normals against Box-Muller
 * in long double, the statistics of the draws.  GPU (--gpu, exit 77 without
 * a device): device data against the CPU's, uniforms bit for bit, normals
 * within a stated bound. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/gpuquad.h"
#include "../src/lib/philox.h"
#include "tap.h"

/* Element i of the reference: word i % 4 of Philox((i/4, 0), seed). */
static unsigned word_at(uint64_t seed, size_t i)
{
  return gq_philox4x32_10((unsigned)(i / 4), (unsigned)((uint64_t)(i / 4) >> 32), 0u, 0u, (unsigned)seed,
                          (unsigned)(seed >> 32))
      .v[i % 4];
}

/* u of a word as the library draws it: (w + 1/2) 2^-32 in double; in float
 * that value rounded to float (gq_uniform_float), 1.0f for the top words. */
static long double u_of(unsigned w, int is_float)
{
  return is_float ? (long double)gq_uniform_float(w) : ((long double)w + 0.5L) * 0x1p-32L;
}

/* Box-Muller in long double for element i (its pair is i ^ 1). */
static long double normal_ref(uint64_t seed, size_t i, int is_float)
{
  const size_t j = i & ~(size_t)1;
  const long double r = sqrtl(-2.0L * logl(u_of(word_at(seed, j), is_float)));
  const long double t = 6.283185307179586476925286766559005768L * u_of(word_at(seed, j + 1), is_float);
  return r * (i & 1 ? sinl(t) : cosl(t));
}

/* The radius of element i's pair, floored at 2^-10: the bounds below are
 * relative to it (a rounded angle moves z by about r times its error). */
static double radius_ref(uint64_t seed, size_t i, int is_float)
{
  const long double r = sqrtl(-2.0L * logl(u_of(word_at(seed, i & ~(size_t)1), is_float)));
  return r > 0x1p-10L ? (double)r : 0x1p-10;
}

static void known_answer(gq_context *cpu)
{
  /* Random123's kat_vectors: philox4x32 10, counter 0, key 0 -> these words */
  const unsigned want[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  double x[5];
  float f[5];
  gq_generate(cpu, GQ_GEN_UNIFORM, 5, 0, x);
  gq_generate_f(cpu, GQ_GEN_UNIFORM, 5, 0, f);
  int ok = 1, okf = 1;
  for (int l = 0; l < 4; l++) {
    ok &= x[l] == ((double)want[l] + 0.5) * 0x1p-32;
    okf &= f[l] == (float)((double)want[l] * 0x1p-32 + 0x1p-33);
  }
  tap_ok(ok, "seed 0, elements 0..3: (w + 1/2) 2^-32 of Random123's known answer (%.17g)", x[0]);
  tap_ok(okf, "float: w 2^-32 + 2^-33 of the known answer (%.9g)", (double)f[0]);
  const unsigned w4 = gq_philox4x32_10(1, 0, 0, 0, 0, 0).v[0];
  tap_ok(x[4] == ((double)w4 + 0.5) * 0x1p-32, "element 4 comes from counter 1, word 0");
}

static void against_reference(gq_context *cpu)
{
  const size_t sizes[] = {1, 3, 4, 7, 1001, 65539};
  const uint64_t seeds[] = {1, 0x123456789abcdef0u, UINT64_MAX};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
      const size_t n = sizes[k];
      const uint64_t seed = seeds[s];
      double *x = malloc(n * sizeof *x), *z = malloc(n * sizeof *z);
      float *f = malloc(n * sizeof *f), *g = malloc(n * sizeof *g);
      gq_generate(cpu, GQ_GEN_UNIFORM, n, seed, x);
      gq_generate_f(cpu, GQ_GEN_UNIFORM, n, seed, f);
      gq_generate(cpu, GQ_GEN_NORMAL, n, seed, z);
      gq_generate_f(cpu, GQ_GEN_NORMAL, n, seed, g);
      size_t bad_u = 0, bad_f = 0, bad_z = 0, bad_g = 0, bad_mine = 0;
      double worst_z = 0, worst_g = 0;
      for (size_t i = 0; i < n; i++) {
        const unsigned w = word_at(seed, i);
        bad_u += x[i] != gq_uniform_double(w);
        bad_f += f[i] != gq_uniform_float(w);
        /* the library's normal is the one Box-Muller of philox.h ... */
        double z0, z1;
        gq_box_muller(word_at(seed, i & ~(size_t)1), word_at(seed, i | 1), &z0, &z1);
        bad_mine += z[i] != (i & 1 ? z1 : z0);
        /* ... and that is Box-Muller: within 2^-49 r of long double (the
         * angle's rounding, see gq_box_muller), 2^-20 r in float */
        const double ez = (double)fabsl((long double)z[i] - normal_ref(seed, i, 0)) / radius_ref(seed, i, 0);
        const double eg = (double)fabsl((long double)g[i] - normal_ref(seed, i, 1)) / radius_ref(seed, i, 1);
        bad_z += !(ez <= 0x1p-49);
        bad_g += !(eg <= 0x1p-20);
        worst_z = fmax(worst_z, ez);
        worst_g = fmax(worst_g, eg);
      }
      tap_ok(bad_u == 0 && bad_f == 0, "n %zu seed %llx: uniforms (double, float) equal the reference (%zu, %zu differ)",
             n, (unsigned long long)seed, bad_u, bad_f);
      tap_ok(bad_mine == 0 && bad_z == 0 && bad_g == 0,
             "n %zu seed %llx: normals are gq_box_muller's; |z - z_ref|/r %.2g (double), %.2g (float)", n,
             (unsigned long long)seed, worst_z, worst_g);
      free(x), free(z), free(f), free(g);
    }
}

static void statistics(gq_context *cpu)
{
  const size_t n = (size_t)1 << 20;
  double *x = malloc(n * sizeof *x);
  const gq_gen_kind kinds[2] = {GQ_GEN_UNIFORM, GQ_GEN_NORMAL};
  const double mean[2] = {0.5, 0.0}, var[2] = {1.0 / 12, 1.0};
  for (int k = 0; k < 2; k++) {
    gq_generate(cpu, kinds[k], n, 77, x);
    gq_stats_result s;
    gq_stats(cpu, n, x, &s);
    /* 5 standard errors of the mean and of the variance (kurtosis 9/5 and 3) */
    const double se_m = sqrt(var[k] / (double)n), se_v = var[k] * sqrt((k ? 2.0 : 0.8) / (double)n);
    tap_ok(fabs(s.mean - mean[k]) < 5 * se_m && fabs(s.var_sample - var[k]) < 5 * se_v,
           "%s: mean %.6f, variance %.6f (5 standard errors: %.2g, %.2g)", k ? "normal" : "uniform", s.mean,
           s.var_sample, 5 * se_m, 5 * se_v);
  }
  gq_generate(cpu, GQ_GEN_UNIFORM, n, 78, x);
  size_t equal = 0;
  double *y = malloc(n * sizeof *y);
  gq_generate(cpu, GQ_GEN_UNIFORM, n, 79, y);
  for (size_t i = 0; i < n; i++)
    equal += x[i] == y[i];
  tap_ok(equal < 16, "seeds 78 and 79 give other numbers (%zu of 2^20 equal)", equal);
  free(x), free(y);
}

/* GPU: device data equal the CPU's. */
static void device_equals_host(gq_context *gpu, gq_context *cpu)
{
  const size_t sizes[] = {1, 5, 1023, ((size_t)1 << 22) + 3};
  const uint64_t seeds[] = {0, 42, UINT64_MAX};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
      for (int is_float = 0; is_float < 2; is_float++) {
        const size_t n = sizes[k], es = is_float ? sizeof(float) : sizeof(double);
        const uint64_t seed = seeds[s];
        void *d = NULL, *host = malloc(n * es), *back = malloc(n * es);
        gq_alloc(gpu, n * es, &d);
        for (int normal = 0; normal < 2; normal++) {
          const gq_gen_kind kind = normal ? GQ_GEN_NORMAL : GQ_GEN_UNIFORM;
          const int st = is_float ? gq_generate_f(gpu, kind, n, seed, d) : gq_generate(gpu, kind, n, seed, d);
          memset(back, 0, n * es);
          gq_copy_from(gpu, back, d, n * es);
          if (is_float)
            gq_generate_f(cpu, kind, n, seed, host);
          else
            gq_generate(cpu, kind, n, seed, host);
          size_t differ = 0, beyond = 0;
          double worst = 0;
          for (size_t i = 0; i < n; i++) {
            const double a = is_float ? ((float *)back)[i] : ((double *)back)[i];
            const double b = is_float ? ((float *)host)[i] : ((double *)host)[i];
            differ += a != b || isnan(a);
            /* normals: the host's angle 2 pi v is rounded, the device's
             * sincospi is not (gq_box_muller): |dz| <= 2^-49 r in double,
             * 2^-20 r in float (logf's and sinf's ulps included) */
            const double e = fabs(a - b) / radius_ref(seed, i, is_float);
            worst = fmax(worst, e);
            beyond += !(e <= (is_float ? 0x1p-20 : 0x1p-49));
          }
          if (normal)
            tap_ok(st == GQ_SUCCESS && beyond == 0,
                   "%s normal n %zu seed %llx: GPU within %s r of CPU (worst %.2g r; %zu bitwise different)",
                   is_float ? "float" : "double", n, (unsigned long long)seed, is_float ? "2^-20" : "2^-49", worst,
                   differ);
          else
            tap_ok(st == GQ_SUCCESS && differ == 0, "%s uniform n %zu seed %llx: GPU equals CPU bit for bit (%zu differ)",
                   is_float ? "float" : "double", n, (unsigned long long)seed, differ);
        }
        gq_free(gpu, d);
        free(host), free(back);
      }
}

int main(int argc, char **argv)
{
  gq_context *cpu = gq_context_create(GQ_DEVICE_CPU);
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    if (gq_cuda_device_count() == 0) {
      printf("1..0 # SKIP no CUDA device\n");
      gq_context_free(cpu);
      return 77;
    }
    gq_context *gpu = gq_context_create(0);
    if (tap_ok(gpu != NULL, "CUDA context: %s", gpu ? gq_context_device_name(gpu) : gq_last_error()))
      device_equals_host(gpu, cpu);
    gq_context_free(gpu);
  } else {
    known_answer(cpu);
    against_reference(cpu);
    statistics(cpu);
  }
  gq_context_free(cpu);
  return tap_done();
}
