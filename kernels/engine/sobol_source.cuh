// sobol_source.cuh — Owen-scrambled Sobol points as the generator of
// philox_source.cuh's RandomSource: quad q gives points 4q .. 4q+3 of one
// scrambling (sobol.h: Joe-Kuo directions, Burley's hashed scrambling,
// scramble[d] the seed of dimension d), x = a + w u, u = (word + 1/2) 2^-32
// as the Philox sampler maps its words.  The CPU backend's gq_mc_points
// computes the same words, so both backends sample the same points.
#ifndef GQ_SOBOL_SOURCE_CUH
#define GQ_SOBOL_SOURCE_CUH

#include "philox_source.cuh"
#include "../../src/lib/sobol.h"

namespace gq {

template <int D, class Real> struct SobolUniform {
  unsigned int scramble[D];
  double a[D], w[D];
  __device__ __forceinline__ void quad(unsigned long long q, Real x[4][D]) const
  {
#pragma unroll
    for (int d = 0; d < D; d++)
#pragma unroll
      for (int l = 0; l < 4; l++)
        affine_uniform(gq_sobol_scramble(gq_sobol_word(4 * q + l, d), scramble[d]), a[d], w[d], &x[l][d]);
  }
};

} // namespace gq
#endif
