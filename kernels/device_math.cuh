// device_math.cuh — math for the kernels where CUDA's own function costs more
// than the result needs.
#ifndef GQ_DEVICE_MATH_CUH
#define GQ_DEVICE_MATH_CUH

namespace gq {

// sqrt(v) by Newton's method on s = sqrt(v) from the hardware's approximate
// reciprocal square root r (MUFU.RSQ64H through rsqrt.approx.ftz.f64), two
// steps that reuse r:  s <- s + (v - s^2) r/2.  With r = (1+e)/sqrt(v) the
// relative error goes e -> 1.5 e^2 -> 1.5 e^3, far below 2^-53 for the
// hardware's e, so the result is faithfully rounded (tests/t_device_math
// checks it against the IEEE sqrt).  It is branch-free: CUDA's correctly
// rounded sqrt wraps every call in a slow-path branch whose reconvergence
// barrier keeps the compiler from interleaving a tile's evaluations, and it
// costs three more FP64 operations.
//   2^-960 <= v < inf: the Newton result.
//   Everything else is NaN: negatives and NaN as IEEE says, and also 0, +inf
//   and positive v < 2^-960 (subnormals, which rsqrt.approx.ftz flushes, and
//   values whose residuals v - s^2 would be subnormal and lose bits).  A
//   caller whose sum comes out NaN reruns it with CUDA's sqrt, which settles
//   whether the NaN was real: no per-point flag or special-case select, one
//   range test per call.  The price is a second pass for integrands that take
//   sqrt(0) at an interior point.
__device__ __forceinline__ double fast_sqrt(double v)
{
  double r;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(v));
  // r/2 by decrementing the exponent (r is normal on the fast range): an
  // integer operation instead of an FP64 multiply.
  const double half_r = __hiloint2double(__double2hiint(r) - (1 << 20), __double2loint(r));
  double s = v * r;
  double e = fma(-s, s, v);
  s = fma(e, half_r, s);
  e = fma(-s, s, v);
  s = fma(e, half_r, s);
  const unsigned hi = (unsigned)__double2hiint(v);
  const bool fast_range = hi - 0x03f00000u < 0x7ff00000u - 0x03f00000u;
  return fast_range ? s : __longlong_as_double(0x7ff8000000000000LL);
}

} // namespace gq
#endif
