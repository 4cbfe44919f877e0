// launch_cache.cu — one-node graphs for repeated launches (launch_cache.cuh):
// GRAPHS instantiated graphs per context, least recently used out first,
// and a ring of the SEEN keys last launched plainly, so that a key is
// instantiated on its second launch (a one-off call pays no instantiation).
#include <cstring>
#include <new>

#include "cuda_check.cuh"
#include "launch_cache.cuh"

struct gq_launch_cache {
  static constexpr int GRAPHS = 16, SEEN = 16;
  struct Entry {
    gq_launch_key key;
    cudaGraphExec_t exec;
    unsigned long long used;
  } graphs[GRAPHS];
  int ngraphs = 0;
  gq_launch_key seen[SEEN];
  int nseen = 0, next_seen = 0;
  unsigned long long clock = 0;
};

namespace {

bool same(const gq_launch_key &a, const gq_launch_key &b) { return memcmp(&a, &b, sizeof a) == 0; }

int plain(const gq_launch_key &key, void **args, cudaStream_t stream)
{
  GQ_CUDA_TRY(cudaLaunchKernel(key.func, dim3(key.grid), dim3(key.block), args, 0, stream));
  return GQ_SUCCESS;
}

// An executable one-node graph of the launch, or nullptr (then the caller
// launches plainly: a graph is an optimisation, never a failure).
cudaGraphExec_t instantiate(const gq_launch_key &key, void **args)
{
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t node;
  cudaGraphExec_t exec = nullptr;
  cudaKernelNodeParams params = {};
  params.func = const_cast<void *>(key.func);
  params.gridDim = dim3(key.grid);
  params.blockDim = dim3(key.block);
  params.kernelParams = args;
  if (cudaGraphCreate(&graph, 0) != cudaSuccess || cudaGraphAddKernelNode(&node, graph, nullptr, 0, &params) != cudaSuccess ||
      cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)
    exec = nullptr;
  if (graph)
    cudaGraphDestroy(graph);
  cudaGetLastError(); // a failure here is not the caller's error
  return exec;
}

} // namespace

int gq_launch(gq_cuda_state *st, const gq_launch_key &key, void **args, cudaStream_t stream)
{
  // Only a caller's stream can be under capture: the context's own stream is
  // never handed out (and is non-blocking, so no capture joins it), which
  // spares the common call the query.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (stream != st->own_stream &&
      (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone)) {
    cudaGetLastError();
    return plain(key, args, stream);
  }
  if (!st->launches)
    st->launches = new (std::nothrow) gq_launch_cache;
  gq_launch_cache *c = st->launches;
  if (!c)
    return plain(key, args, stream);
  for (int i = 0; i < c->ngraphs; i++)
    if (same(c->graphs[i].key, key)) {
      c->graphs[i].used = ++c->clock;
      GQ_CUDA_TRY(cudaGraphLaunch(c->graphs[i].exec, stream));
      return GQ_SUCCESS;
    }
  bool seen = false;
  for (int i = 0; i < c->nseen && !seen; i++)
    seen = same(c->seen[i], key);
  if (!seen) {
    c->seen[c->next_seen] = key;
    c->next_seen = (c->next_seen + 1) % gq_launch_cache::SEEN;
    if (c->nseen < gq_launch_cache::SEEN)
      c->nseen++;
    return plain(key, args, stream);
  }
  cudaGraphExec_t exec = instantiate(key, args);
  if (!exec)
    return plain(key, args, stream);
  int slot = c->ngraphs;
  if (slot == gq_launch_cache::GRAPHS) { // the least recently used goes
    slot = 0;
    for (int i = 1; i < c->ngraphs; i++)
      if (c->graphs[i].used < c->graphs[slot].used)
        slot = i;
    cudaGraphExecDestroy(c->graphs[slot].exec); // freed when its last launch completes
  } else {
    c->ngraphs++;
  }
  c->graphs[slot] = gq_launch_cache::Entry{key, exec, ++c->clock};
  GQ_CUDA_TRY(cudaGraphLaunch(exec, stream));
  return GQ_SUCCESS;
}

void gq_launch_cache_release(gq_cuda_state *st)
{
  if (!st->launches)
    return;
  for (int i = 0; i < st->launches->ngraphs; i++)
    cudaGraphExecDestroy(st->launches->graphs[i].exec);
  delete st->launches;
  st->launches = nullptr;
}
