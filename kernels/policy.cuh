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

// Memory-bound array reductions (sum, dot, rms, stats over device arrays):
// what matters is bytes in flight per SM (ITEMS 16-byte vector loads per
// array per thread, all issued before any is used) and a grid of resident
// blocks only.  Per kind, because the accumulators differ in registers
// (StatsThread holds ~30, SumThread ~8).
// measured: see BENCHMARKS.md
// GQ_ARRAY_BLOCK / GQ_ARRAY_ITEMS override every row for a policy sweep.
// MIN_BLOCKS goes to __launch_bounds__ (of the fast pass only: the
// classifying rerun keeps 1).  StatsThread's registers (sm_90, ptxas -v, the
// fast pass over 16-byte vectors, double / float data): 120 / 120 with
// gq_stats_acc in the trees and one set of sums; with StatsLite in the trees
// (GQ_STATS_LITE_TREE, accumulators.cuh) 89 / 96 for one set, 116 / 142 for
// two (GQ_STATS_SETS; four, with gq_stats_acc in the trees: 140 / 190).
// Two sets need MIN_BLOCKS 2 to keep 2 blocks of 256 per SM: 116 / 118
// registers, nothing spilled — the occupancy of before with the dependency
// chains halved, the default.  Under MIN_BLOCKS 3 (3 blocks, 48 KiB of loads
// in flight per SM, 80 registers) two sets spill nothing for doubles and 80
// bytes for floats, one set nothing and 32 bytes: the sweep's next points.
#ifndef GQ_STATS_MIN_BLOCKS
#define GQ_STATS_MIN_BLOCKS 2
#endif
#ifdef GQ_ARRAY_BLOCK
#define GQ_ARRAY_ROW(name, block, items, min_blocks) \
  struct name { static constexpr int BLOCK = GQ_ARRAY_BLOCK, ITEMS = GQ_ARRAY_ITEMS, MIN_BLOCKS = min_blocks; };
#else
#define GQ_ARRAY_ROW(name, block, items, min_blocks) \
  struct name { static constexpr int BLOCK = block, ITEMS = items, MIN_BLOCKS = min_blocks; };
#endif
GQ_ARRAY_ROW(SumPolicy, 256, 8, 1)   // one array: 128 bytes in flight per thread (4 items: 0.958x CUB at 2^28)
GQ_ARRAY_ROW(DotPolicy, 256, 4, 1)   // two arrays: 128 bytes per thread
GQ_ARRAY_ROW(RmsPolicy, 256, 4, 1)
GQ_ARRAY_ROW(StatsPolicy, 256, 4, GQ_STATS_MIN_BLOCKS)
// The lite accumulators (one-shot and asynchronous sum, dot, rms): 8 items
// of a dot keep 256 bytes per thread in flight.  512 threads would halve the
// partials the last block merges, but the dot kernel took 5.08-5.12 us
// against 4.80-4.86 at 256 without a grid level, and 6.12-6.15 against
// 5.87-5.89 with it (H200, 2^20, bench/bench_merge.cu).
GQ_ARRAY_ROW(SumLitePolicy, 256, 8, 1)
GQ_ARRAY_ROW(DotLitePolicy, 256, 8, 1)
GQ_ARRAY_ROW(RmsLitePolicy, 256, 8, 1)

#undef GQ_ARRAY_ROW

// The largest grid of the array reductions: scratch holds one partial per
// block (cuda_state.cuh).
constexpr int ARRAY_MAX_BLOCKS = 4096;
// Tried and dropped (H200, 2026-11-22): a 256x1 shape for n <= 2^21 spread
// 2^20 doubles over more blocks but the last-block merge of ~1000 partials
// cost more than it gained: 12.6 us against 10.8 us at 2^20.

// Monte Carlo (mc_reduce.cuh): compute-bound as well (Philox's integer
// multiplies, then f in FP64), no memory traffic on the fused path.  QUADS
// Philox quads in flight per thread for ILP; one for D > 4, where the points
// of a quad alone take 4 D registers per real.  H200, 2^28 samples of
// sqrt(1-u^2), median of 20 (2026-11-22): quads x block 1x256 0.540 ms,
// 2x256 0.490, 2x512 0.468, 4x256 0.452 (4.1x the host-API path).
// GQ_MC_BLOCK / GQ_MC_QUADS override it for a sweep.
#ifndef GQ_MC_BLOCK
#define GQ_MC_BLOCK 256
#endif
#ifndef GQ_MC_QUADS
#define GQ_MC_QUADS 4
#endif
struct McPolicy {
  static constexpr int BLOCK = GQ_MC_BLOCK;
  static constexpr int quads(int dims) { return dims <= 4 ? GQ_MC_QUADS : 1; }
};

} // namespace gq
#endif
