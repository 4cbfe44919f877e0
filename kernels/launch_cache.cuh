// launch_cache.cuh — kernel launches that repeat go through a one-node CUDA
// graph, instantiated once and replayed.
//
// On the H200 machine a kernel launch costs the host 3.6-4.0 us, while
// cudaGraphLaunch of an instantiated one-kernel graph costs 1.8 us, and the
// round trip of a trivial kernel with the result on the host falls from 7.9
// to 5.2 us (BENCHMARKS.md, "Latency").  A solver checks convergence with the
// same vectors again and again, so gq_dot, gq_rms_diff and their asynchronous
// forms launch through here: the second launch with a key already seen
// instantiates the graph (~tens of us, once), later ones replay it.  Kernel
// arguments are captured by value, so a key must name every argument that
// can change between calls (the kernel's arguments that are the context's
// own, fixed scratch need not be in it).  A stream being captured by the
// caller gets a plain launch, which the capture records.
#ifndef GQ_LAUNCH_CACHE_CUH
#define GQ_LAUNCH_CACHE_CUH

#include <cstdint>

#include "cuda_state.cuh"

struct gq_launch_key {
  const void *func;       // the __global__ function
  unsigned grid, block;
  unsigned char params[128]; // the kernel's one parameter (a Problem, kernel.cuh),
                             //   built zero-filled so that padding compares equal
};

// func<<<key.grid, key.block, 0, stream>>>(args) — replayed from a graph when
// the key has been launched before.  Returns a gq status.
int gq_launch(gq_cuda_state *st, const gq_launch_key &key, void **args, cudaStream_t stream);

// Destroy the context's graphs (context close).
void gq_launch_cache_release(gq_cuda_state *st);

#endif
