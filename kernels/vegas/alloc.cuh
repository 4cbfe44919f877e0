// alloc.cuh — VEGAS+ between passes on the device (alloc.cu): the pass's
// estimate from the hypercubes' sums, and the next pass's samples per
// hypercube, without the hypercubes' arrays leaving the GPU.  Only the
// totals (a few doubles) and the training cells go to the host, which
// refines the grids (D x bins: little work) and sends their edges back.
// The formulas are vegas_alloc.h's, which the CPU backend's host code uses.
#ifndef GQ_VEGAS_ALLOC_CUH
#define GQ_VEGAS_ALLOC_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "../../src/lib/compensated.h"

namespace gq {
namespace vegas {

// The pass over every hypercube: sum of means, of variances / n (both to be
// scaled by the volume), the samples, the hypercubes whose sums are not
// finite, and the largest sigma^beta (reallocate's scale; NaN where one is
// not finite).
struct Totals {
  gq_csum mean, var;
  double spread_max;
  unsigned long long samples, nonfinite;
};

// Device scratch the two steps need for hcubes hypercubes: the per-block
// totals and CUB's scan storage.
size_t alloc_scratch_bytes(unsigned hcubes);

// Totals of the pass into *result (device memory), sigma_h^beta into
// spread[h] for reallocate.
cudaError_t hcube_totals(const double *sum, const double *sum2, const unsigned long long *counts, unsigned hcubes,
                         double beta, double *spread, Totals *result, void *scratch, cudaStream_t stream);

// The next pass's counts by vegas_alloc.h's rule from spread and the
// totals' spread_max, and first_quad[h] = sum of ceil(counts / 4) before h,
// for h up to hcubes.  running: hcubes words (the weights' running sums);
// quads: hcubes + 1 words.
cudaError_t reallocate(const double *spread, const Totals *totals, unsigned long long per_pass, unsigned hcubes,
                       unsigned long long *running, unsigned long long *counts, unsigned long long *quads,
                       unsigned long long *first_quad, void *scratch, cudaStream_t stream);

} // namespace vegas
} // namespace gq
#endif
