// integrands.cuh — the built-in integrands as device functors, expanded from
// src/lib/integrands.def (the same rows the CPU backend and GSL use).  Real is
// double or float; C++ overloads pick sqrtf, expf, ... for float.
//
// Two sets: gq::fast, where sqrt(double) is gq::fast_sqrt (faithful, branch-
// free), and gq::exact with CUDA's correctly rounded functions, used to redo
// a sum that came out NaN (fast_sqrt returns NaN outside its range).
#ifndef GQ_INTEGRANDS_CUH
#define GQ_INTEGRANDS_CUH

#include "device_math.cuh"

namespace gq {

#define R(c) static_cast<Real>(c)
#define GQ_BUILTIN(ID, name, formula, scale, fx, lo, hi, Fx, desc)   \
  struct Integrand_##ID {                                           \
    template <class Real> __device__ __forceinline__ Real operator()(Real x) const { return fx; } \
  };

namespace fast {
// Unqualified sqrt in the rows below finds these before ::sqrt.
__device__ __forceinline__ double sqrt(double v) { return fast_sqrt(v); }
__device__ __forceinline__ float sqrt(float v) { return ::sqrtf(v); }
#include "../src/lib/integrands.def"
} // namespace fast

namespace exact {
#include "../src/lib/integrands.def"
} // namespace exact

#undef GQ_BUILTIN
#undef R

// A built-in integrand as the map of a point source: g(x[0]), g computed in
// the point's Real, the value widened to double.
template <class F> struct PointMap {
  template <class Real> __device__ __forceinline__ double operator()(const Real *x) const
  {
    return static_cast<double>(F()(x[0]));
  }
};

} // namespace gq
#endif
