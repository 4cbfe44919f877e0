// array_reduce.cuh — what stream.cu needs from array_reduce.cu: enqueue one
// array reduction on a stream, its result going to result slot `slot`
// (0 or 1) of the context's scratch, without synchronising.
#ifndef GQ_ARRAY_REDUCE_CUH
#define GQ_ARRAY_REDUCE_CUH

#include <cuda_runtime.h>

#include "cuda_state.cuh"
#include "../src/lib/internal.h"

int gq_cuda_array_enqueue(gq_cuda_state *st, const gq_array_reduce *p, cudaStream_t stream, int slot);
size_t gq_cuda_acc_size(gq_reduce_kind kind); // bytes of the kind's accumulator

#endif
