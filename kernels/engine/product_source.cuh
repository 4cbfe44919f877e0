// product_source.cuh — a product grid in D dimensions as a source: the
// tensor product of one rule along every axis (Newton-Cotes points, or
// Gauss-Legendre panels of K nodes), each point carrying two weights, the
// rule's and the lower-order rule's on the same points (the error estimate
// costs no evaluation of f).
//
// Axis d holds m_d points.  A Newton-Cotes axis is one digit k in [0, K)
// (K = m_d, P = 1): its point and weights are table entries.  A
// Gauss-Legendre axis (bit d of PANELS) is two digits, node k in [0, K) and
// panel p in [0, P): x = node[k] + p H, and the weights are node k's, so
// its table holds K <= 64 entries whatever the number of panels.  The
// flat index runs over the digits k_1, (p_1,) k_2, (p_2,) ... fastest
// first, so the lanes of a warp walk axis 1 and share the other axes'
// entries (one broadcast load each).
//
// Items are points; the cursor is the point's digits in 32-bit integers,
// advanced by additions with carries (the integer pipe, beside the FP64
// work of f): the carry of a digit is at most one because every step's
// digit is below its radix.  The agent loads the items c, c + BLOCK, ...,
// c + (ITEMS-1) BLOCK of a tile; load(c, j BLOCK) adds the digits of
// BLOCK j times, a chain the compiler shares across the unrolled items.
// The flat index is carried beside the digits as a double (exact below
// 2^53) for the count of non-finite values, and vanishes from the sums.
//
// A table holds K entries of 4 doubles per axis: the rule's weight, the
// lower rule's, the point (node[k]: the point itself on a Newton-Cotes
// axis, the node in panel 0 on a Gauss-Legendre one) and a zero, so an
// entry is two loads (16 + 8 bytes) from one address.  Weights come without
// the axis' scale factor, which the host applies to the sums: the
// Newton-Cotes weights are then small integers and halves, and their
// products exact.
#ifndef GQ_PRODUCT_SOURCE_CUH
#define GQ_PRODUCT_SOURCE_CUH

#include "../../src/lib/compensated.h"
#include "tile_accumulators.cuh"

namespace gq {

template <int SLOTS> struct PairExact; // exact_tile.cuh, where a module includes it

constexpr int PRODUCT_MAX_DIM = 6;

template <unsigned MASK> struct BitCount {
  static constexpr int value = (int)(MASK & 1u) + BitCount<(MASK >> 1)>::value;
};
template <> struct BitCount<0u> {
  static constexpr int value = 0;
};

template <int G> struct Digits {
  unsigned d[G];
  double flat;
};

// RUN points of the product grid that differ only along axis 1 (RUN = 1: one
// point): axis 1's coordinate and both full weights per point, the other
// axes' coordinates once, and the first point's flat index.
template <class Real, int D, int RUN> struct ProductRun {
  Real x0[RUN];
  Real x[D]; // x[0] unused
  double wh[RUN], wl[RUN];
  double index;
};

// The axis tables in shared memory (SHARED sources): copied by the block
// before the tile loop, read there by every point.  With tables in global
// memory every point's 2 D loads queue at L1 (H200, 501^3 points in 3-D:
// 40% of the stalls waited for the load queue).
extern __shared__ __align__(16) double product_tables[];

// RUN > 1: an item is RUN points of axis 1 a warp apart — item i of a warp
// group of 32 takes points 32 RUN (i / 32) + i % 32 + 32 j, j < RUN — in a
// table the host pads to a multiple of 32 RUN (padding: weight 0, the last
// point again), so the points of an item share every other axis: those
// axes' entries and weight products are read and formed once per item, and
// the lanes of a warp read axis 1's entries side by side (H200, 501^3
// trapezoid: 2 D loads per point and 96 registers left the integer and load
// work, not FP64, in charge; runs of consecutive points put every lane of a
// warp in one shared-memory bank and ran 2.5x slower).  Axis 1 is then a
// plain table (no panels: the host expands them).
template <class Real, int D, unsigned PANELS, int BLOCK, bool SHARED, int RUN = 1> struct ProductSource {
  static_assert(RUN == 1 || !(PANELS & 1u), "runs walk a table along axis 1");
  static constexpr int WIDTH = RUN;
  static constexpr int G = D + BitCount<PANELS>::value; // digits
  using Item = ProductRun<Real, D, RUN>;
  using Cursor = Digits<G>;

  unsigned long long n;       // points in all (a multiple of RUN)
  unsigned radix[G];          // digits' radices, fastest first
  unsigned block[G];          // the digits of BLOCK * RUN points
  const double *table[D];     // per axis: K entries {rule weight, lower weight, point, 0}
  unsigned shared_at[D];      // SHARED: axis d's table at product_tables + shared_at[d]
  unsigned shared_doubles;    // SHARED: the doubles of all tables
  double H[D];                // Gauss-Legendre: panel width; 0 elsewhere

  __device__ __forceinline__ unsigned long long items() const { return n / RUN; }
  __device__ __forceinline__ unsigned long long whole_items() const { return n / RUN; }
  __device__ __forceinline__ unsigned long long count() const { return n; }

  // The digits of i (once per thread: divisions are fine here).
  __device__ __forceinline__ Cursor digits(unsigned long long i) const
  {
    Cursor c;
    c.flat = (double)i;
#pragma unroll
    for (int g = 0; g < G; g++) {
      c.d[g] = (unsigned)(i % radix[g]);
      i /= radix[g];
    }
    return c;
  }
  // item i's first point: its warp group's first point plus its lane
  __device__ __forceinline__ Cursor cursor(unsigned long long i) const
  {
    return digits(RUN == 1 ? i : (i / 32) * (32 * RUN) + i % 32);
  }
  __device__ __forceinline__ Cursor stride(unsigned long long s) const { return digits(s * RUN); }

  // a + b digit by digit, each b digit below its radix: one carry at most.
  // Past the last point the top digit may exceed its radix: such cursors
  // are never loaded (the agent masks them).
  __device__ __forceinline__ Cursor add(const Cursor &a, const unsigned *b, double b_flat) const
  {
    Cursor r;
    unsigned carry = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
      const unsigned v = a.d[g] + b[g] + carry;
      carry = v >= radix[g];
      r.d[g] = carry ? v - radix[g] : v;
    }
    r.flat = a.flat + b_flat;
    return r;
  }

  // An axis' entry k: both weights and the point.
  __device__ __forceinline__ void entry(int d, unsigned k, double2 *w, double *x) const
  {
    const double *e = (SHARED ? product_tables + shared_at[d] : table[d]) + 4 * k;
    if (SHARED) {
      *w = *reinterpret_cast<const double2 *>(e);
      *x = e[2];
    } else {
      *w = __ldg(reinterpret_cast<const double2 *>(e));
      *x = __ldg(e + 2);
    }
  }

  __device__ __forceinline__ Item load(Cursor c, int offset) const
  {
#pragma unroll
    for (int j = 0; j < offset / BLOCK; j++)
      c = add(c, block, (double)BLOCK * RUN);
    Item it;
    it.index = c.flat;
    const unsigned k0 = c.d[0];
    const double p0 = (PANELS & 1u) ? (double)c.d[1] : 0.0;
    int g = (PANELS & 1u) ? 2 : 1;
    double wh = 1.0, wl = 1.0; // the other axes' weight products
#pragma unroll
    for (int d = 1; d < D; d++) {
      double2 w;
      double x;
      entry(d, c.d[g++], &w, &x);
      if (PANELS & (1u << d))
        x = fma((double)c.d[g++], H[d], x);
      it.x[d] = static_cast<Real>(x);
      wh *= w.x;
      wl *= w.y;
    }
#pragma unroll
    for (int j = 0; j < RUN; j++) {
      double2 w;
      double x;
      entry(0, k0 + 32 * j * (RUN > 1), &w, &x);
      if (PANELS & 1u)
        x = fma(p0, H[0], x);
      it.x0[j] = static_cast<Real>(x);
      it.wh[j] = w.x * wh;
      it.wl[j] = w.y * wl;
    }
    return it;
  }
  __device__ __forceinline__ int lanes(const Cursor &, int) const { return RUN; }

  template <bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void feed(const Item &it, const Cursor &, int, const Map &map, Thread &th, int slot,
                                       int) const
  {
    Real x[D];
#pragma unroll
    for (int d = 1; d < D; d++)
      x[d] = it.x[d];
#pragma unroll
    for (int j = 0; j < RUN; j++) {
      x[0] = it.x0[j];
      product_add<CLASSIFY>(th, static_cast<double>(map(x)), it, j, slot + j);
    }
  }
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void head(const Map &, Thread &) const {}
  template <bool CLASSIFY, class Map, class Thread> __device__ __forceinline__ void tail(const Map &, Thread &) const {}

private:
  // Any accumulator of single values (the count of non-finite values) sees
  // f and the point's flat index, and nothing at a padding point (weight 0:
  // a copy of a real one, which counts itself); the weighted pair sees both
  // weights.
  template <bool CLASSIFY, class Thread>
  __device__ __forceinline__ static void product_add(Thread &th, double y, const Item &it, int j, int slot)
  {
    th.template add<CLASSIFY>(it.wh[j] != 0.0 ? y : 0.0, it.index + 32 * j, slot);
  }
  template <bool CLASSIFY, int S>
  __device__ __forceinline__ static void product_add(WeightedPair<S> &th, double y, const Item &it, int j, int slot)
  {
    th.add(it.wh[j] * y, it.wl[j] * y, slot);
  }
  // The deterministic pair (exact_tile.cuh) adds the exact products.
  template <bool CLASSIFY, int S>
  __device__ __forceinline__ static void product_add(PairExact<S> &th, double y, const Item &it, int j, int)
  {
    th.add_weighted(it.wh[j], it.wl[j], y);
  }
};

// The next tile's cursor (agent.cuh): digits add with carries.
template <class Real, int D, unsigned PANELS, int BLOCK, bool SHARED, int RUN>
__device__ __forceinline__ typename ProductSource<Real, D, PANELS, BLOCK, SHARED, RUN>::Cursor
advance(const ProductSource<Real, D, PANELS, BLOCK, SHARED, RUN> &src,
        typename ProductSource<Real, D, PANELS, BLOCK, SHARED, RUN>::Cursor c,
        const typename ProductSource<Real, D, PANELS, BLOCK, SHARED, RUN>::Cursor &step)
{
  return src.add(c, step.d, step.flat);
}

// Before the tile loop (kernel.cuh): the block copies the tables, which lie
// one after another in global memory, into shared memory.
template <int B, int ITEMS, class Real, int D, unsigned PANELS, int BLOCK, bool SHARED, int RUN>
__device__ __forceinline__ void source_begin(const ProductSource<Real, D, PANELS, BLOCK, SHARED, RUN> &src)
{
  if constexpr (SHARED) {
    const double2 *from = reinterpret_cast<const double2 *>(src.table[0]);
    double2 *to = reinterpret_cast<double2 *>(product_tables);
    for (unsigned i = threadIdx.x; i < src.shared_doubles / 2; i += B)
      to[i] = __ldg(from + i);
    __syncthreads();
  }
}

} // namespace gq
#endif
