// stencil_source.cuh — where the values come from when a term needs its
// neighbours: sampled data integrated by the trapezoid (the interval
// (x_i, x_i+1), two samples of each array) or Simpson's rule (the panel
// x_2k .. x_2k+2, three).  Item k is that stencil, widened to double; the
// map (kernels/samples.cu) turns it into a term.
//
// The loads overlap — a sample shared by two neighbouring stencils is read
// by both threads — but neighbouring threads take neighbouring stencils, so
// the second read of a line hits L1/L2 and DRAM sees each byte once: 8 bytes
// per sample and array for doubles, as the array source.  The loads are
// scalar (__ldg): a stencil starts at any element, so no vector alignment
// holds for all of them.  No head or tail: every item is whole.
#ifndef GQ_STENCIL_SOURCE_CUH
#define GQ_STENCIL_SOURCE_CUH

#include <cstdint>

namespace gq {

// POINTS samples per stencil, STEP elements from one stencil to the next;
// with ABSCISSAE the x of each sample too (else the spacing is uniform and
// the map needs no x).
template <class T, int POINTS, int STEP, bool ABSCISSAE>
struct StencilSource {
  static constexpr int WIDTH = 1;
  struct Item {
    double y[POINTS];
    double x[ABSCISSAE ? POINTS : 1];
  };
  using Cursor = uint64_t; // a stencil's index
  const T *y, *x;          // x unused without ABSCISSAE
  uint64_t stencils;

  __host__ __device__ uint64_t vectors() const { return stencils; } // items, as launch sizing calls them
  __device__ __forceinline__ uint64_t items() const { return stencils; }
  __device__ __forceinline__ uint64_t whole_items() const { return stencils; }
  __device__ __forceinline__ uint64_t count() const { return stencils; }
  __device__ __forceinline__ Cursor cursor(uint64_t i) const { return i; }
  __device__ __forceinline__ Cursor stride(uint64_t s) const { return s; }
  __device__ __forceinline__ int lanes(Cursor, int) const { return 1; }

  __device__ __forceinline__ Item load(Cursor c, int k) const
  {
    const uint64_t first = (c + (uint64_t)k) * STEP;
    Item it;
#pragma unroll
    for (int j = 0; j < POINTS; j++) {
      it.y[j] = (double)__ldg(y + first + j);
      if constexpr (ABSCISSAE)
        it.x[j] = (double)__ldg(x + first + j);
    }
    return it;
  }
  template <bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void feed(const Item &it, Cursor c, int k, const Map &map, Thread &th, int slot, int) const
  {
    th.template add<CLASSIFY>(map(it), c + (uint64_t)k, slot);
  }
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void head(const Map &, Thread &) const {}
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void tail(const Map &, Thread &) const {}
};

} // namespace gq
#endif
