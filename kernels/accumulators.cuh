// accumulators.cuh — per-thread accumulators of the data reductions, and the
// operators that merge their results (gpuquad.h's gq_sum_acc, gq_rms_acc,
// gq_stats_acc) in the warp, block and last-block trees with the formulas of
// src/lib/reduce_acc.h.
//
// Each thread accumulator takes one term at a time: TwoSum per element for
// the compensated sums (memory-bound kernels have FP64 issue to spare:
// ~10 FP64 operations per element against ~30 the bandwidth leaves), shifted
// moments for the statistics (reduce_acc.h explains the shift).  With
// CLASSIFY (the rerun after a NaN or Inf showed up) a non-finite term is
// counted and left out; without it every term is taken as finite.
#ifndef GQ_ACCUMULATORS_CUH
#define GQ_ACCUMULATORS_CUH

#include <cstdint>

#include "../src/lib/reduce_acc.h"
#include "maps.cuh"
#include "warp_reduce.cuh" // CsumMerge

namespace gq {

__device__ __forceinline__ bool finite(double v) { return v - v == 0.0; }

struct SumThread {
  gq_csum s = {0.0, 0.0};
  double abs = 0.0;
  uint64_t n = 0, nan = 0, pinf = 0, ninf = 0;

  template <bool CLASSIFY> __device__ __forceinline__ bool skip(double t)
  {
    if (!CLASSIFY || finite(t))
      return false;
    if (t != t) nan++;
    else if (t > 0) pinf++;
    else ninf++;
    return true;
  }
  template <bool CLASSIFY> __device__ __forceinline__ void add(double t, uint64_t)
  {
    if (skip<CLASSIFY>(t))
      return;
    gq_csum_add(&s, t);
    abs += fabs(t);
    n++;
  }
  template <bool CLASSIFY> __device__ __forceinline__ void add(ProductTerm t, uint64_t)
  {
    if (skip<CLASSIFY>(t.p))
      return;
    gq_csum_add(&s, t.p);
    s.c += t.err;
    abs += fabs(t.p);
    n++;
  }
  __device__ gq_sum_acc result() const
  {
    gq_sum_acc r;
    r.n = n;
    r.nan_count = nan;
    r.posinf_count = pinf;
    r.neginf_count = ninf;
    r.sum = s.s;
    r.sum_err = s.c;
    r.abs_sum = abs;
    return r;
  }
};

struct RmsThread {
  gq_csum sq = {0.0, 0.0}, ref = {0.0, 0.0};
  double max_abs = 0.0;
  uint64_t n = 0, nan = 0, inf = 0;

  template <bool CLASSIFY> __device__ __forceinline__ void add(DifferenceTerm t, uint64_t)
  {
    if (CLASSIFY && !(finite(t.d) && finite(t.a))) {
      if (t.d != t.d || t.a != t.a) nan++;
      else inf++;
      return;
    }
    const double d2 = __dmul_rn(t.d, t.d);
    gq_csum_add(&sq, d2);
    sq.c += fma(t.d, t.d, -d2);
    const double a2 = __dmul_rn(t.a, t.a);
    gq_csum_add(&ref, a2);
    ref.c += fma(t.a, t.a, -a2);
    max_abs = fmax(max_abs, fabs(t.d));
    n++;
  }
  __device__ gq_rms_acc result() const
  {
    gq_rms_acc r;
    r.n = n;
    r.nan_count = nan;
    r.inf_count = inf;
    r.sq_diff = sq.s;
    r.sq_diff_err = sq.c;
    r.sq_ref = ref.s;
    r.sq_ref_err = ref.c;
    r.max_abs = max_abs;
    return r;
  }
};

struct StatsThread {
  double shift = 0.0, s2 = 0.0, abs = 0.0;
  gq_csum sum = {0.0, 0.0}, s1 = {0.0, 0.0};
  double mn = INFINITY, mx = -INFINITY;
  uint64_t imin = GQ_NO_INDEX, imax = GQ_NO_INDEX, n = 0;
  uint64_t nan = 0, pinf = 0, ninf = 0;
  uint64_t first_nan = GQ_NO_INDEX, first_pinf = GQ_NO_INDEX, first_ninf = GQ_NO_INDEX;

  template <bool CLASSIFY> __device__ __forceinline__ void add(double x, uint64_t i)
  {
    if (CLASSIFY && !finite(x)) {
      // A thread sees its indices in increasing order: the first one stays.
      if (x != x) { if (!nan++) first_nan = i; }
      else if (x > 0) { if (!pinf++) first_pinf = i; }
      else { if (!ninf++) first_ninf = i; }
      return;
    }
    shift = n == 0 ? x : shift; // the thread's first value (see reduce_acc.h)
    const double d = x - shift;
    gq_csum_add(&s1, d);
    s2 = fma(d, d, s2);
    gq_csum_add(&sum, x);
    abs += fabs(x);
    if (x < mn) { mn = x; imin = i; }
    if (x > mx) { mx = x; imax = i; }
    n++;
  }
  __device__ gq_stats_acc result() const
  {
    gq_stats_acc r;
    gq_stats_acc_zero(&r);
    gq_stats_acc_set_moments(&r, n, shift, s1, s2);
    r.sum = sum.s;
    r.sum_err = sum.c;
    r.abs_sum = abs;
    r.min = mn;
    r.max = mx;
    r.argmin = imin;
    r.argmax = imax;
    r.nan_count = nan;
    r.posinf_count = pinf;
    r.neginf_count = ninf;
    r.first_nan = first_nan;
    r.first_posinf = first_pinf;
    r.first_neginf = first_ninf;
    return r;
  }
};

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
  __device__ static void finish(const gq_sum_acc &a, void *out) { *static_cast<double *>(out) = a.sum + a.sum_err; }
};
struct RmsCombine {
  __device__ __forceinline__ gq_rms_acc operator()(gq_rms_acc a, gq_rms_acc b) const
  {
    gq_rms_acc_combine(&a, &b);
    return a;
  }
  __device__ static gq_rms_acc identity() { gq_rms_acc z; gq_rms_acc_zero(&z); return z; }
  // rms, max |a - b| and the relative change, as gq_rms_finish computes them.
  __device__ static void finish(const gq_rms_acc &a, void *out)
  {
    gq_rms_result r;
    const double sq = a.sq_diff + a.sq_diff_err, ref = a.sq_ref + a.sq_ref_err;
    r.n = a.n;
    r.nan_count = a.nan_count;
    r.inf_count = a.inf_count;
    r.rms = a.n ? sqrt(sq / (double)a.n) : __longlong_as_double(0x7ff8000000000000LL);
    r.max_abs = a.max_abs;
    r.relative = sqrt(sq) / sqrt(ref);
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
  __device__ static void finish(const gq_stats_acc &, void *) {} // no asynchronous form
};

// The asynchronous sum and dot (gq_sum_async, gq_dot_async): only the
// compensated pair, 2 words through the block tree instead of SumThread's 7
// (no |t| sum, no counts: nothing classifies, NaN and Inf propagate).  The
// same TwoSum adds and merges in the same order, so the finished value is
// SumThread's to the bit (tests/t_reduce_gpu checks it).
struct SumLiteThread {
  gq_csum s = {0.0, 0.0};
  // CLASSIFY is ignored: the launcher picks the lite sum only for the fast pass.
  template <bool CLASSIFY> __device__ __forceinline__ void add(double t, uint64_t) { gq_csum_add(&s, t); }
  template <bool CLASSIFY> __device__ __forceinline__ void add(ProductTerm t, uint64_t)
  {
    gq_csum_add(&s, t.p);
    s.c += t.err;
  }
  __device__ gq_csum result() const { return s; }
};
struct SumLiteCombine : CsumMerge {
  __device__ static gq_csum identity() { return gq_csum{0.0, 0.0}; }
  __device__ static void finish(const gq_csum &a, void *out) { *static_cast<double *>(out) = a.s + a.c; }
};

template <class Thread> struct CombineOf;
template <> struct CombineOf<SumThread> { using type = SumCombine; using acc = gq_sum_acc; };
template <> struct CombineOf<RmsThread> { using type = RmsCombine; using acc = gq_rms_acc; };
template <> struct CombineOf<SumLiteThread> { using type = SumLiteCombine; using acc = gq_csum; };
template <> struct CombineOf<StatsThread> { using type = StatsCombine; using acc = gq_stats_acc; };

} // namespace gq
#endif
