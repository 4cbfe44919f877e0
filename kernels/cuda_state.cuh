// cuda_state.cuh — what a CUDA context owns: allocated once at open, so the
// reductions allocate nothing per call.
#ifndef GQ_CUDA_STATE_CUH
#define GQ_CUDA_STATE_CUH

#include <cuda_runtime.h>

#include "../src/lib/compensated.h"
#include "../src/lib/internal.h"
#include "../src/lib/poison.h"

// The Atomic grid level's sums (keys of a grid sum).
enum { GQ_KEYS_MAX = 16 };
// Room for the largest lite accumulator's partial (array_reduce.cu checks).
enum { GQ_LITE_PART_BYTES = 32 };
// The result slots of d_result / h_result: one per chunk a stream has in
// flight, and one for a call that is waited for (which may run between them).
enum { GQ_SLOT_STREAM0 = 0, GQ_SLOT_STREAM1 = 1, GQ_SLOT_CALL = 2, GQ_RESULT_SLOTS = 3 };
// Kernels whose occupancy a context remembers (launch.cuh).
enum { GQ_OCCUPANCY_SLOTS = 64 };

struct gq_jit_module; // jit.cu: expression kernels loaded in this context
struct gq_launch_cache; // launch_cache.cu: graphs of repeated launches
struct gq_scan_state; // kernels/scan/scan.cu: the scans' tile states
struct gq_store_cache; // kernels/adaptive/store.cu: the adaptive region store's buffers

struct gq_cuda_state {
  int device;
  int sms;
  int cc_major, cc_minor;   // compute capability: NVRTC's target
  int jit_cache;            // use the on-disk kernel cache
  gq_jit_module *modules;   // loaded expression kernels, newest first
  cudaStream_t stream;      // where the work goes: own_stream or the caller's
  cudaStream_t own_stream;
  cudaEvent_t start, stop;
  gq_csum *d_sums; // GQ_KEYS_MAX sums: the Atomic grid level's target
  gq_csum *h_sums; // pinned host copy
  struct {
    const void *kernel;
    int per_sm;
  } occupancy[GQ_OCCUPANCY_SLOTS]; // blocks resident per SM, per kernel (launch.cuh)
  int occupancy_used;

  // The last-block grid levels (engine/grid_levels.cuh): one partial per
  // block, the ticket counter (left at 0 by every launch), and the result
  // slots (GQ_SLOT_*), device and pinned host.
  void *d_partials;   // gq::MAX_BLOCKS x the largest accumulator
  void *d_lite_partials; // gq::MAX_BLOCKS x GQ_LITE_PART_BYTES, poisoned between launches
                         //   (the unfenced last block of the lite accumulators)
  unsigned *d_counter;
  void *d_result;     // GQ_RESULT_SLOTS x gq_reduce_acc
  void *h_result;     // GQ_RESULT_SLOTS x gq_reduce_acc, pinned
  void *h_mapped;     // 1 x gq_reduce_acc, pinned and mapped: the full path's and
  void *d_mapped;     //   the one-shot calls' last block writes it over PCIe directly
  unsigned long long *h_done, *d_done; // mapped: the ticket of the last finished full
  unsigned long long *d_seq;           //   reduction, counted on the device (d_seq)
  unsigned long long ticket;           //   and on the host (array_reduce.cu)
  gq_launch_cache *launches;           // NULL until the first cached launch
  void *d_tables;                      // product grids' axis tables (product.cu),
  size_t tables_bytes;                 //   grown on demand and kept
  gq_scan_state *scan;                 // NULL until the first scan
  gq_store_cache *adaptive_store;      // NULL until the first adaptive integral closes
  // A deterministic array reduction's buffers (exact_reduce.cu), NULL until
  // the first: on the device the grid's words, total tally and ticket, left
  // zeroed by each reduction's last block, then one tally per block (room
  // for exact_blocks); in pinned mapped memory the words and tally that last
  // block exports, poisoned by the host before each reduction.
  void *d_exact;
  unsigned exact_blocks;
  int exact_dirty;                     // a failed reduction may have left the head unzeroed
  void *h_exact, *h_exact_dev;         // mapped: host and device addresses

  // Streaming (stream.cu), allocated on the first streamed reduction and
  // kept: two pinned host buffers and two device buffers per input, a copy
  // stream beside `stream`, and events that order and time the two.
  void *h_stage[2][2]; // [buffer][input]
  void *d_stage[2][2];
  cudaStream_t copy_stream;
  cudaEvent_t copied[2], done[2], copy_start[2], copy_stop[2], kernel_start[2], kernel_stop[2];
  int streaming_ready;
};

// A result slot of this context, in device memory.
inline void *gq_result_slot(gq_cuda_state *st, int slot)
{
  return static_cast<char *>(st->d_result) + (size_t)slot * sizeof(gq_reduce_acc);
}

// jit.cu: unload the expression kernels of a context.
void gq_jit_release(gq_cuda_state *st);
// kernels/scan/scan.cu: free the scans' state.
void gq_scan_release(gq_cuda_state *st);
// kernels/adaptive/store.cu: free the adaptive region store's buffers.
void gq_store_release(gq_cuda_state *st);

#endif
