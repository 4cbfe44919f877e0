// sobol_source.cuh — Owen-scrambled Sobol points as the generator of
// philox_source.cuh's RandomSource: quad q gives points 4q .. 4q+3 of one
// scrambling (sobol.h: Joe-Kuo directions, Burley's hashed scrambling,
// scramble[d] the seed of dimension d), x = a + w u, u = (word + 1/2) 2^-32
// as the Philox sampler maps its words.  Point 4q from its index, the next
// three by one xor each (gq_sobol_next: 4q + 1 and 4q + 3 flip direction 0,
// 4q + 2 direction 1).  The CPU backend's gq_mc_points walks the sequence
// the same way, so both backends sample the same points.
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
    for (int d = 0; d < D; d++) {
      const unsigned int w0 = gq_sobol_word(4 * q, d), w1 = w0 ^ gq_sobol_directions[d][0];
      const unsigned int w2 = w1 ^ gq_sobol_directions[d][1], w3 = w2 ^ gq_sobol_directions[d][0];
      const unsigned int words[4] = {w0, w1, w2, w3};
#pragma unroll
      for (int l = 0; l < 4; l++)
        affine_uniform(gq_sobol_scramble(words[l], scramble[d]), a[d], w[d], &x[l][d]);
    }
  }
};

} // namespace gq
#endif
