// tile_accumulators.cuh — the thread accumulators of the compute-bound
// problems (a grid of points, a random stream), where a tile's values are
// summed plainly and pairwise (they are independent: ILP) and folded into
// the compensated total once per tile, and the count of values that are not
// finite.  The pairwise step errs by at most ~3u of a tile's value and those
// errors are independent across the tiles, so the total stays far below an
// ulp of the result while TwoSum is paid once per tile.
//
// SLOTS is the most values a tile holds (ITEMS x the source's WIDTH); the
// engine writes slot k of a tile with add and closes the tile with close<N>
// (N values: a whole tile, or one item of the partial tile).  Slots are
// constants after unrolling, so the tile lives in registers.
#ifndef GQ_TILE_ACCUMULATORS_CUH
#define GQ_TILE_ACCUMULATORS_CUH

#include "tree.cuh"
#include "warp_reduce.cuh" // CsumMerge
#include "../../src/lib/compensated.h"
#include "../../src/lib/mc_moments.h"

namespace gq {

template <int N> __device__ __forceinline__ void pairwise(double *v)
{
#pragma unroll
  for (int w = 1; w < N; w *= 2)
#pragma unroll
    for (int k = 0; k + w < N; k += 2 * w)
      v[k] += v[k + w];
}

// Compensated sums, KEYS of them: thread t's values go to key t % KEYS.  A
// source whose tiles and blocks are multiples of KEYS (the grid's) then
// gives key k the values whose index is congruent to first + k, modulo KEYS
// — the classes a quadrature rule weighs (the trapezoid's ends and its
// Richardson half, a Simpson or Boole pattern) — for free.
template <int KEYS_, int SLOTS> struct TileCsum {
  static constexpr int KEYS = KEYS_;
  gq_csum acc = {0.0, 0.0};
  double v[SLOTS];
  template <bool CLASSIFY, class Index> __device__ __forceinline__ void add(double t, Index, int slot) { v[slot] = t; }
  template <int N> __device__ __forceinline__ void close()
  {
    pairwise<N>(v);
    gq_csum_add(&acc, v[0]);
  }
  __device__ __forceinline__ gq_csum result() const { return acc; }
};
struct CsumCombine : CsumMerge {
  __device__ static gq_csum identity() { return gq_csum{0.0, 0.0}; }
  __device__ static void finish(const gq_csum &a, void *out, unsigned long long) { *static_cast<gq_csum *>(out) = a; }
};
template <int K, int S> struct CombineOf<TileCsum<K, S>> { using type = CsumCombine; using acc = gq_csum; };

// Two compensated sums of the same values under two weights: a product
// grid's rule and its lower-order rule on the same points
// (product_source.cuh).  The source calls add(hi, lo, slot) with both
// weighted values; tiles are summed pairwise and folded in as TileCsum's.
struct CsumPair {
  gq_csum hi, lo;
};
template <int SLOTS> struct WeightedPair {
  static constexpr int KEYS = 1;
  CsumPair acc = {{0.0, 0.0}, {0.0, 0.0}};
  double vh[SLOTS], vl[SLOTS];
  __device__ __forceinline__ void add(double hi, double lo, int slot)
  {
    vh[slot] = hi;
    vl[slot] = lo;
  }
  template <int N> __device__ __forceinline__ void close()
  {
    pairwise<N>(vh);
    pairwise<N>(vl);
    gq_csum_add(&acc.hi, vh[0]);
    gq_csum_add(&acc.lo, vl[0]);
  }
  __device__ __forceinline__ CsumPair result() const { return acc; }
};
struct CsumPairCombine {
  __device__ __forceinline__ CsumPair operator()(CsumPair a, const CsumPair &b) const
  {
    gq_csum_merge(&a.hi, b.hi);
    gq_csum_merge(&a.lo, b.lo);
    return a;
  }
  __device__ static CsumPair identity() { return CsumPair{{0.0, 0.0}, {0.0, 0.0}}; }
  __device__ static void finish(const CsumPair &a, void *out, unsigned long long) { *static_cast<CsumPair *>(out) = a; }
};
template <int S> struct CombineOf<WeightedPair<S>> { using type = CsumPairCombine; using acc = CsumPair; };

// Shifted moments (mc_moments.h) of values that come four at a time (a
// Philox quad): per quad (y0 + y1) + (y2 + y3) and y0^2 + ... + y3^2 with two
// fmas, then pairwise over a tile's quads, and one compensated add of each.
// Slots left unwritten in a closed quad count as nothing (the partial
// tile's last quad), so close leaves every slot at zero.
template <int SLOTS> struct QuadMoments {
  static constexpr int KEYS = 1;
  static_assert(SLOTS % 4 == 0, "values come in quads");
  gq_mc_moments acc = gq_mc_moments_zero();
  double shift = 0.0; // thread_begin: the source's
  double y[SLOTS] = {};
  template <bool CLASSIFY, class Index> __device__ __forceinline__ void add(double t, Index, int slot)
  {
    y[slot] = t - shift;
  }
  template <int N> __device__ __forceinline__ void close()
  {
    static_assert(N % 4 == 0 && N <= SLOTS, "a tile of whole quads");
    constexpr int Q = N / 4;
    double s[Q], q[Q];
#pragma unroll
    for (int k = 0; k < Q; k++) {
      const double *v = y + 4 * k;
      s[k] = (v[0] + v[1]) + (v[2] + v[3]);
      q[k] = fma(v[0], v[0], v[1] * v[1]) + fma(v[2], v[2], v[3] * v[3]);
    }
    pairwise<Q>(s);
    pairwise<Q>(q);
    gq_mc_moments_add(&acc, s[0], q[0]);
#pragma unroll
    for (int k = 0; k < N; k++)
      y[k] = 0.0;
  }
  __device__ __forceinline__ gq_mc_moments result() const { return acc; }
};
// With a common shift, Chan's merge of (n, mean, M2) is the sum of the
// shifted sums (mc_moments.h): compensated additions, no division.
struct MomentsCombine {
  __device__ __forceinline__ gq_mc_moments operator()(gq_mc_moments a, gq_mc_moments b) const
  {
    gq_mc_moments_merge(&a, b);
    return a;
  }
  __device__ static gq_mc_moments identity() { return gq_mc_moments_zero(); }
  __device__ static void finish(const gq_mc_moments &a, void *out, unsigned long long)
  {
    *static_cast<gq_mc_moments *>(out) = a;
  }
};
template <int S> struct CombineOf<QuadMoments<S>> { using type = MomentsCombine; using acc = gq_mc_moments; };
// The shift travels with the source (philox_source.cuh's RandomSource).
template <bool CLASSIFY, int S, class Source, class Map>
__device__ __forceinline__ void thread_begin(QuadMoments<S> &th, const Source &src, const Map &)
{
  th.shift = src.shift;
}

// Where a map is not finite: how many values, and the smallest index of
// one.  Run only after a sum came out NaN or Inf, to tell the user where.
struct NonfiniteCount {
  unsigned long long count, first; // first: ~0 when none
};
struct NonfiniteThread {
  static constexpr int KEYS = 1;
  NonfiniteCount acc = {0, ~0ull};
  // A thread sees its indices in increasing order: its first stays.
  template <bool CLASSIFY, class Index> __device__ __forceinline__ void add(double t, Index i, int)
  {
    if (!(t - t == 0.0) && acc.count++ == 0)
      acc.first = (unsigned long long)i;
  }
  template <int N> __device__ __forceinline__ void close() {}
  __device__ __forceinline__ NonfiniteCount result() const { return acc; }
};
struct NonfiniteCombine {
  __device__ __forceinline__ NonfiniteCount operator()(NonfiniteCount a, const NonfiniteCount &b) const
  {
    a.count += b.count;
    a.first = b.first < a.first ? b.first : a.first;
    return a;
  }
  __device__ static NonfiniteCount identity() { return NonfiniteCount{0, ~0ull}; }
  __device__ static void finish(const NonfiniteCount &a, void *out, unsigned long long)
  {
    *static_cast<NonfiniteCount *>(out) = a;
  }
};
template <> struct CombineOf<NonfiniteThread> { using type = NonfiniteCombine; using acc = NonfiniteCount; };

} // namespace gq
#endif
