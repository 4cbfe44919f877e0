// philox_source.cuh — sources of random points for the Monte Carlo reduction.
// Each gives the D coordinates of the four samples of a Philox quad (samples
// 4q .. 4q+3), in registers: x[l][d] = coordinate d of sample 4q + l.
//
// PhiloxUniform and PhiloxNormal generate in the kernel (the fused method):
// one Philox4x32-10 call per coordinate and quad, counter (q, d), key seed
// (the layout of philox.h), so a sample's numbers do not depend on which
// thread draws them.  BufferSource reads numbers that cuRAND's host API wrote
// to device memory (the host-api method): the same reduction, another source.
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

// Coordinate d of sample j of the chunk is buf[d * stride + j] (cuRAND fills
// the buffer in one call, coordinate-major, so each thread's four samples are
// one 16- or 32-byte load per coordinate and a warp's loads are contiguous).
// Uniform numbers are mapped to the box here; normal ones pass with a = 0,
// w = 1, which is exact.
template <int D, class Real> struct BufferSource {
  const Real *buf;
  unsigned long long stride;
  double a[D], w[D];
  __device__ __forceinline__ void quad(unsigned long long q, Real x[4][D]) const
  {
#pragma unroll
    for (int d = 0; d < D; d++) {
      const Real *p = buf + d * stride + 4 * q;
      Real v[4];
      if (sizeof(Real) == 8) {
        const double2 lo = __ldg(reinterpret_cast<const double2 *>(p));
        const double2 hi = __ldg(reinterpret_cast<const double2 *>(p) + 1);
        v[0] = (Real)lo.x; v[1] = (Real)lo.y; v[2] = (Real)hi.x; v[3] = (Real)hi.y;
      } else {
        const float4 f = __ldg(reinterpret_cast<const float4 *>(p));
        v[0] = (Real)f.x; v[1] = (Real)f.y; v[2] = (Real)f.z; v[3] = (Real)f.w;
      }
#pragma unroll
      for (int l = 0; l < 4; l++)
        x[l][d] = (Real)fma((double)v[l], w[d], a[d]);
    }
  }
};

} // namespace gq
#endif
