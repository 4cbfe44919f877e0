// hist.cuh — the device level of the histogram: a plan (method, grid,
// cluster, shared memory) for a device and a shape, and its launches over
// device data into zeroed device totals.  The library (hist.cu's
// gq_cuda_hist) and bench/bench_hist.cu use exactly these.
#ifndef GQ_HIST_CUH
#define GQ_HIST_CUH

#include <cuda_runtime.h>

#include "../../src/lib/hist_bin.h"
#include "../../src/gpuquad.h"

namespace gq {
namespace hist {

// Elements per launch: a block's (or a cluster's) 32-bit counters see at
// most this many additions, so none can wrap; the totals are 64-bit.
constexpr size_t MAX_LAUNCH_ELEMENTS = (size_t)1 << 31;

struct Device {
  int sms, cc_major;
  size_t smem_optin; // cudaDevAttrMaxSharedMemoryPerBlockOptin
};
int device_of(int device, Device *d);

// One pass: n elements of x (and y in 2-D, values when sums) into the
// totals, keys = cells + 3 (under, over, NaN after the cells).
struct Args {
  const double *x, *y, *values;
  size_t n;
  gq_hist_axis ax, ay; // ay unused in 1-D
  int dims;
  bool vector;                // x, y and values 16-byte aligned (enqueue sets it)
  unsigned keys;
  unsigned long long *counts; // keys
  double *sums, *errs;        // keys each, or nullptr (sums only / counts only)
};

// Launch variants of SHARED counts (hist.cu's VARIANTS; 0 the baseline,
// which every method runs): shapes, pipelining, key, packed bins.
constexpr int NVARIANTS = 12;
const char *variant_name(int variant); // nullptr past NVARIANTS

struct Plan {
  int method;       // gq_hist_method that runs (after fallbacks)
  int sum;          // SumMode
  int variant;      // VARIANTS row
  unsigned grid, block, items, cluster; // items per thread in 1-D (2-D rows beyond 0: half)
  size_t smem;      // dynamic shared memory per block
};

// The method AUTO picks: privatised bins with __match_any_sync aggregation
// while the keys fit in a block's shared memory with two blocks per SM
// (aggregation turns a hot bin's 32 serialised atomics into one; on uniform
// data a warp rarely shares a key at 256 bins and the match costs little
// beside a load of 8 bytes), a cluster's distributed shared memory beyond
// that on sm_90, global atomics where neither holds the bins.
int method_for(const Device &d, unsigned keys, int sum);
// The plan for `method` (AUTO resolved); SHARED, MATCH and BALLOT with keys
// beyond a block's shared memory become CLUSTER, and CLUSTER before sm_90
// or beyond 8 blocks' shared memory GLOBAL: plan->method says what runs.
int plan(const Device &d, int method, unsigned keys, int sum, Plan *plan);
// The plan of `method` (not AUTO) as it stands, CLUSTER with `cluster` blocks
// (1 .. 8; others ignore it): plan()'s last step, and the bench's sweep of
// cluster sizes.  GQ_EINVAL where a block's bins exceed its shared memory,
// or no such cluster runs here.
int plan_cluster(const Device &d, int method, unsigned keys, int sum, unsigned cluster, Plan *plan);
// plan_cluster() with a VARIANTS row (beyond 0 for SHARED counts only; a
// packed row takes 2 or 1 bytes a key, so 65536 bins fit one block): the bench's
// side-by-side rows.  GQ_EINVAL where it cannot run.
int plan_variant(const Device &d, int method, unsigned keys, int sum, unsigned cluster, int variant, Plan *plan);
// Enqueue the pass on `stream` (launches of at most MAX_LAUNCH_ELEMENTS).
int enqueue(const Plan &plan, const Args &a, cudaStream_t stream);

} // namespace hist
} // namespace gq
#endif
