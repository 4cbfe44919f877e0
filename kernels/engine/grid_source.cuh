// grid_source.cuh — a rule's grid as a source: the points x_i = a + i h for
// the indices i = first .. first + n - 1, one value per item (the map's g at
// x_i, g computed in Real).  The index is carried as a double (exact below
// 2^53; the tile loop advances it by exact additions), so no 64-bit integer
// is converted per point (a slow path on the GPU), and x_i = fma(i, h, a)
// is computed once, here, for the GPU (the CPU driver spells the same fma).
#ifndef GQ_GRID_SOURCE_CUH
#define GQ_GRID_SOURCE_CUH

namespace gq {

template <class Real> struct GridSource {
  static constexpr int WIDTH = 1;
  using Item = Real;
  using Cursor = double;
  double first;        // the first index
  unsigned long long n; // points
  double a, h;

  __device__ __forceinline__ unsigned long long items() const { return n; }
  __device__ __forceinline__ unsigned long long whole_items() const { return n; }
  __device__ __forceinline__ unsigned long long count() const { return n; }
  __device__ __forceinline__ Cursor cursor(unsigned long long i) const { return first + (double)i; }
  __device__ __forceinline__ Cursor stride(unsigned long long s) const { return (double)s; }
  __device__ __forceinline__ Item load(Cursor c, int k) const { return static_cast<Real>(fma(c + (double)k, h, a)); }
  __device__ __forceinline__ int lanes(Cursor, int) const { return 1; }
  template <bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void feed(const Item &x, Cursor c, int k, const Map &map, Thread &th, int slot, int) const
  {
    th.template add<CLASSIFY>(static_cast<double>(map(&x)), c + (double)k, slot);
  }
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void head(const Map &, Thread &) const {}
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void tail(const Map &, Thread &) const {}
};

} // namespace gq
#endif
