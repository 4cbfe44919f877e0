// policy.cuh — launch shapes, one row per kind of work, with the measurement
// that justified each.  Grids are sized from the device (blocks resident per
// multiprocessor x multiprocessors), never from n alone.
#ifndef GQ_POLICY_CUH
#define GQ_POLICY_CUH

namespace gq {

// Compute-bound maps over an index space (the trapezoid grid): no memory
// traffic, so what matters is ILP (ITEMS independent evaluations per thread
// before they are summed) and enough warps to hide the FP64 pipeline latency.
// 256 x 16: see BENCHMARKS.md (sm_90, H200).
struct GridPolicy {
  static constexpr int BLOCK = 256;
  static constexpr int ITEMS = 16;
};

} // namespace gq
#endif
