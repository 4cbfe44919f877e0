// policy.cuh — launch shapes: one row per kind of work and architecture,
// with the measurement that chose each.  Grids are sized from the device
// (blocks resident per multiprocessor x multiprocessors: launch.cuh), never
// from n alone.  The host picks the row of the device it runs on
// (with_rows); the JIT names its kernels from the same row.
//
// A sweep (bench/policy_sweep.sh, bench/gpu_reduce.sh) builds the library
// with -DGQ_SWEEP_ROWS: bench/sweep_rows.cuh's rows, whose shapes come from
// the command line, stand in for these.
#ifndef GQ_POLICY_CUH
#define GQ_POLICY_CUH

namespace gq {

template <int BLOCK_, int ITEMS_, int MIN_BLOCKS_ = 1> struct Shape {
  static constexpr int BLOCK = BLOCK_, ITEMS = ITEMS_, MIN_BLOCKS = MIN_BLOCKS_;
};

#ifdef GQ_SWEEP_ROWS
#include "../../bench/sweep_rows.cuh"
#else
// sm_90 (H100, H200).
struct RowsSm90 {
  // Compute-bound maps over a grid (the trapezoid): no memory traffic, so
  // what matters is ILP (ITEMS independent evaluations per thread before
  // they are summed) and enough warps to hide the FP64 pipeline latency.
  // H200, circle, n = 1e9, median of 20 (bench/policy_sweep.sh, 2026-11-22):
  // 128x16 0.724 ms, 256x8 0.746, 256x16 0.715, 256x32 0.715, 512x8 0.731,
  // 512x16 0.692.  512 x 2 keys is also the most warp partials (16 x 2) that
  // fit one warp.
  using Grid = Shape<512, 16>;
  // A grid of at most one Grid tile (8192 points) takes this shape instead,
  // in its single launch and packed alike (jit.cu, grid_batch.cu), so their
  // bits stay one: at 512 x 16 such a problem is one block whose threads
  // evaluate a point or two and then spend the block's time in its tree.
  // H200, 10^5 packed problems of 1001 points against one of 10^8 at 512 x
  // 16, throughput (bench_batch, 2026-11-25): 512x16 (3 blocks an SM) 33.1%,
  // 128x16 (6) 56.5%, 64x16 (16) 70.2%, 128x8 (8) 70.8%.  MIN_BLOCKS goes to
  // the packed kernel's __launch_bounds__; a single launch of at most 8
  // blocks keeps 1.
  using GridSmall = Shape<128, 8, 8>;
  // The shape of the fast sums when an expression's sines and cosines
  // rotate (grid_rot_source.cuh), single and packed alike.  Its items go in
  // groups of 4 (40 registers, 16 bytes spilled at 3 blocks an SM), so a
  // thread can take more of them: one sincos a term per thread and tile
  // serves them all, and a packed problem of 10^5 points is 7 blocks
  // instead of 13, each paying its parameters, table and tree once.
  // H200, sin(k x)/(1+x), 10^9 points, single / 10,000 packed (2026-11-25,
  // BENCHMARKS.md): 512x16 at 1, 2, 3 blocks an SM 1.75 / 2.38, 1.75 /
  // 2.38, 1.72 / 2.11 ms.
  using GridRot = Shape<512, 32, 3>;

  // Memory-bound array reductions (sum, dot, rms, stats over device arrays):
  // what matters is bytes in flight per SM (ITEMS 16-byte vector loads per
  // array per thread, all issued before any is used) and a grid of resident
  // blocks only.  Per kind, because the accumulators differ in registers
  // (StatsThread holds ~30, SumThread ~8).  H200, 2^28 doubles
  // (BENCHMARKS.md, 2026-11-22): one array, 8 items (128 bytes in flight
  // per thread; 4 items: 0.958x CUB); two arrays, 4 items (128 bytes).
  using Sum = Shape<256, 8>;
  using Dot = Shape<256, 4>;
  using Rms = Shape<256, 4>;
  // MIN_BLOCKS goes to __launch_bounds__ of the fast pass only (the
  // classifying rerun keeps 1).  Two sets of sums (accumulators.cuh) need
  // MIN_BLOCKS 2 to keep 2 blocks of 256 per SM: 116 / 118 registers,
  // nothing spilled (bench/stats_sweep.sh, H200, 2026-11-23: 779 us at 2^28,
  // 16.7 at 2^20).
  using Stats = Shape<256, 4, 2>;
  // The lite accumulators (one-shot and asynchronous sum, dot, rms): 8 items
  // of a dot keep 256 bytes per thread in flight.  512 threads would halve
  // the partials the last block merges, but the dot kernel took 5.08-5.12 us
  // against 4.80-4.86 at 256 without a grid level, and 6.12-6.15 against
  // 5.87-5.89 with it (H200, 2^20, bench/bench_merge.cu).
  using SumLite = Shape<256, 8>;
  using DotLite = Shape<256, 8>;
  using RmsLite = Shape<256, 8>;

  // Monte Carlo: compute-bound (Philox's integer multiplies, then f in
  // FP64), no memory traffic.  ITEMS Philox quads in flight per thread; one
  // for D > 4, where the points of a quad alone take 4 D registers per real.
  // H200, 2^28 samples of sqrt(1-u^2), median of 20 (2026-11-22): quads x
  // block 1x256 0.540 ms, 2x256 0.490, 2x512 0.468, 4x256 0.452.
  using Mc = Shape<256, 4>;
  using McWide = Shape<256, 1>;

  // Product grids (product_source.cuh): compute-bound like Monte Carlo, a
  // point costing its digits' carries (integer pipe) and 2 table loads per
  // axis besides f.  H200, 501^3 trapezoid of 1 + |x|^2, tables in global
  // memory: 256x4 0.331 ms (2 blocks per SM), with MIN_BLOCKS 3 (80
  // registers) 0.446 ms, for an FP64 floor of 0.098 ms; 40% of the stalls
  // waited for the load queue, hence tables in shared memory.
  using Product = Shape<256, 4>;
  using ProductWide = Shape<256, 2>; // D > 3: D coordinates per item
};
// sm_80 (A100): not measured — no A100 is lent to this project; the sm_90
// rows, which keep the same bytes in flight per SM on its 108 SMs.  A
// measurement replaces this line with a row of its own.
struct RowsSm80 : RowsSm90 {};
#endif

// f(rows) with the rows of a device of compute capability cc_major.x.
template <class F> auto with_rows(int cc_major, F f)
{
  return cc_major >= 9 ? f(RowsSm90()) : f(RowsSm80());
}

// The largest grid of the last-block levels: the scratch holds one partial
// per block (device.cu).
constexpr int MAX_BLOCKS = 4096;
// Tried and dropped (H200, 2026-11-22): a 256x1 shape for n <= 2^21 spread
// 2^20 doubles over more blocks but the last-block merge of ~1000 partials
// cost more than it gained: 12.6 us against 10.8 us at 2^20.

} // namespace gq
#endif
