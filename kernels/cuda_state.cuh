// cuda_state.cuh — what a CUDA context owns: allocated once at open, so the
// reductions allocate nothing per call.
#ifndef GQ_CUDA_STATE_CUH
#define GQ_CUDA_STATE_CUH

#include <cuda_runtime.h>

#include "../src/lib/compensated.h"

enum { GQ_CUDA_ACC_SLOTS = 8 };
// Room for the largest lite accumulator's partial (array_reduce.cu checks).
enum { GQ_LITE_PART_BYTES = 32 };

struct gq_jit_module; // jit.cu: expression kernels loaded in this context
struct gq_mc_state;   // mc.cu: Monte Carlo scratch, created on first use
struct gq_launch_cache; // launch_cache.cu: graphs of repeated launches

struct gq_cuda_state {
  int device;
  int sms;
  int cc_major, cc_minor;   // compute capability: NVRTC's target
  int jit_cache;            // use the on-disk kernel cache
  gq_jit_module *modules;   // loaded expression kernels, newest first
  cudaStream_t stream;      // where the work goes: own_stream or the caller's
  cudaStream_t own_stream;
  cudaEvent_t start, stop;
  gq_csum *d_acc; // GQ_CUDA_ACC_SLOTS accumulators in device memory
  gq_csum *h_acc; // pinned host copy

  // Data reductions (array_reduce.cu): one partial per block, the
  // last-block ticket counter (left at 0 by every launch), and three result
  // slots, device and pinned host: 0 and 1 for the two chunks a stream has
  // in flight, 2 for synchronous calls (which may run between them).
  void *d_partials;   // gq::ARRAY_MAX_BLOCKS x the largest accumulator
  void *d_lite_partials; // gq::ARRAY_MAX_BLOCKS x GQ_LITE_PART_BYTES, poisoned between launches
                         //   (the lite accumulators' unfenced last block, last_block.cuh)
  unsigned *d_counter;
  void *d_result;     // 3 x gq_reduce_acc
  void *h_result;     // 3 x gq_reduce_acc, pinned
  void *h_mapped;     // 1 x gq_reduce_acc, pinned and mapped: the full path's and
  void *d_mapped;     //   the one-shot calls' last block writes it over PCIe directly
  unsigned long long *h_done, *d_done; // mapped: the ticket of the last finished full
  unsigned long long *d_seq;           //   reduction, counted on the device (d_seq)
  unsigned long long ticket;           //   and on the host (array_reduce.cu)
  gq_launch_cache *launches;           // NULL until the first cached launch

  // Streaming (stream.cu), allocated on the first streamed reduction and
  // kept: two pinned host buffers and two device buffers per input, a copy
  // stream beside `stream`, and events that order and time the two.
  void *h_stage[2][2]; // [buffer][input]
  void *d_stage[2][2];
  cudaStream_t copy_stream;
  cudaEvent_t copied[2], done[2], copy_start[2], copy_stop[2], kernel_start[2], kernel_stop[2];
  int streaming_ready;
  gq_mc_state *mc; // NULL until gpuquad mc runs here
};

// jit.cu: unload the expression kernels of a context.
void gq_jit_release(gq_cuda_state *st);
// mc.cu: free the Monte Carlo scratch (buffers, cuRAND generator).
void gq_mc_release(gq_cuda_state *st);

#endif
