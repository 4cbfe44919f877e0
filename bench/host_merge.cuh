// host_merge.cuh — the grid level on the host, for the latency benches
// (bench_merge.cu, bench_grid.cu): every block writes its total into mapped
// host memory and the host merges them.  The library tried it for its
// one-shot sum and dot and went back to the last block (BENCHMARKS.md): the
// many small writes over PCIe cost as much as the last block saves, and more
// on some machines.
#ifndef GQ_BENCH_HOST_MERGE_CUH
#define GQ_BENCH_HOST_MERGE_CUH

#include "../kernels/engine/accumulators.cuh"
#include "../kernels/engine/kernel.cuh"

namespace gq {

// A grid level (reduce_kernel's Level, engine/grid_levels.cuh's interface):
// block b's total to partials[b], in device or mapped host memory; the host
// merges them (below).
struct BlockPartialsTarget {
  void *partials;
};
struct BlockPartials {
  using Target = BlockPartialsTarget;
  static constexpr bool POISONED = false;
  template <int BLOCK, int KEYS, class Tree>
  __device__ __forceinline__ static void finish(typename Tree::Partial total, const Target &t, const Tree &,
                                                unsigned long long)
  {
    static_assert(KEYS == 1, "one total per block");
    if (threadIdx.x == 0)
      static_cast<typename Tree::Partial *>(t.partials)[blockIdx.x] = total;
  }
};

// The same merge on the host, for grids whose blocks left their partials in
// mapped host memory (the BlockPartials grid level above): the order of
// the engine's last block (grid_levels.cuh, last_block_merge) replayed
// operation for operation — thread t folds partials
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

// The value a caller reads, from a merged lite partial, on the host: the
// sum or dot, or the rms (gq_rms_values, as RmsLiteCombine::finish does on
// the device).
static inline double host_value(const gq_csum &m, uint64_t) { return m.s + m.c; }
static inline double host_value(const gq::gq_rms_lite &m, uint64_t n)
{
  double rms, relative;
  gq_rms_values(m.sq, m.ref, n, &rms, &relative);
  return rms;
}
#endif
