// integrands.cuh — the built-in integrands as device functors, expanded from
// src/lib/integrands.def (the same rows the CPU backend and GSL use).  Real is
// double or float; C++ overloads pick sqrtf, expf, ... for float.
#ifndef GQ_INTEGRANDS_CUH
#define GQ_INTEGRANDS_CUH

namespace gq {

#define R(c) static_cast<Real>(c)
#define GQ_BUILTIN(ID, name, formula, fx, lo, hi, Fx, desc)          \
  struct Integrand_##ID {                                           \
    template <class Real> __device__ __forceinline__ Real operator()(Real x) const { return fx; } \
  };
#include "../src/lib/integrands.def"
#undef GQ_BUILTIN
#undef R

// The grid map: index i -> f(x_i), x_i = fma(i, h, a) in double, f in Real.
template <class Real, class F>
struct GridMap {
  double a, h;
  F f;
  __device__ __forceinline__ double operator()(double i) const
  {
    return static_cast<double>(f(static_cast<Real>(fma(i, h, a))));
  }
};

} // namespace gq
#endif
