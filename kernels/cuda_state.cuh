// cuda_state.cuh — what a CUDA context owns: allocated once at open, so the
// reductions allocate nothing per call.
#ifndef GQ_CUDA_STATE_CUH
#define GQ_CUDA_STATE_CUH

#include <cuda_runtime.h>

#include "../src/lib/compensated.h"

enum { GQ_CUDA_ACC_SLOTS = 8 };

struct gq_cuda_state {
  int device;
  int sms;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  gq_csum *d_acc; // GQ_CUDA_ACC_SLOTS accumulators in device memory
  gq_csum *h_acc; // pinned host copy
};

#endif
