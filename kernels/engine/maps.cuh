// maps.cuh — what each pair of loaded values becomes before it is
// accumulated.  Products use __dmul_rn so that nvcc cannot contract them into
// a later addition, which would break the error-free transformations.
#ifndef GQ_MAPS_CUH
#define GQ_MAPS_CUH

namespace gq {

struct ProductTerm {
  double p, err; // a*b = p + err exactly (TwoProd)
};
struct DifferenceTerm {
  double a, d;   // the reference value and a - b
};

struct Identity {
  __device__ __forceinline__ double operator()(double a, double) const { return a; }
};
struct ExactProduct {
  __device__ __forceinline__ ProductTerm operator()(double a, double b) const
  {
    const double p = __dmul_rn(a, b);
    return {p, fma(a, b, -p)};
  }
};
struct Difference {
  __device__ __forceinline__ DifferenceTerm operator()(double a, double b) const { return {a, a - b}; }
};

} // namespace gq
#endif
