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
// bench_scan times the alternatives side by side.  H200, 2^28 doubles
// (05:45Z): 256x16 with no minimum 1839 us, with 4 blocks (a cap of 64
// registers) 1668 us; per-warp staging and smaller tiles were slower
// (1965-2345 us); CUB 1302, a copy 1008.  The cumulative integral of 10^9
// points: 6.75 ms, with 4 blocks 6.00, and with g_0/2 once per thread and
// warp stores too 5.63 ms.
template <class Op> struct ScanShape {
  using type = Shape<256, 16, 4>;
};
// Array scans stage their tiles per warp (WarpArraySource/WarpArraySink,
// tile.cuh, 16-byte accesses: no block barrier around the transposes) when
// true, through the whole block (ArraySource/ArraySink) when false.
constexpr bool SCAN_WARP_STAGING = false;
// The cumulative trapezoid subtracts g_0/2 once per thread (1) or once per
// point (0): CumulativeSink::fold_start.
constexpr int CUMULATIVE_FOLD_START = 1;
// ... and stores every value through warp staging, 16 bytes at a time (1),
// or through the block (0): CumulativeSink::warp_store.
constexpr int CUMULATIVE_WARP_STORE = 1;
// The second phase of three: one block over the tiles' totals.
constexpr int TOTALS_BLOCK = 1024;

} // namespace scan
} // namespace gq
#endif
