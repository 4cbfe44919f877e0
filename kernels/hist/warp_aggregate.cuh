// warp_aggregate.cuh — the warp level of the histogram: lanes that share a
// key combine their counts (and values) so that one leader lane per key
// issues the atomic.  Two ways to find the peers, kept side by side:
//   match   __match_any_sync (Volta and later): the peer mask in hardware;
//   ballot  the original loop: leader = lowest unclaimed lane, its key
//           broadcast, __ballot_sync of key equality, claimed lanes cleared;
//           one round per distinct key in the warp.
// Every function here is called by all 32 lanes of a converged warp; lanes
// without an element pass valid = false (their key is never added).
#ifndef GQ_HIST_WARP_AGGREGATE_CUH
#define GQ_HIST_WARP_AGGREGATE_CUH

namespace gq {
namespace hist {

constexpr unsigned FULL_WARP = 0xffffffffu;

__device__ __forceinline__ int lane_id() { return (int)(threadIdx.x & 31u); }

// The sum of x over the lanes of `peers`, left in the lowest peer (the
// leader): a tree over the peer mask (after E. Westphal, "Voting and
// shuffling for fewer atomic operations").  Each round every lane adds the
// value of its next-higher unfinished peer, and the lanes whose rank has
// bit r set drop out, so a group of m lanes takes ceil(log2 m) rounds; the
// groups of one warp run their trees together.
__device__ __forceinline__ double reduce_peers(unsigned peers, double x)
{
  const int lane = lane_id();
  unsigned rank = __popc(peers & ((1u << lane) - 1u));
  unsigned higher = peers & ~((2u << lane) - 1u); // lane 31: 2u << 31 == 0, so none
  while (__any_sync(FULL_WARP, higher != 0)) {
    const int next = __ffs(higher); // 1-based; 0: none left
    const double t = __shfl_sync(FULL_WARP, x, next ? next - 1 : lane);
    if (next)
      x += t;
    higher &= ~__ballot_sync(FULL_WARP, rank & 1u);
    rank >>= 1;
  }
  return x;
}

// The plain butterfly sum of x over the warp (every lane gets it).
__device__ __forceinline__ double warp_sum(double x)
{
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x += __shfl_xor_sync(FULL_WARP, x, d);
  return x;
}

// Add (key, value) of every valid lane through sink.add(key, count, sum),
// one call per distinct key, by __match_any_sync.
template <bool VALUES, class Sink>
__device__ __forceinline__ void add_match(Sink &sink, unsigned key, double value, bool valid)
{
  // Invalid lanes share a key no valid lane has (the cells fit in 2^26).
  const unsigned peers = __match_any_sync(FULL_WARP, valid ? key : 0xffffffffu);
  const double sum = VALUES ? reduce_peers(peers, valid ? value : 0.0) : 0.0;
  if (valid && lane_id() == __ffs(peers) - 1)
    sink.add(key, (unsigned)__popc(peers), sum);
}

// The same by the ballot/shuffle loop: one round per distinct key, each a
// broadcast, a ballot and (with values) a five-step butterfly.
template <bool VALUES, class Sink>
__device__ __forceinline__ void add_ballot(Sink &sink, unsigned key, double value, bool valid)
{
  unsigned todo = __ballot_sync(FULL_WARP, valid);
  while (todo) {
    const int leader = __ffs(todo) - 1;
    const unsigned leader_key = __shfl_sync(FULL_WARP, key, leader);
    const bool mine = ((todo >> lane_id()) & 1u) && key == leader_key;
    const unsigned peers = __ballot_sync(FULL_WARP, mine);
    const double sum = VALUES ? warp_sum(mine ? value : 0.0) : 0.0;
    if (lane_id() == leader)
      sink.add(leader_key, (unsigned)__popc(peers), sum);
    todo &= ~peers;
  }
}

} // namespace hist
} // namespace gq
#endif
