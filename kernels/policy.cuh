// policy.cuh — launch shapes, one row per kind of work, with the measurement
// that justified each.  Grids are sized from the device (blocks resident per
// multiprocessor x multiprocessors), never from n alone.
#ifndef GQ_POLICY_CUH
#define GQ_POLICY_CUH

namespace gq {

// Compute-bound maps over an index space (the trapezoid grid): no memory
// traffic, so what matters is ILP (ITEMS independent evaluations per thread
// before they are summed) and enough warps to hide the FP64 pipeline latency.
// H200, circle, n = 1e9, median of 20 (bench/policy_sweep.sh, 2026-11-22):
// 128x16 0.724 ms, 256x8 0.746, 256x16 0.715, 256x32 0.715, 512x8 0.731,
// 512x16 0.692.  512 is also the largest block whose warp partials, split by
// parity, fit one warp (16 warps x 2 keys).
// GQ_GRID_BLOCK / GQ_GRID_ITEMS override the row for bench/policy_sweep.sh.
#ifndef GQ_GRID_BLOCK
#define GQ_GRID_BLOCK 512
#endif
#ifndef GQ_GRID_ITEMS
#define GQ_GRID_ITEMS 16
#endif
struct GridPolicy {
  static constexpr int BLOCK = GQ_GRID_BLOCK;
  static constexpr int ITEMS = GQ_GRID_ITEMS;
};

// Monte Carlo (mc_reduce.cuh): compute-bound as well (Philox's integer
// multiplies, then f in FP64), no memory traffic on the fused path.  QUADS
// Philox quads in flight per thread for ILP; one for D > 4, where the points
// of a quad alone take 4 D registers per real.  This row awaits measurement
// (bench/gpu_mc.sh): 256 threads is the grid row's neighbour, not a result.
// GQ_MC_BLOCK / GQ_MC_QUADS override it for a sweep.
#ifndef GQ_MC_BLOCK
#define GQ_MC_BLOCK 256
#endif
#ifndef GQ_MC_QUADS
#define GQ_MC_QUADS 2
#endif
struct McPolicy {
  static constexpr int BLOCK = GQ_MC_BLOCK;
  static constexpr int quads(int dims) { return dims <= 4 ? GQ_MC_QUADS : 1; }
};

} // namespace gq
#endif
