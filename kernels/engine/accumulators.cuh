// accumulators.cuh — per-thread accumulators of the data reductions, and the
// operators that merge their results (gpuquad.h's gq_sum_acc, gq_rms_acc,
// gq_stats_acc) in the warp, block and last-block trees with the formulas of
// src/lib/reduce_acc.h.
//
// Each thread accumulator takes one term at a time: TwoSum per element for
// the compensated sums (memory-bound kernels have FP64 issue to spare:
// ~10 FP64 operations per element against ~30 the bandwidth leaves),
// shifted double-double moments for the statistics (reduce_acc.h explains
// the shift; 26 FP64 operations, StatsThread says how).  With CLASSIFY (the rerun after a NaN, an Inf
// or an overflow showed up) a non-finite term is counted and left out, and
// the finite ones go through reduce_acc.h's scaled adds, which cannot
// overflow; without it every term is taken as finite and as it is.
#ifndef GQ_ACCUMULATORS_CUH
#define GQ_ACCUMULATORS_CUH

#include <cstdint>

#include "../../src/lib/reduce_acc.h"
#include "maps.cuh"
#include "tree.cuh"
#include "warp_reduce.cuh" // CsumMerge

namespace gq {

__device__ __forceinline__ bool finite(double v) { return v - v == 0.0; }

// The full accumulators' maps keep the operands as well: the classifying
// pass needs them to tell an input that is not finite from a product or a
// difference that overflowed, and to redo that term scaled.  The fast pass
// uses only the ProductTerm / DifferenceTerm part (the same operations as
// ExactProduct and Difference, so the same bits).
struct ProductOperands : ProductTerm {
  double a, b;
};
struct ExactProductOperands {
  __device__ __forceinline__ ProductOperands operator()(double a, double b) const
  {
    const double p = __dmul_rn(a, b);
    ProductOperands t;
    t.p = p;
    t.err = fma(a, b, -p);
    t.a = a;
    t.b = b;
    return t;
  }
};
struct DifferenceOperands : DifferenceTerm {
  double b;
};
struct DifferenceWithOperands {
  __device__ __forceinline__ DifferenceOperands operator()(double a, double b) const
  {
    DifferenceOperands t;
    t.a = a;
    t.d = a - b;
    t.b = b;
    return t;
  }
};

struct SumThread {
  static constexpr int KEYS = 1;
  template <int N> __device__ __forceinline__ void close() {}
  gq_sum_acc acc = {0, 0, 0, 0, 0.0, 0.0, 0.0, 0};

  template <bool CLASSIFY> __device__ __forceinline__ bool skip(double t)
  {
    if (!CLASSIFY || finite(t))
      return false;
    if (t != t) acc.nan_count++;
    else if (t > 0) acc.posinf_count++;
    else acc.neginf_count++;
    return true;
  }
  __device__ __forceinline__ void add_fast(double p)
  {
    gq_csum s = {acc.sum, acc.sum_err};
    gq_csum_add(&s, p);
    acc.sum = s.s;
    acc.sum_err = s.c;
    acc.abs_sum += fabs(p);
    acc.n++;
  }
  __device__ __forceinline__ void add_fast(double p, double err)
  {
    add_fast(p);
    acc.sum_err += err;
  }
  template <bool CLASSIFY> __device__ __forceinline__ void add(double t, uint64_t, int)
  {
    if (skip<CLASSIFY>(t))
      return;
    if (CLASSIFY)
      gq_sum_acc_add_scaled(&acc, t, 0.0, 0);
    else
      add_fast(t);
  }
  template <bool CLASSIFY> __device__ __forceinline__ void add(ProductOperands t, uint64_t, int)
  {
    if (!CLASSIFY) {
      add_fast(t.p, t.err);
    } else if (t.p != t.p) {
      acc.nan_count++;
    } else if (!finite(t.a) || !finite(t.b)) {
      if (t.p > 0) acc.posinf_count++;
      else acc.neginf_count++;
    } else {
      gq_sum_acc_add_product_scaled(&acc, t.a, t.b); // a*b may have overflowed
    }
  }
  __device__ gq_sum_acc result() const { return acc; }
};

struct RmsThread {
  static constexpr int KEYS = 1;
  template <int N> __device__ __forceinline__ void close() {}
  gq_rms_acc acc = {0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0};

  __device__ __forceinline__ void add_fast(double a, double d)
  {
    const double d2 = __dmul_rn(d, d);
    gq_csum sq = {acc.sq_diff, acc.sq_diff_err}, ref = {acc.sq_ref, acc.sq_ref_err};
    gq_csum_add(&sq, d2);
    acc.sq_diff = sq.s;
    acc.sq_diff_err = sq.c + fma(d, d, -d2);
    const double a2 = __dmul_rn(a, a);
    gq_csum_add(&ref, a2);
    acc.sq_ref = ref.s;
    acc.sq_ref_err = ref.c + fma(a, a, -a2);
    acc.max_abs = fmax(acc.max_abs, fabs(d));
    acc.n++;
  }
  template <bool CLASSIFY> __device__ __forceinline__ void add(DifferenceOperands t, uint64_t, int)
  {
    if (!CLASSIFY)
      add_fast(t.a, t.d);
    else if (t.d != t.d || t.a != t.a)
      acc.nan_count++;
    else if (!finite(t.a) || !finite(t.b))
      acc.inf_count++;
    else
      gq_rms_acc_add_scaled(&acc, t.a, t.b); // a - b may have overflowed
  }
  __device__ gq_rms_acc result() const { return acc; }
};

// The statistics: the fast pass keeps its sums in registers, apart from the
// gq_stats_acc that only the classifying pass uses (reduce_acc.h's scaled
// adds), and builds the accumulator in result().  Per element it does what
// gq_stats_acc_add does, for ~26 FP64 operations instead of ~35:
//   - the shift K is set once, before any add (thread_begin, the first value
//     of the launch's data, the same for every thread): no per-element
//     `first value?` select, and the tree merges have d = 0.  K is one of the
//     values, which is all the error bound of reduce_acc.h asks of it;
//   - every TwoSum is a Fast2Sum after one compare (gq_two_sum_ordered_: the
//     same sum and the same exact error, 3 additions instead of 6);
//   - 2 dh dl, the shift's rounding error in the square, is summed apart
//     (one fma) and doubled once at the end.
// The sums are the same exact double-doubles to within the rounding of the
// error terms (~2^-104 of S2), so the results keep their ulp.
//
// Each sum is a serial chain (compare, select, 3 additions per element) and
// only ~16 warps of 256-thread blocks fit an SM, so the chains' latency, not
// the FP64 issue, bounds the kernel.  GQ_STATS_SETS independent sets of sums
// take the elements in turn (set 0 takes one, then the sets rotate: in the
// unrolled tile the rotation is only a renaming of registers), so that many
// chains interleave; result() merges them exactly (gq_dd_add, as the tree
// merges two accumulators of one shift).  Min and max (a compare and a
// select each, the shorter chains) and the count stay single.
#ifndef GQ_STATS_SETS
#define GQ_STATS_SETS 2
#endif
static_assert(GQ_STATS_SETS >= 1 && GQ_STATS_SETS <= 8, "GQ_STATS_SETS: 1 to 8 sets of sums");
// The fast pass's partial for the block and grid trees: every thread and
// block of a launch has the same shift K and scale 0 and counts nothing
// that is not finite, so 11 words carry what gq_stats_acc's 19 do, and the
// merge is gq_stats_acc_combine's with d = 0 (the same additions in the same
// order, so the same bits) without its rescales — shifts or sums beyond
// GQ_SCALE_LIMIT can only overflow the sums to Inf, and a total that is not
// finite sends the reduction to the classifying pass, as any overflow does.
// Smaller partials to shuffle and a lighter merge leave the kernel fewer
// registers (GQ_STATS_LITE_TREE=0 puts gq_stats_acc back in the trees).
struct StatsLite {
  double s1, s1_err, s2, s2_err, abs_sum, abs_err, min, max;
  uint64_t argmin, argmax, n;
  __device__ gq_stats_acc full(double shift) const
  {
    gq_stats_acc a;
    gq_stats_acc_zero(&a);
    if (n == 0)
      return a;
    a.n = n;
    a.shift = shift;
    a.s1 = s1;
    a.s1_err = s1_err;
    a.s2 = s2;
    a.s2_err = s2_err;
    a.abs_sum = abs_sum;
    a.abs_err = abs_err;
    a.min = min;
    a.max = max;
    a.argmin = argmin;
    a.argmax = argmax;
    return a;
  }
};
struct StatsLiteCombine {
  __device__ __forceinline__ StatsLite operator()(StatsLite a, const StatsLite &b) const
  {
    if (b.n > 0) {
      if (a.n == 0) {
        a.s1 = b.s1;
        a.s1_err = b.s1_err;
        a.s2 = b.s2;
        a.s2_err = b.s2_err;
        a.abs_sum = b.abs_sum;
        a.abs_err = b.abs_err;
      } else {
        const gq_csum s1 = gq_dd_add(gq_dd_make(a.s1, a.s1_err), gq_dd_make(b.s1, b.s1_err));
        const gq_csum s2 = gq_dd_add(gq_dd_make(a.s2, a.s2_err), gq_dd_make(b.s2, b.s2_err));
        gq_csum l1 = {a.abs_sum, a.abs_err};
        gq_csum_merge(&l1, gq_dd_make(b.abs_sum, b.abs_err));
        a.s1 = s1.s;
        a.s1_err = s1.c;
        a.s2 = s2.s;
        a.s2_err = s2.c;
        a.abs_sum = l1.s;
        a.abs_err = l1.c;
      }
    }
    if (b.min < a.min || (b.min == a.min && b.argmin < a.argmin)) {
      a.min = b.min;
      a.argmin = b.argmin;
    }
    if (b.max > a.max || (b.max == a.max && b.argmax < a.argmax)) {
      a.max = b.max;
      a.argmax = b.argmax;
    }
    a.n += b.n;
    return a;
  }
  __device__ static StatsLite identity()
  {
    StatsLite z;
    z.s1 = z.s1_err = z.s2 = z.s2_err = z.abs_sum = z.abs_err = 0.0;
    z.min = (double)INFINITY;
    z.max = -(double)INFINITY;
    z.argmin = z.argmax = GQ_NO_INDEX;
    z.n = 0;
    return z;
  }
};
struct StatsSums {
  double s1 = 0.0, s1_err = 0.0, s2 = 0.0, s2_err = 0.0, cross = 0.0; // cross: sum dh dl
  double abs_sum = 0.0, abs_err = 0.0;
};
struct StatsThread {
  static constexpr int SETS = GQ_STATS_SETS;
  static constexpr int KEYS = 1;
  template <int N> __device__ __forceinline__ void close() {}
  gq_stats_acc acc;                           // the classifying pass's
  double shift = 0.0;                         // K, set by thread_begin
  StatsSums set[SETS];
  double min = (double)INFINITY, max = -(double)INFINITY;
  uint64_t n = 0, argmin = GQ_NO_INDEX, argmax = GQ_NO_INDEX;
  __device__ StatsThread() { gq_stats_acc_zero(&acc); }

  __device__ __forceinline__ void add_fast(double x, uint64_t i)
  {
    // A thread sees its indices in increasing order: the first ones stay.
    if (x < min) {
      min = x;
      argmin = i;
    }
    if (x > max) {
      max = x;
      argmax = i;
    }
    StatsSums &t = set[0];
    double dl, e;
    const double dh = gq_two_sum_ordered_(x, -shift, &dl); // x - K = dh + dl exactly
    t.s1 = gq_two_sum_ordered_(t.s1, dh, &e);
    t.s1_err = (t.s1_err + e) + dl;
    const double p = __dmul_rn(dh, dh);
    t.s2 = gq_two_sum_ordered_(t.s2, p, &e);
    t.s2_err = (t.s2_err + e) + fma(dh, dh, -p);
    t.cross = fma(dh, dl, t.cross);
    t.abs_sum = gq_two_sum_ordered_(t.abs_sum, fabs(x), &e);
    t.abs_err += e;
    n++;
    if (SETS > 1) { // the next element goes to the next set
      const StatsSums first = set[0];
#pragma unroll
      for (int k = 0; k + 1 < SETS; k++)
        set[k] = set[k + 1];
      set[SETS - 1] = first;
    }
  }
  template <bool CLASSIFY> __device__ __forceinline__ void add(double x, uint64_t i, int)
  {
    if (!CLASSIFY)
      add_fast(x, i);
    else if (finite(x))
      gq_stats_acc_add_scaled(&acc, x, i);
    else
      gq_stats_acc_add_nonfinite(&acc, x, i);
  }
  // The fast pass's sums, the sets merged: one shift for all, so the exact
  // merge is the tree's with d = 0.
  __device__ StatsLite lite() const
  {
    gq_csum s1 = {set[0].s1, set[0].s1_err}, s2 = {set[0].s2, set[0].s2_err};
    gq_csum l1 = {set[0].abs_sum, set[0].abs_err};
    double cross = set[0].cross;
#pragma unroll
    for (int k = 1; k < SETS; k++) {
      s1 = gq_dd_add(s1, gq_dd_make(set[k].s1, set[k].s1_err));
      s2 = gq_dd_add(s2, gq_dd_make(set[k].s2, set[k].s2_err));
      gq_csum_merge(&l1, gq_dd_make(set[k].abs_sum, set[k].abs_err));
      cross += set[k].cross;
    }
    StatsLite t;
    t.s1 = s1.s;
    t.s1_err = s1.c;
    t.s2 = s2.s;
    t.s2_err = s2.c + 2.0 * cross;
    t.abs_sum = l1.s;
    t.abs_err = l1.c;
    t.min = min;
    t.max = max;
    t.argmin = argmin;
    t.argmax = argmax;
    t.n = n;
    return t;
  }
  __device__ gq_stats_acc result() const
  {
    if (n == 0) // the classifying pass, or a thread without data
      return acc;
    return lite().full(shift);
  }
};

// The statistics' fast pass takes its shift from the data's first value
// (kernel.cuh's thread_begin).
template <bool CLASSIFY, class Source, class Map>
__device__ __forceinline__ void thread_begin(StatsThread &th, const Source &src, const Map &map)
{
  if (!CLASSIFY)
    th.shift = map(src.elem_a(0), src.elem_b(0));
}

// Merge operators and identities for the tree levels.
struct SumCombine {
  __device__ __forceinline__ gq_sum_acc operator()(gq_sum_acc a, gq_sum_acc b) const
  {
    gq_sum_acc_combine(&a, &b);
    return a;
  }
  __device__ static gq_sum_acc identity() { gq_sum_acc z; gq_sum_acc_zero(&z); return z; }
  // The finished sum as a double; NaN and Inf propagate through the
  // arithmetic (the asynchronous forms do not classify).
  __device__ static void finish(const gq_sum_acc &a, void *out, uint64_t) { *static_cast<double *>(out) = gq_sum_acc_value(&a); }
};
struct RmsCombine {
  __device__ __forceinline__ gq_rms_acc operator()(gq_rms_acc a, gq_rms_acc b) const
  {
    gq_rms_acc_combine(&a, &b);
    return a;
  }
  __device__ static gq_rms_acc identity() { gq_rms_acc z; gq_rms_acc_zero(&z); return z; }
  // rms, max |a - b| and the relative change, as gq_rms_finish computes them.
  __device__ static void finish(const gq_rms_acc &a, void *out, uint64_t)
  {
    gq_rms_result r;
    r.n = a.n;
    r.nan_count = a.nan_count;
    r.inf_count = a.inf_count;
    gq_rms_values(a.sq_diff + a.sq_diff_err, a.sq_ref + a.sq_ref_err, a.n, &r.rms, &r.relative);
    r.rms = ldexp(r.rms, gq_scale_exp_(a.scale));
    r.max_abs = a.max_abs;
    *static_cast<gq_rms_result *>(out) = r;
  }
};
struct StatsCombine {
  __device__ __forceinline__ gq_stats_acc operator()(gq_stats_acc a, gq_stats_acc b) const
  {
    gq_stats_acc_combine(&a, &b); // indices are absolute within the array
    return a;
  }
  __device__ static gq_stats_acc identity() { gq_stats_acc z; gq_stats_acc_zero(&z); return z; }
  __device__ static void finish(const gq_stats_acc &, void *, uint64_t) {} // no finished form
};

// The lite accumulators finish on the device: the one-shot gq_sum, gq_dot
// and gq_rms_diff (result written into mapped host memory) and their
// asynchronous forms (result left in device memory).  They carry only what
// the finished value needs through the block tree — the compensated pair
// (2 words instead of SumThread's 7), the two sums of squares and the
// maximum (3 instead of RmsThread's 8) — and never classify: NaN and
// Inf propagate into the finished value, and the host reruns the full
// accumulator when it sees one (src/lib/reduce.c).  Adds and merges are the
// full accumulators' own (the rms below excepted), so on the same grid the
// finished sum and dot agree with theirs to the bit.
struct SumLiteThread {
  static constexpr int KEYS = 1;
  template <int N> __device__ __forceinline__ void close() {}
  gq_csum s = {0.0, 0.0};
  // CLASSIFY is ignored: the launcher picks the lite sum only for the fast pass.
  template <bool CLASSIFY> __device__ __forceinline__ void add(double t, uint64_t, int) { gq_csum_add(&s, t); }
  template <bool CLASSIFY> __device__ __forceinline__ void add(ProductTerm t, uint64_t, int)
  {
    gq_csum_add(&s, t.p);
    s.c += t.err;
  }
  __device__ gq_csum result() const { return s; }
};
struct SumLiteCombine : CsumMerge {
  __host__ __device__ static gq_csum identity() { return gq_csum{0.0, 0.0}; }
  __host__ __device__ static void finish(const gq_csum &a, void *out, uint64_t) { *static_cast<double *>(out) = a.s + a.c; }
};

// The lite rms sums squares, which are never negative, so it need not pay
// for compensation where it is dear:
//   - a thread adds a tile's squares with fma (the square exact inside it,
//     one rounding per term) into plain partials, and folds them into its
//     compensated sums once per tile (close, called by the engine after every
//     whole tile): per element 4 FP64 operations instead of RmsThread's 20
//     (sub, two fma, max) — at 2^20 elements a latency of ~9.5 us instead of
//     ~10.6 (BENCHMARKS.md);
//   - the thread's compensated sums are rounded once, and the block and grid
//     trees add plain doubles: a tree level is then 3 words shuffled and 2
//     additions instead of 5 words and 2 TwoSums, and at 2^20 the kernel
//     takes 5.7 us instead of 6.6 (bench/bench_grid.cu).
// Without cancellation, a sum whose every term goes through at most d
// roundings is within d u of exact relatively (u = 2^-53), whatever the
// data.  For the sum of squared differences d <= L + 38, L = 16 (doubles) or
// 32 (floats) terms per tile and thread: a - b (2, squared), the fma chain
// with the head or tail element (L + 2), the compensated tiles (2), the
// rounding to a double (1), the block tree (8), the last block's serial
// folds (15 at the 4096-block cap; 4 on an H200) and its tree (8); the sum
// of squared references has no a - b.  So the rms, sqrt(S / n), is within
// (L + 42) / 2 u of exact — 29 u for doubles, 37 u for floats — and the
// relative change, sqrt(S / R), within (L + 40) u (56 u, 72 u), with room
// for the second-order terms; tests/reduce_ref.h holds the GPU to these.
// The full accumulator's are within 8 u; on random data the two differ by
// an ulp or two.
struct gq_rms_lite {
  double sq;      // sum of (a - b)^2
  double ref;     // sum of a^2
  double max_abs; // max |a - b|
};
//
// The maximum of |a - b| is kept as the largest bit pattern: for doubles
// without a sign, unsigned integer order is numeric order, and a 64-bit
// integer max is a third of fmax's instructions on sm_90 (a DSETP, selects
// and moves, in the chain every element goes through).  A NaN's pattern is
// above every number, so a NaN shows in the maximum too — the one-shot call
// then reruns the full accumulator, which classifies it.
struct RmsLiteThread {
  static constexpr int KEYS = 1;
  gq_csum sq_sum = {0.0, 0.0}, ref_sum = {0.0, 0.0}; // the tiles so far
  double sq = 0.0, ref = 0.0;                       // this tile's plain partials
  unsigned long long max_bits = 0;                  // the largest |a - b| so far, as bits
  template <bool CLASSIFY> __device__ __forceinline__ void add(DifferenceTerm t, uint64_t, int)
  {
    sq = fma(t.d, t.d, sq);
    ref = fma(t.a, t.a, ref);
    const unsigned long long bits = (unsigned long long)__double_as_longlong(t.d) & 0x7fffffffffffffffULL;
    max_bits = bits > max_bits ? bits : max_bits;
  }
  template <int N> __device__ __forceinline__ void close() { flush(); }
  __device__ __forceinline__ void flush()
  {
    gq_csum_add(&sq_sum, sq);
    gq_csum_add(&ref_sum, ref);
    sq = ref = 0.0;
  }
  __device__ gq_rms_lite result() const
  {
    RmsLiteThread t = *this;
    t.flush();
    return gq_rms_lite{t.sq_sum.s + t.sq_sum.c, t.ref_sum.s + t.ref_sum.c, __longlong_as_double((long long)max_bits)};
  }
};
struct RmsLiteCombine {
  __host__ __device__ __forceinline__ gq_rms_lite operator()(gq_rms_lite a, const gq_rms_lite &b) const
  {
    a.sq += b.sq;
    a.ref += b.ref;
    a.max_abs = b.max_abs > a.max_abs || b.max_abs != b.max_abs ? b.max_abs : a.max_abs; // NaN wins
    return a;
  }
  __host__ __device__ static gq_rms_lite identity() { return gq_rms_lite{0.0, 0.0, 0.0}; }
  // Nothing was classified: n is every pair (count), as RmsThread counts it.
  __device__ static void finish(const gq_rms_lite &a, void *out, uint64_t count)
  {
    gq_rms_result r;
    r.n = count;
    r.nan_count = 0;
    r.inf_count = 0;
    gq_rms_values(a.sq, a.ref, count, &r.rms, &r.relative);
    r.max_abs = a.max_abs;
    *static_cast<gq_rms_result *>(out) = r;
  }
};

template <> struct CombineOf<SumThread> { using type = SumCombine; using acc = gq_sum_acc; };
template <> struct CombineOf<RmsThread> { using type = RmsCombine; using acc = gq_rms_acc; };
template <> struct CombineOf<SumLiteThread> { using type = SumLiteCombine; using acc = gq_csum; };
template <> struct CombineOf<RmsLiteThread> { using type = RmsLiteCombine; using acc = gq_rms_lite; };
template <> struct CombineOf<StatsThread> { using type = StatsCombine; using acc = gq_stats_acc; };

// The statistics' fast pass sends StatsLite through the trees (above), and
// only the result is built as a gq_stats_acc — the same merges in the same
// order as with gq_stats_acc, so the same bits.  GQ_STATS_LITE_TREE=0 puts
// gq_stats_acc back in the trees (bench/stats_sweep.sh).
#ifndef GQ_STATS_LITE_TREE
#define GQ_STATS_LITE_TREE 1
#endif
#if GQ_STATS_LITE_TREE
struct StatsLiteTree {
  using Combine = StatsLiteCombine;
  using Partial = StatsLite;
  using Result = gq_stats_acc;
  using Finish = StatsCombine;
  double shift;
  __device__ __forceinline__ static Partial partial(const StatsThread &th) { return th.lite(); }
  __device__ __forceinline__ Result result(const Partial &p) const { return p.full(shift); }
};
static_assert(sizeof(StatsLite) <= sizeof(gq_stats_acc), "a StatsLite partial fits a gq_stats_acc slot");
template <> struct TreeOf<StatsThread, false> {
  using type = StatsLiteTree;
  __device__ __forceinline__ static type make(const StatsThread &th) { return type{th.shift}; }
};
#endif

} // namespace gq
#endif
