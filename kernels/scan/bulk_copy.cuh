// bulk_copy.cuh — Hopper's bulk-copy engine (sm_90: cp.async.bulk, the
// engine behind TMA) for one contiguous run of bytes between global and
// shared memory, and the mbarrier that says a load has landed.
//
// Why a scan tile goes through it: a block that loads its tile with one
// instruction per item per thread has its loads issued in a burst and then
// nothing in flight while it scans; one bulk copy per tile, issued by one
// thread, moves the tile with no per-item instructions and no registers.
// H200, 2^28 doubles copied through one 30 KiB tile per block
// (bench/bench_tiles.cu, 2026-11-24): 0.964-0.975 of a device copy, against
// 0.928 staged by the threads and 0.91-0.92 for persistent blocks.
//
// Requirements (PTX ISA, cp.async.bulk): global and shared addresses 16-byte
// aligned, a size that is a multiple of 16.  The callers check the global
// side per tile (bulk_aligned) and fall back to per-thread accesses.
//
// Memory ordering:
//   load:  the copy is done by the async proxy and counted against the
//          mbarrier's transaction bytes (expect_tx); a thread that has seen
//          the barrier's phase complete (try_wait) sees the bytes.
//   store: the threads' st.shared writes are made visible to the async proxy
//          by fence.proxy.async.shared::cta (each writer, before the barrier
//          that lets the issuing thread go); the issuing thread waits until
//          the engine has read the shared bytes (wait_group.read) before the
//          block may exit and its shared memory be reused.
#ifndef GQ_SCAN_BULK_COPY_CUH
#define GQ_SCAN_BULK_COPY_CUH

namespace gq {
namespace scan {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GQ_BULK_COPY 1
#else
#define GQ_BULK_COPY 0
#endif

__device__ __forceinline__ unsigned shared_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// An mbarrier expecting one arrival (the issuing thread's) per phase.
__device__ __forceinline__ void bulk_barrier_init(unsigned long long *bar)
{
#if GQ_BULK_COPY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
  // The initialisation visible to the async proxy that completes the phase.
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// bytes from global src to shared dst; the barrier's phase completes when
// they have landed.  One thread.
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *bar)
{
#if GQ_BULK_COPY
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
#endif
}

// Until the barrier's phase `parity` has completed.  Every thread that reads
// the bytes.
__device__ __forceinline__ void bulk_wait(unsigned long long *bar, unsigned parity)
{
#if GQ_BULK_COPY
  unsigned done;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(shared_address(bar)), "r"(parity)
                 : "memory");
  } while (!done);
#endif
}

// Each thread that wrote the shared bytes a bulk store will read, before
// the barrier that releases the storing thread.
__device__ __forceinline__ void bulk_fence_writes()
{
#if GQ_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// bytes from shared src to global dst, and the wait until the engine has
// read src (after which src may be rewritten or the block exit).  One thread.
__device__ __forceinline__ void bulk_store(void *dst, const void *src, unsigned bytes)
{
#if GQ_BULK_COPY
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(shared_address(src)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
}

// Whether p may be a bulk copy's global address (and this build has the engine).
template <class T> __device__ __forceinline__ bool bulk_aligned(const T *p)
{
  return GQ_BULK_COPY && (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

} // namespace scan
} // namespace gq
#endif
