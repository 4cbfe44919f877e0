// host_merge.cuh — the grid level on the host, for the latency benches
// (bench_merge.cu, bench_grid.cu): every block writes its total into mapped
// host memory and the host merges them.  The library tried it for its
// one-shot sum and dot and went back to the last block (BENCHMARKS.md): the
// many small writes over PCIe cost as much as the last block saves, and more
// on some machines.
#ifndef GQ_BENCH_HOST_MERGE_CUH
#define GQ_BENCH_HOST_MERGE_CUH

#include "../kernels/last_block.cuh"

namespace gq {

// A grid level (array_reduce_kernel's last template argument): block b's
// total to result[b].
struct BlockPartials { // block b's total to result[b]; the host merges (below)
  template <int BLOCK, class Op, class Acc>
  __device__ __forceinline__ static void finish(Acc total, Acc *, unsigned *, Acc *result, void *, Completion,
                                                unsigned long long)
  {
    if (threadIdx.x == 0)
      result[blockIdx.x] = total;
  }
};

// The same merge on the host, for grids whose blocks left their partials in
// mapped host memory (the BlockPartials grid level above): the last
// block's order replayed operation for operation — thread t folds partials
// t, t + BLOCK, ..., each warp folds lane l + d into lane l for d = 16, 8,
// ..., 1, then warp 0 does the same over the warp totals from d = WARPS / 2
// (block_reduce) — so the result has the device merge's bits (the host's
// IEEE additions are the device's; the merges have no products to contract).
// A one-block grid's total is the result as it stands, as on the device.
// Warps whose lanes all hold the identity fold to the identity exactly, so
// they are skipped: P partials cost P - 1 merges plus the identities that
// fill the last warp.
template <int BLOCK, class Acc, class Op>
Acc host_last_block_merge(const Acc *partials, unsigned grid, Op op, Acc identity)
{
  constexpr int WARPS = BLOCK / 32;
  static_assert(BLOCK % 32 == 0 && (WARPS & (WARPS - 1)) == 0, "block_reduce's shapes");
  if (grid == 1)
    return partials[0];
  Acc warp_total[WARPS];
  for (int w = 0; w < WARPS; w++) {
    warp_total[w] = identity;
    if ((unsigned)w * 32 >= grid)
      continue;
    Acc lane[32];
    for (int l = 0; l < 32; l++) {
      const unsigned t = (unsigned)(w * 32 + l);
      Acc v = t < grid ? partials[t] : identity;
      for (unsigned i = t + BLOCK; i < grid; i += BLOCK)
        v = op(v, partials[i]);
      lane[l] = v;
    }
    for (int d = 16; d >= 1; d >>= 1)
      for (int l = 0; l < d; l++)
        lane[l] = op(lane[l], lane[l + d]);
    warp_total[w] = lane[0];
  }
  for (int d = WARPS / 2; d >= 1; d >>= 1)
    for (int l = 0; l < d; l++)
      warp_total[l] = op(warp_total[l], warp_total[l + d]);
  return warp_total[0];
}

} // namespace gq
#endif
