// host_spin.cuh — the host's wait for a result a kernel writes into mapped
// host memory (the one-shot reductions, fast and deterministic): spinning
// on a word the kernel writes last costs less than a stream synchronize.
#ifndef GQ_HOST_SPIN_CUH
#define GQ_HOST_SPIN_CUH

#include <atomic>

#include "cuda_check.cuh"
#include "cuda_state.cuh"

namespace gq {

// Spin until done() holds, asking the stream now and then so that a kernel
// that failed cannot hang the host; `what` names the work in messages.
template <class Done> int spin(gq_cuda_state *st, Done done, const char *what = "data reduction")
{
  for (unsigned k = 1; !done(); k++) {
    if (k % 65536 == 0) {
      const cudaError_t e = cudaStreamQuery(st->stream);
      if (e == cudaSuccess) {
        if (!done())
          return gq_fail(GQ_ECUDA, "%s: the kernel finished without its result", what);
        break;
      }
      if (e != cudaErrorNotReady)
        return cuda_status(e, what);
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return GQ_SUCCESS;
}

} // namespace gq

#endif
