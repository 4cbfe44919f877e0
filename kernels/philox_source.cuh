// philox_source.cuh — sources of random points for the Monte Carlo reduction.
// Each gives the D coordinates of the four samples of a Philox quad (samples
// 4q .. 4q+3), in registers: x[l][d] = coordinate d of sample 4q + l.
//
// PhiloxUniform and PhiloxNormal generate in the kernel: one Philox4x32-10
// call per coordinate and quad, counter (q, d), key seed (the layout of
// philox.h), so a sample's numbers do not depend on which thread draws them.
#ifndef GQ_PHILOX_SOURCE_CUH
#define GQ_PHILOX_SOURCE_CUH

#include "../src/lib/philox.h"

namespace gq {

// x = a + w u, with u from one Philox word: (0, 1) in double, (0, 1] in float
// (cuRAND's curand_uniform).
__device__ __forceinline__ void affine_uniform(unsigned int word, double a, double w, double *x)
{
  *x = fma(gq_uniform_double(word), w, a);
}
__device__ __forceinline__ void affine_uniform(unsigned int word, double a, double w, float *x)
{
  *x = fmaf(gq_uniform_float(word), (float)w, (float)a);
}

template <int D, class Real> struct PhiloxUniform {
  unsigned long long seed;
  double a[D], w[D];
  __device__ __forceinline__ void quad(unsigned long long q, Real x[4][D]) const
  {
#pragma unroll
    for (int d = 0; d < D; d++) {
      const gq_philox4 r = gq_philox_quad(q, (unsigned)d, seed);
#pragma unroll
      for (int l = 0; l < 4; l++)
        affine_uniform(r.v[l], a[d], w[d], &x[l][d]);
    }
  }
};

// Box-Muller (philox.h) on word pairs (w0, w1) -> samples 0, 1 and (w2, w3)
// -> 2, 3, as curand_normal4 pairs its words.
__device__ __forceinline__ void box_muller(unsigned int wu, unsigned int wv, double *z0, double *z1)
{
  gq_box_muller(wu, wv, z0, z1);
}
__device__ __forceinline__ void box_muller(unsigned int wu, unsigned int wv, float *z0, float *z1)
{
  gq_box_muller_float(wu, wv, z0, z1);
}

template <int D, class Real> struct PhiloxNormal {
  unsigned long long seed;
  double a[D], w[D]; // unused: the layout of every source's parameters is the same
  __device__ __forceinline__ void quad(unsigned long long q, Real x[4][D]) const
  {
#pragma unroll
    for (int d = 0; d < D; d++) {
      const gq_philox4 r = gq_philox_quad(q, (unsigned)d, seed);
      box_muller(r.v[0], r.v[1], &x[0][d], &x[1][d]);
      box_muller(r.v[2], r.v[3], &x[2][d], &x[3][d]);
    }
  }
};

} // namespace gq
#endif
