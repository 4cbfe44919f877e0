// cuda_state.cuh — what a CUDA context owns: allocated once at open, so the
// reductions allocate nothing per call.
#ifndef GQ_CUDA_STATE_CUH
#define GQ_CUDA_STATE_CUH

#include <cuda_runtime.h>

#include "../src/lib/compensated.h"

enum { GQ_CUDA_ACC_SLOTS = 8 };

struct gq_jit_module; // jit.cu: expression kernels loaded in this context
struct gq_mc_state;   // mc.cu: Monte Carlo scratch, created on first use

struct gq_cuda_state {
  int device;
  int sms;
  int cc_major, cc_minor;   // compute capability: NVRTC's target
  int jit_cache;            // use the on-disk kernel cache
  gq_jit_module *modules;   // loaded expression kernels, newest first
  cudaStream_t stream;
  cudaEvent_t start, stop;
  gq_csum *d_acc; // GQ_CUDA_ACC_SLOTS accumulators in device memory
  gq_csum *h_acc; // pinned host copy
  gq_mc_state *mc; // NULL until gpuquad mc runs here
};

// jit.cu: unload the expression kernels of a context.
void gq_jit_release(gq_cuda_state *st);
// mc.cu: free the Monte Carlo scratch (buffers, cuRAND generator).
void gq_mc_release(gq_cuda_state *st);

#endif
