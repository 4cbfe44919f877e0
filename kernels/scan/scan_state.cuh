// scan_state.cuh — what a context keeps for its scans (kernels/scan/):
// the look-back's tile counter and tile states, and the carry in device
// memory; allocated on the first scan, grown as tiles need, freed with the
// context (device.cu).
#ifndef GQ_SCAN_STATE_CUH
#define GQ_SCAN_STATE_CUH

#include "../cuda_state.cuh"

struct gq_scan_state {
  unsigned long long *d_counter; // tile numbers handed out, over every launch
  unsigned long long counted;    // ... as the host has counted them (the next launch's base)
  unsigned long long epoch;      // launches so far (the flags' epoch; fresh flags are 0)
  unsigned long long *d_flags;   // capacity words
  void *d_aggregate, *d_inclusive; // capacity x 16 bytes each
  unsigned long long capacity;   // tiles
  void *d_carry;                 // 16 bytes: a compensated pair or an integer
};

// Tile states for `tiles` tiles (kept, grown when needed; new flags zeroed).
int gq_scan_reserve(gq_cuda_state *st, unsigned long long tiles);

// A launch's share of the state (p: a gq::scan::ScanProblem): the counter's
// base and a new epoch.  The caller adds the launch's tiles to `counted`
// once a look-back kernel is launched: its blocks take exactly that many
// numbers, so the host keeps the device's count without a memset per launch.
template <class Problem> void gq_scan_bind(gq_cuda_state *st, Problem &p)
{
  using Acc = typename Problem::Acc;
  gq_scan_state *s = st->scan;
  p.counter = s->d_counter;
  p.base = s->counted;
  p.states.flag = s->d_flags;
  p.states.aggregate = static_cast<Acc *>(s->d_aggregate);
  p.states.inclusive = static_cast<Acc *>(s->d_inclusive);
  p.states.epoch = ++s->epoch;
}

#endif
