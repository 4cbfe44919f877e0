// scan_policy.cuh — the scans' launch shapes.  A tile is BLOCK x ITEMS
// items; larger tiles mean fewer look-back steps and tile states, smaller
// ones more blocks resident to hide them.  Not yet measured on a GPU:
// 256 x 16 (32 KiB of doubles per tile, 34 KiB of shared memory with the
// padding: six blocks per H200 multiprocessor) follows CUB's tuning for
// 8-byte scans on sm_90 (its ScanPolicy: 128-256 threads, 12-16 items).
// bench/gpu_scan.sh prints what replaces this line.
#ifndef GQ_SCAN_POLICY_CUH
#define GQ_SCAN_POLICY_CUH

#include "../engine/policy.cuh"

namespace gq {
namespace scan {

// BLOCK, ITEMS, MIN_BLOCKS (lookback_kernel's __launch_bounds__ minimum:
// 0 states none and leaves the registers to the compiler, 70 for doubles,
// three blocks of 256 per multiprocessor; 1 would let it take 96, two).
// bench_scan times the alternatives side by side.
template <class Op> struct ScanShape {
  using type = Shape<256, 16, 0>;
};
// Array scans stage their tiles per warp (WarpArraySource/WarpArraySink,
// tile.cuh, 16-byte accesses: no block barrier around the transposes) when
// true, through the whole block (ArraySource/ArraySink) when false.
constexpr bool SCAN_WARP_STAGING = false;
// The cumulative trapezoid subtracts g_0/2 once per thread (1) or once per
// point (0): CumulativeSink::fold_start.
constexpr int CUMULATIVE_FOLD_START = 0;
// ... and stores every value through warp staging, 16 bytes at a time (1),
// or through the block (0): CumulativeSink::warp_store.
constexpr int CUMULATIVE_WARP_STORE = 0;
// The second phase of three: one block over the tiles' totals.
constexpr int TOTALS_BLOCK = 1024;

} // namespace scan
} // namespace gq
#endif
