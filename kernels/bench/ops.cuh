// ops.cuh — the operators `gpuquad bench` reduces with: each gives its value
// type, identity, how an input element becomes a value (lift), and whether the
// hardware has an atomic for it.
#ifndef GQB_OPS_CUH
#define GQB_OPS_CUH

#include <cfloat>
#include <climits>
#include <type_traits>

#include "../engine/warp_reduce.cuh"

namespace gqb {

template <class T> struct limits;
template <> struct limits<int> { static constexpr int lowest = INT_MIN, highest = INT_MAX; };
template <> struct limits<long long> { static constexpr long long lowest = LLONG_MIN, highest = LLONG_MAX; };
template <> struct limits<float> { static constexpr float lowest = -FLT_MAX, highest = FLT_MAX; };
template <> struct limits<double> { static constexpr double lowest = -DBL_MAX, highest = DBL_MAX; };

// Sum, min and max of T: the value is the element itself.
template <class T> struct Elementwise {
  using value_type = T;
  static constexpr bool is_argmax = false;
  __host__ __device__ static T lift(T x, long long) { return x; }
};

template <class T> struct Sum : Elementwise<T> {
  __host__ __device__ static T identity() { return T(0); }
  __host__ __device__ T operator()(T a, T b) const
  {
    if constexpr (std::is_integral<T>::value) { // wraps modulo 2^w without signed overflow
      using U = typename std::make_unsigned<T>::type;
      return (T)((U)a + (U)b);
    } else {
      return a + b;
    }
  }
};
template <class T> struct Min : Elementwise<T> {
  __host__ __device__ static T identity() { return limits<T>::highest; }
  __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T> struct Max : Elementwise<T> {
  __host__ __device__ static T identity() { return limits<T>::lowest; }
  __host__ __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};

// The largest double and its index; among equal values the smaller index wins,
// so the result does not depend on the order of the combines.  A 16-byte
// value: no native atomic combines it.
struct IndexedValue {
  double value;
  long long index;
};
struct ArgMax {
  using value_type = IndexedValue;
  static constexpr bool is_argmax = true;
  __host__ __device__ static IndexedValue lift(double x, long long i) { return IndexedValue{x, i}; }
  __host__ __device__ static IndexedValue identity() { return IndexedValue{-DBL_MAX, LLONG_MAX}; }
  __host__ __device__ IndexedValue operator()(IndexedValue a, IndexedValue b) const
  {
    return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
  }
};
// Found by argument-dependent lookup from gq::warp_reduce_down.
__device__ __forceinline__ IndexedValue shfl_down(IndexedValue v, int d)
{
  return IndexedValue{gq::shfl_down(v.value, d), gq::shfl_down(v.index, d)};
}

// ---- native atomics: sum of every type, min and max of the integers -------
template <class Op> struct has_native_atomic : std::false_type {};
template <class T> struct has_native_atomic<Sum<T>> : std::true_type {};
template <> struct has_native_atomic<Min<int>> : std::true_type {};
template <> struct has_native_atomic<Min<long long>> : std::true_type {};
template <> struct has_native_atomic<Max<int>> : std::true_type {};
template <> struct has_native_atomic<Max<long long>> : std::true_type {};

__device__ __forceinline__ void atomic_combine(int *p, int v, Sum<int>) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_combine(long long *p, long long v, Sum<long long>)
{
  atomicAdd(reinterpret_cast<unsigned long long *>(p), (unsigned long long)v); // two's complement
}
__device__ __forceinline__ void atomic_combine(float *p, float v, Sum<float>) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_combine(double *p, double v, Sum<double>) { atomicAdd(p, v); }
template <class T> __device__ __forceinline__ void atomic_combine(T *p, T v, Min<T>) { atomicMin(p, v); }
template <class T> __device__ __forceinline__ void atomic_combine(T *p, T v, Max<T>) { atomicMax(p, v); }

// ---- loads and stores through L2 (not the incoherent L1), for values other
// blocks write during the same kernel -----------------------------------------
template <class T> __device__ __forceinline__ T load_cg(const T *p) { return __ldcg(p); }
template <class T> __device__ __forceinline__ void store_cg(T *p, T v) { __stcg(p, v); }
template <> __device__ __forceinline__ IndexedValue load_cg(const IndexedValue *p)
{
  return IndexedValue{__ldcg(&p->value), __ldcg(&p->index)};
}
template <> __device__ __forceinline__ void store_cg(IndexedValue *p, IndexedValue v)
{
  __stcg(&p->value, v.value);
  __stcg(&p->index, v.index);
}

} // namespace gqb
#endif
