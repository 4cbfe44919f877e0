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
// GQ_GRID_BLOCK / GQ_GRID_ITEMS override the row for bench/policy_sweep.sh.
#ifndef GQ_GRID_BLOCK
#define GQ_GRID_BLOCK 256
#endif
#ifndef GQ_GRID_ITEMS
#define GQ_GRID_ITEMS 16
#endif
struct GridPolicy {
  static constexpr int BLOCK = GQ_GRID_BLOCK;
  static constexpr int ITEMS = GQ_GRID_ITEMS;
};

} // namespace gq
#endif
