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

template <class Op> struct ScanShape {
  using type = Shape<256, 16>;
};
// The second phase of three: one block over the tiles' totals.
constexpr int TOTALS_BLOCK = 1024;

} // namespace scan
} // namespace gq
#endif
