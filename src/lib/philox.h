/* philox.h — Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
 * numbers: as easy as 1, 2, 3", SC'11), shared by the CPU backend (C11) and
 * the CUDA kernels (nvcc and NVRTC, which embeds this file).
 *
 * A counter-based generator: the output is a pure function of a 128-bit
 * counter and a 64-bit key, ten rounds of two 32x32->64 multiplies, xors and
 * a Weyl increment of the key.  Round and key schedule are those of
 * Random123 and of cuRAND's curand_Philox4x32_10, so for the same counter
 * and key both produce the same four words (tests/t_mc_gpu.c compares with
 * cuRAND's device API bit for bit; tests/t_mc_cpu.c checks Random123's
 * known-answer vectors).
 *
 * Only unsigned int (32 bits) and unsigned long long (64 bits) are used, so
 * NVRTC needs no <stdint.h>.  The 64-bit product of two zero-extended 32-bit
 * words compiles to one IMAD.WIDE.U32 on the GPU and one MUL on x86-64.
 */
#ifndef GQ_PHILOX_H
#define GQ_PHILOX_H

#if !defined(__CUDACC_RTC__)
#include <math.h>
#include <string.h>
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GQ_PHILOX_HD __host__ __device__ __forceinline__
#else
#define GQ_PHILOX_HD static inline
#endif

#define GQ_PHILOX_M0 0xD2511F53u
#define GQ_PHILOX_M1 0xCD9E8D57u
#define GQ_PHILOX_W0 0x9E3779B9u
#define GQ_PHILOX_W1 0xBB67AE85u

typedef struct gq_philox4 {
  unsigned int v[4];
} gq_philox4;

/* Counter (c0, c1, c2, c3), key (k0, k1) -> four 32-bit words. */
GQ_PHILOX_HD gq_philox4 gq_philox4x32_10(unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
                                          unsigned int k0, unsigned int k1)
{
  for (int round = 0; round < 10; round++) {
    const unsigned long long p0 = (unsigned long long)GQ_PHILOX_M0 * c0;
    const unsigned long long p1 = (unsigned long long)GQ_PHILOX_M1 * c2;
    const unsigned int hi0 = (unsigned int)(p0 >> 32), lo0 = (unsigned int)p0;
    const unsigned int hi1 = (unsigned int)(p1 >> 32), lo1 = (unsigned int)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += GQ_PHILOX_W0;
    k1 += GQ_PHILOX_W1;
  }
  gq_philox4 r = {{c0, c1, c2, c3}};
  return r;
}

/* The layout every gpuquad Monte Carlo backend uses.  Sample i, coordinate d
 * (0 <= d < 16) takes word i % 4 of
 *     Philox(counter = (lo32(i/4), hi32(i/4), d, 0), key = (lo32(seed), hi32(seed)))
 * i.e. four consecutive samples share one Philox call per coordinate.  In
 * cuRAND's terms that is curand_init(seed, subsequence = d, offset = 4*(i/4))
 * followed by curand4(): one subsequence per coordinate, the offset set by
 * the sample index.  Nothing depends on which thread or block computes a
 * sample, so a result depends on (seed, n) only, not on the grid, the device
 * or the number of CPU threads (up to the order of the final sums). */
GQ_PHILOX_HD gq_philox4 gq_philox_quad(unsigned long long quad, unsigned int d, unsigned long long seed)
{
  return gq_philox4x32_10((unsigned int)quad, (unsigned int)(quad >> 32), d, 0u, (unsigned int)seed,
                          (unsigned int)(seed >> 32));
}

/* A word as a uniform double in (0, 1): (w + 1/2) 2^-32, exact.  Built from
 * bits rather than converted: 1 + w 2^-32 is the double with exponent 0 and
 * w in the top 32 of its 52 mantissa bits, and subtracting 1 - 2^-33 from it
 * is exact (Sterbenz).  On the GPU this replaces a 32-bit-to-double
 * conversion, which runs at a quarter of the FP64 rate on the pipe that
 * fast_sqrt's MUFU.RSQ64H also needs, by three integer operations. */
GQ_PHILOX_HD double gq_uniform_double(unsigned int w)
{
#if defined(__CUDA_ARCH__)
  const double one_plus = __hiloint2double((int)(0x3FF00000u | (w >> 12)), (int)(w << 20));
#else
  const unsigned long long bits = ((unsigned long long)(0x3FF00000u | (w >> 12)) << 32) | (unsigned int)(w << 20);
  double one_plus;
  memcpy(&one_plus, &bits, sizeof one_plus);
#endif
  return one_plus - 0.99999999988358467817306518554688; /* 1 - 2^-33 */
}

/* As a float in (0, 1]: cuRAND's curand_uniform formula (w 2^-32 + 2^-33 in float). */
GQ_PHILOX_HD float gq_uniform_float(unsigned int w)
{
  return (float)w * 2.3283064365386963e-10f + 1.1641532182693481e-10f;
}

/* Box-Muller: two words -> two standard normals, radius sqrt(-2 log u(wu)),
 * angle 2 pi u(wv), z0 = r cos, z1 = r sin; curand_normal4 pairs its words
 * the same way.  The one definition for the GPU sources and the CPU backend.
 * On the device the angle goes through sincospi(2 u), which reduces the
 * argument exactly; C11 has no sincospi, so the host takes sin and cos of the
 * rounded product theta = 2 pi u.  theta is off by at most 1.5 2^-50 (the
 * rounded constant and product, theta < 8), so a host normal may differ from
 * the device's by below 2^-49 r in absolute terms: a few ulps of z, more ulps
 * only for z much smaller than r; log and sqrt differ by at most one ulp
 * (CUDA's log is within 1 ulp, sqrt is correctly rounded on both).  In float
 * the same holds with 2^-20 r. */
GQ_PHILOX_HD void gq_box_muller(unsigned int wu, unsigned int wv, double *z0, double *z1)
{
  const double rad = sqrt(-2.0 * log(gq_uniform_double(wu)));
  double s, c;
#if defined(__CUDA_ARCH__)
  sincospi(2.0 * gq_uniform_double(wv), &s, &c);
#else
  const double theta = 6.283185307179586476925286766559 * gq_uniform_double(wv);
  s = sin(theta);
  c = cos(theta);
#endif
  *z0 = rad * c;
  *z1 = rad * s;
}

/* The float version, from gq_uniform_float (so u = 1 gives r = 0). */
GQ_PHILOX_HD void gq_box_muller_float(unsigned int wu, unsigned int wv, float *z0, float *z1)
{
  const float rad = sqrtf(-2.0f * logf(gq_uniform_float(wu)));
  float s, c;
#if defined(__CUDA_ARCH__)
  sincospif(2.0f * gq_uniform_float(wv), &s, &c);
#else
  const float theta = 6.28318530717958647692f * gq_uniform_float(wv);
  s = sinf(theta);
  c = cosf(theta);
#endif
  *z0 = rad * c;
  *z1 = rad * s;
}

/* The four values of one Philox call as --gen draws them (gq_generate, on
 * both backends): uniforms, or normals from the pairs (w0, w1), (w2, w3). */
GQ_PHILOX_HD void gq_philox_values(gq_philox4 r, int normal, double v[4])
{
  if (normal) {
    gq_box_muller(r.v[0], r.v[1], &v[0], &v[1]);
    gq_box_muller(r.v[2], r.v[3], &v[2], &v[3]);
  } else {
    for (int l = 0; l < 4; l++)
      v[l] = gq_uniform_double(r.v[l]);
  }
}

GQ_PHILOX_HD void gq_philox_values_float(gq_philox4 r, int normal, float v[4])
{
  if (normal) {
    gq_box_muller_float(r.v[0], r.v[1], &v[0], &v[1]);
    gq_box_muller_float(r.v[2], r.v[3], &v[2], &v[3]);
  } else {
    for (int l = 0; l < 4; l++)
      v[l] = gq_uniform_float(r.v[l]);
  }
}

#endif /* GQ_PHILOX_H */
