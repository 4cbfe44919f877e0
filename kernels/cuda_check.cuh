// cuda_check.cuh — every CUDA call and launch goes through GQ_CUDA_TRY, which
// turns a failure into the library's status (GQ_ECUDA, or GQ_ENOMEM for an
// allocation) with the call and CUDA's message in gq_last_error().
#ifndef GQ_CUDA_CHECK_CUH
#define GQ_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "../src/lib/internal.h"

namespace gq {
inline int cuda_status(cudaError_t e, const char *what)
{
  if (e == cudaSuccess)
    return GQ_SUCCESS;
  const int status = e == cudaErrorMemoryAllocation ? GQ_ENOMEM : GQ_ECUDA;
  return gq_fail(status, "%s: %s", what, cudaGetErrorString(e));
}
} // namespace gq

#define GQ_CUDA_TRY(call)                                          \
  do {                                                             \
    const int gq_status_ = gq::cuda_status((call), #call);         \
    if (gq_status_ != GQ_SUCCESS)                                  \
      return gq_status_;                                           \
  } while (0)

// After a launch: configuration errors show up at once, execution errors at
// the next synchronisation (which is also checked).
#define GQ_CUDA_LAUNCH_CHECK() GQ_CUDA_TRY(cudaGetLastError())

#endif
