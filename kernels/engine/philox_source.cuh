// philox_source.cuh — a counter-based random stream as a source: the
// Monte Carlo samples.  A generator gives the D coordinates of the four
// samples of a Philox quad (samples 4q .. 4q+3), in registers: x[l][d] =
// coordinate d of sample 4q + l; one Philox4x32-10 call per coordinate and
// quad, counter (q, d), key seed (the layout of philox.h), so a sample's
// numbers do not depend on which thread draws them.  RandomSource walks the
// quads of a range of the stream, one quad per item.
#ifndef GQ_PHILOX_SOURCE_CUH
#define GQ_PHILOX_SOURCE_CUH

#include "../../src/lib/philox.h"

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

// Quads first .. first + quads - 1 of the stream (gen's), samples before
// sample_end only (counted like the quads: sample 4q + l); the moments are
// taken about shift (mc_moments.h), which the accumulator learns here.
template <class Gen, int D, class Real> struct RandomSource {
  static constexpr int WIDTH = 4;
  struct Item {
    Real x[4][D];
  };
  using Cursor = unsigned long long;
  Gen gen;
  unsigned long long first, quads, sample_end;
  double shift;

  __device__ __forceinline__ unsigned long long items() const { return quads; }
  __device__ __forceinline__ unsigned long long whole_items() const // quads all of whose samples count
  {
    const unsigned long long whole = (sample_end - 4 * first) / 4;
    return whole < quads ? whole : quads;
  }
  __device__ __forceinline__ unsigned long long count() const { return sample_end - 4 * first; }
  __device__ __forceinline__ Cursor cursor(unsigned long long i) const { return first + i; }
  __device__ __forceinline__ Cursor stride(unsigned long long s) const { return s; }
  __device__ __forceinline__ Item load(Cursor c, int k) const
  {
    Item it;
    gen.quad(c + (unsigned)k, it.x);
    return it;
  }
  __device__ __forceinline__ int lanes(Cursor c, int k) const
  {
    const unsigned long long left = sample_end - 4 * (c + (unsigned)k);
    return left < 4 ? (int)left : 4;
  }
  template <bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void feed(const Item &it, Cursor c, int k, const Map &map, Thread &th, int slot,
                                       int lanes) const
  {
#pragma unroll
    for (int l = 0; l < 4; l++)
      if (l < lanes)
        th.template add<CLASSIFY>(static_cast<double>(map(it.x[l])), 4 * (c + (unsigned)k) + l, slot + l);
  }
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void head(const Map &, Thread &) const {}
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void tail(const Map &, Thread &) const {}
};

} // namespace gq
#endif
