// scan_policy.cuh — the scans' launch shapes.  A tile is BLOCK x ITEMS
// items; larger tiles mean fewer look-back steps and tile states, smaller
// ones more blocks resident to hide them.  Each row names the measurement
// that chose it (bench_scan time: every variant side by side with CUB and a
// copy, each verified first).
#ifndef GQ_SCAN_POLICY_CUH
#define GQ_SCAN_POLICY_CUH

#include "../engine/policy.cuh"
#include "scan_ops.cuh"

namespace gq {
namespace scan {

// BLOCK, ITEMS, MIN_BLOCKS (lookback_kernel's __launch_bounds__ minimum:
// 0 states none and leaves the registers to the compiler, 70 for doubles,
// three blocks of 256 per multiprocessor; 1 would let it take 96, two).
// bench_scan times the alternatives side by side.  H200, 2^28 doubles
// (05:45Z): 256x16 with no minimum 1839 us, with 4 blocks (a cap of 64
// registers) 1668 us; per-warp staging and smaller tiles were slower
// (1965-2345 us); CUB 1302, a copy 1008.  The cumulative integral of 10^9
// points: 6.75 ms, with 4 blocks 6.00, and with g_0/2 once per thread and
// warp stores too 5.63 ms.
// Three-phase array scans (ITEMS even: the staging's padding, tile.cuh).
template <class Op> struct ScanShape {
  using type = Shape<256, 16, 4>;
};
// The cumulative integral (lookback_kernel over the grid, CumulativeSink).
// H200, 10^9 points (2026-11-24 23:52Z, bench_scan's own nvcc builds):
// 256x16/4 with warp stores 5.60 ms; with bulk stores (ITEMS odd) 256x15/4
// 5.63, 256x17/4 5.38, 256x19/4 5.19, 256x21/3 5.53, 256x17/5 6.32, and
// 256x17/4 through the block 5.78.  The library's NVRTC module at 256x17/4
// took 7.09 ms in the same run, and at 256x19/3 7.44 (the nvcc build 5.74,
// 00:10Z); not yet explained (the bulk path is compiled there, and the
// trapezoid kernel does not spill at 256x19/3), so the library keeps
// 256x16/4 (5.58-5.60 ms in both builds).
struct CumulativeShape {
  using type = Shape<256, 16, 4>;
};
// The one-pass scan of arrays (bulk_lookback_kernel): tiles moved by the
// bulk-copy engine, BLOCK x ITEMS with ITEMS odd.  H200, 2^28 doubles,
// bench_scan time 11 (2026-11-24 23:25Z; a copy 1014 us, CUB 1311):
// 256x15 with 6 blocks 1515 us, 256x17/6 1447, 256x19/5 1455, 256x21/5
// 1405, 256x23/4 1449, 320x17/4 1499, 384x15/4 1460; the block-staged
// lookback_kernel at 256x16/4 1695.  The copy alone through the same
// structure (bench_tiles): 0.96-0.975 of a device copy, so what is left is
// the scan's per-tile work and look-back, not the data movement.
template <class Op> struct ArrayScanShape {
  using type = Shape<256, 21, 5>;
};
// Floats: 256 x 21 with the compiler's registers (a cap for 5 or 6 blocks
// spilled), not timed apart.
template <> struct ArrayScanShape<FloatSum> {
  using type = Shape<256, 21, 0>;
};
// The cumulative trapezoid subtracts g_0/2 once per thread (1) or once per
// point (0): CumulativeSink::fold_start.
constexpr int CUMULATIVE_FOLD_START = 1;
// ... and stores every value through warp staging, 16 bytes at a time (1),
// or through the block (0): CumulativeSink::warp_store.
constexpr int CUMULATIVE_WARP_STORE = 1;
// ... and whole tiles through the bulk-copy engine (1; takes effect where
// CumulativeShape's ITEMS is odd, bench_scan's variants): CumulativeSink::bulk_store.
constexpr int CUMULATIVE_BULK_STORE = 1;
// The second phase of three: one block over the tiles' totals.
constexpr int TOTALS_BLOCK = 1024;

} // namespace scan
} // namespace gq
#endif
