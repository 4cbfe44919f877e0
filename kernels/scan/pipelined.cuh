// pipelined.cuh — the one-pass scan of an array (decoupled look-back, as
// device_scan.cuh's lookback_kernel) with each block resident for many
// tiles and the next tile's loads in flight while it scans, looks back and
// stores the current one.
//
// Why: lookback_kernel gives each block one tile, so a block issues its
// loads once, at its start, and spends the rest of its life (the block scan,
// the look-back wait, the stores) with nothing in flight: at 2^28 doubles it
// reads at 0.6 of a copy's rate.  Here a block copies its next tile into a
// second shared-memory stage with cp.async (no registers held: the loads
// complete into shared memory on their own) before it works on the current
// one, so every block keeps a tile's reads in flight all the time.
//
// Tile numbers still come from the atomic counter, one take per tile: a
// block holds at most two numbers (the current tile and the one it
// prefetches) and finishes them in increasing order, so every tile a block
// waits on belongs to a running block whose own waits are on smaller tiles:
// the chain ends at tile 0 whatever the scheduler does, as for one tile per
// block.  Each block's last take returns a number >= tiles: a launch
// advances the counter by tiles + gridDim.x.
//
// Shared memory: two stages of Staging<T, BLOCK, ITEMS>::SIZE items (the
// padded layout of tile.cuh), dynamic (past the 48 KiB of static memory at
// 256 x 16 doubles), plus the block scan's storage, static.
#ifndef GQ_SCAN_PIPELINED_CUH
#define GQ_SCAN_PIPELINED_CUH

#include "device_scan.cuh"

namespace gq {
namespace scan {

// One item of global memory into shared memory, asynchronously (sizeof(T)
// is 4 or 8: cp.async's .ca sizes).
template <class T> __device__ __forceinline__ void copy_async(T *dst, const T *src)
{
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async moves 4, 8 or 16 bytes");
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(src), "n"(sizeof(T)) : "memory");
}
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Wait until at most N of this thread's committed groups are still pending.
template <int N> __device__ __forceinline__ void copy_async_wait()
{
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

template <class Op, int BLOCK, int ITEMS> struct Pipelined {
  using In = typename Op::In;
  using Out = typename Op::Out;
  using Acc = typename Op::Acc;
  using S = Staging<In, BLOCK, ITEMS>;
  static constexpr int TILE = BLOCK * ITEMS;
  static_assert(sizeof(Out) == sizeof(In), "results are staged where the items were");
  // Dynamic shared memory of a launch: the two stages.
  static constexpr size_t DYNAMIC_BYTES = 2 * (size_t)S::SIZE * sizeof(In);

  struct Shared {
    typename BlockScan<Op, BLOCK>::Storage scan;
    Acc prefix;
    unsigned long long next; // the tile number taken last
  };

  // Tile `tile`'s items into stage, striped: existing ones by cp.async, the
  // identity past the end by plain stores (both seen after the wait and the
  // barrier that follow).  One commit group per tile, in every thread.
  static __device__ __forceinline__ void prefetch(const In *x, unsigned long long n, unsigned long long tile,
                                                  In *stage)
  {
    const unsigned long long first = tile * TILE;
    const int valid = tile_valid<TILE>(n, tile);
    const In *src = x + first;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int i = k * BLOCK + (int)threadIdx.x;
      if (i < valid)
        copy_async(&stage[S::pad(i)], src + i);
      else
        stage[S::pad(i)] = In(0);
    }
    copy_async_commit();
  }
};

template <class Op, int BLOCK, int ITEMS, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    pipelined_kernel(const ScanProblem<Op, ArraySource<typename Op::In>, ArraySink<Op>> p)
{
  using P = Pipelined<Op, BLOCK, ITEMS>;
  using In = typename Op::In;
  using Out = typename Op::Out;
  using Acc = typename Op::Acc;
  extern __shared__ __align__(16) unsigned char dynamic[];
  In *const stages = reinterpret_cast<In *>(dynamic); // stage b at stages + b SIZE
  __shared__ typename P::Shared s;

  if (threadIdx.x == 0)
    s.next = atomicAdd(p.counter, 1ull) - p.base;
  __syncthreads();
  unsigned long long tile = s.next;
  if (tile >= p.tiles)
    return; // every thread read s.next: nothing is left for this block
  P::prefetch(p.src.x, p.n, tile, stages);
  for (int b = 0;; b ^= 1) {
    // [A] Every thread is past the previous tile's stores from stage b ^ 1
    // (and past its reads of s.next): both may be written again.
    __syncthreads();
    if (threadIdx.x == 0)
      s.next = atomicAdd(p.counter, 1ull) - p.base;
    __syncthreads();
    const unsigned long long next = s.next;
    if (next < p.tiles) {
      P::prefetch(p.src.x, p.n, next, stages + (b ^ 1) * P::S::SIZE);
      copy_async_wait<1>(); // this tile's group done, the next one's in flight
    } else {
      copy_async_wait<0>();
    }
    __syncthreads(); // [B] every thread's copies of this tile are visible
    In *const stage = stages + b * P::S::SIZE;
    TileItems<Op, In, ITEMS> t;
    t.first = tile * P::TILE;
    t.valid = tile_valid<P::TILE>(p.n, tile);
    P::S::read_blocked(t.items, stage);
    t.excl = BlockScan<Op, BLOCK>::exclusive(s.scan, thread_total<Op>(t.items), &t.total);
    if (tile == 0) {
      if (threadIdx.x == 0) {
        const Acc carry = p.carry_in ? *p.carry_in : Op::zero();
        s.prefix = carry;
        p.states.publish(0, STATUS_INCLUSIVE, Op::combine(carry, t.total));
      }
    } else {
      if (threadIdx.x == 0)
        p.states.publish((int)tile, STATUS_AGGREGATE, t.total);
      if (threadIdx.x < 32) {
        const Acc prefix = p.states.template look_back<Op>((int)tile);
        if (threadIdx.x == 0) {
          p.states.publish((int)tile, STATUS_INCLUSIVE, Op::combine(prefix, t.total));
          s.prefix = prefix;
        }
      }
    }
    __syncthreads(); // s.prefix; and every thread's blocked reads of stage are done
    const Acc prefix = s.prefix;
    if (tile == p.tiles - 1 && threadIdx.x == 0 && p.carry_out)
      *p.carry_out = Op::combine(prefix, t.total);
    Out values[ITEMS];
    thread_results<Op>(p.sink, Op::combine(prefix, t.excl), t.items, In(0), values);
    Out *out_stage = reinterpret_cast<Out *>(stage);
    P::S::write_blocked(values, out_stage);
    __syncthreads();
    P::S::template unstage_striped<BLOCK>(out_stage, p.sink.y + t.first, 0, (int)threadIdx.x, t.valid);
    if (next >= p.tiles)
      return;
    tile = next;
  }
}

} // namespace scan
} // namespace gq
#endif
