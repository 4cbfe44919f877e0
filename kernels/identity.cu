// identity.cu — the result of an empty asynchronous reduction, written into
// the caller's device memory on the context's stream, so that it lands in
// stream order like any other result (after the work enqueued before it,
// before the work enqueued after it) and is captured into a CUDA graph like
// one.  A kernel that takes the value as its parameter rather than a copy:
// a copy from pageable host memory is not allowed under graph capture, and
// the value would need pinned memory that outlives the call.
#include <cstdint>
#include <cstring>

#include "cuda_check.cuh"
#include "cuda_state.cuh"

namespace {

// Room for the largest result an asynchronous form leaves: a gq_rms_result.
constexpr int IDENTITY_WORDS = 8;
static_assert(sizeof(gq_rms_result) <= IDENTITY_WORDS * sizeof(uint64_t), "IDENTITY_WORDS is too small");

struct Words {
  uint64_t w[IDENTITY_WORDS];
};

__global__ void write_words(uint64_t *dst, Words value, int words)
{
  if ((int)threadIdx.x < words)
    dst[threadIdx.x] = value.w[threadIdx.x];
}

} // namespace

extern "C" int gq_cuda_write_identity(gq_cuda_state *st, void *d_dst, const void *value, size_t bytes)
{
  if (bytes % sizeof(uint64_t) != 0 || bytes > sizeof(Words) ||
      reinterpret_cast<uintptr_t>(d_dst) % alignof(uint64_t) != 0)
    return gq_fail(GQ_EINVAL, "asynchronous reduction: the result at %p is not %zu whole aligned words", d_dst,
                   bytes / sizeof(uint64_t));
  GQ_CUDA_TRY(cudaSetDevice(st->device));
  Words words = {};
  std::memcpy(words.w, value, bytes);
  const int n = static_cast<int>(bytes / sizeof(uint64_t));
  write_words<<<1, IDENTITY_WORDS, 0, st->stream>>>(static_cast<uint64_t *>(d_dst), words, n);
  GQ_CUDA_LAUNCH_CHECK();
  return GQ_SUCCESS;
}
