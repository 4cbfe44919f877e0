// store.cu — adaptive cubature's region store on the GPU (the interface and
// its contract are in src/lib/adaptive_internal.h; adaptive.c takes the
// decisions).  The regions live in one set of device arrays for the whole
// integral; a pass is a handful of launches and two small copies to the
// host (the sums with the error bins, then the counts), so the bus carries
// O(1) bytes a pass however many regions change, where the host's store
// moved 16 D + 17 bytes for each new region.
//
// Every step works in tiles of TILE regions (THREADS threads, ITEMS each),
// so its results do not depend on scheduling:
//   sums      each tile's compensated sums, merged in tile order by one block;
//             then the bins: the live errors' counts and 27-bit mantissa
//             sums per exponent, as integers (the order of the atomics does
//             not matter); both come back in one copy;
//   apply     per tile the live regions of the cut bin are counted and
//             scanned (their ranks, for "take of bin cut"), each region
//             classified (retired, split, kept: the retired ones' sums per
//             tile), the kept and split counts scanned by one block, whose
//             totals go to the host while the store is compacted in place
//             (lists, gather, move, halves): the kept regions first, the
//             split ones' halves after them.
// The tile counts are scanned by one block (a few chunks of TILE: 2^24
// regions are 8192 tiles), where CUB's device scan is two launches, and the
// serial tails (the sums' merge, the cut bin's ranks, the classification's
// offsets and totals) run in the last block of the kernel before them
// (store_steps.cuh's last_block), because at a pass's sizes the launches,
// not the bytes, set the time.
// The buffers grow by doubling, up to the store's cap, and go back to the
// context when the integral closes (gq_store_cache), for the next one.
// This file holds the memory and the steps' order; the kernels are in
// store_steps.cuh (sums, bins, classification) and store_compact.cuh.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "../cuda_check.cuh"
#include "../cuda_state.cuh"
#include "store_compact.cuh"
#include "store_steps.cuh"

#include "../../src/lib/adaptive_internal.h"

using namespace gq::store;

namespace {

constexpr uint64_t FIRST_ROOM = 65536; // regions a set of arrays holds at first

// The bytes a region takes in one set: centre and half-widths, estimate,
// error, share, axis.
size_t region_bytes(int D) { return (2 * (size_t)D + 3) * sizeof(double) + 1; }

// x's arrays carved from its buffer for as many regions as it holds (at
// most cap).
void carve(Regions *x, int D, uint64_t cap)
{
  uint64_t room = x->bytes / region_bytes(D);
  if (room > cap)
    room = cap;
  double *p = static_cast<double *>(x->raw);
  x->centre = p;
  x->half = p + room * D;
  x->est = x->half + room * D;
  x->err = x->est + room;
  x->share = x->err + room;
  x->axis = reinterpret_cast<unsigned char *>(x->share + room);
  x->room = room;
}

// The bytes for room regions, grown from what x has: twice its bytes or
// more, at most cap regions'.
size_t grown_bytes(const Regions *x, int D, uint64_t room, uint64_t cap)
{
  const size_t need = room * region_bytes(D), most = cap * region_bytes(D);
  size_t bytes = 2 * x->bytes > need ? 2 * x->bytes : need;
  return bytes > most ? (most > need ? most : need) : bytes;
}

// A region buffer of bytes, the store's other holding others: refused as
// the device refuses one (GQ_ENOMEM) where the two would pass limit bytes
// (GPUQUAD_ADAPTIVE_STORE_BYTES; 0: no limit but the device's).
int region_malloc(void **p, size_t bytes, size_t others, size_t limit)
{
  if (limit && (bytes > limit || others > limit - bytes))
    return gq_fail(GQ_ENOMEM, "the adaptive region store would pass GPUQUAD_ADAPTIVE_STORE_BYTES (%zu bytes)",
                   limit);
  GQ_CUDA_TRY(cudaMalloc(p, bytes));
  return GQ_SUCCESS;
}

// Room in x for room regions, its contents not kept.
int room_for(Regions *x, int D, uint64_t room, uint64_t cap, size_t others, size_t limit)
{
  if (x->bytes < room * region_bytes(D)) {
    const size_t bytes = grown_bytes(x, D, room, cap);
    cudaFree(x->raw);
    x->raw = nullptr;
    x->bytes = 0;
    const int status = region_malloc(&x->raw, bytes, others, limit);
    if (status != GQ_SUCCESS)
      return status;
    x->bytes = bytes;
  }
  carve(x, D, cap);
  return GQ_SUCCESS;
}

// Room in x for room regions, its first held regions kept (a new buffer,
// the arrays copied: the carving depends on the room).
int room_keeping(Regions *x, int D, uint64_t room, uint64_t cap, uint64_t held, size_t others, size_t limit,
                 cudaStream_t stream)
{
  if (x->room >= room)
    return GQ_SUCCESS;
  Regions n{};
  n.bytes = grown_bytes(x, D, room, cap);
  const int status = region_malloc(&n.raw, n.bytes, others, limit);
  if (status != GQ_SUCCESS)
    return status;
  carve(&n, D, cap);
  const size_t vec = held * (size_t)D * sizeof(double), one = held * sizeof(double);
  cudaError_t e = cudaSuccess;
  if (held > 0) {
    const cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;
    e = cudaMemcpyAsync(n.centre, x->centre, vec, kind, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(n.half, x->half, vec, kind, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(n.est, x->est, one, kind, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(n.err, x->err, one, kind, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(n.share, x->share, one, kind, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(n.axis, x->axis, held, kind, stream);
  }
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    cudaFree(n.raw);
    return gq::cuda_status(e, "copying the region store into a larger one");
  }
  cudaFree(x->raw);
  *x = n;
  return GQ_SUCCESS;
}

uint64_t tiles_of(uint64_t n) { return (n + TILE - 1) / TILE; }

size_t align256(size_t n) { return (n + 255) / 256 * 256; }

} // namespace

// What a context keeps between integrals (gq_cuda_state's adaptive_store):
// the buffers of the last store closed, so the next integral allocates
// nothing unless it needs more.
struct gq_store_cache {
  Regions a, c;
  void *scratch;
  size_t scratch_bytes;
  void *fixed, *pinned;
  cudaEvent_t counted;
};

struct gq_cuda_store {
  gq_cuda_adaptive *adaptive;
  gq_cuda_state *st;
  int D;
  uint64_t cap, held, first;
  size_t limit; // bytes the region buffers may take in all (0: the device's memory)
  int timed; // an evaluation's events wait to be read (by the sums)
  gq_store_cache mem;  // the buffers, owned while open (the regions' in a and c)
  Regions a, c;        // the regions; a pass's split regions, gathered
  uint64_t scratch_room; // regions the scratch serves
  unsigned char *action;
  unsigned long long *hole_pos, *mover, *parent; // room each
  gq_csum *part; // 2 a tile
  unsigned long long *tile_cut, *cut_off, *tile_keep, *keep_off, *tile_split, *split_off;
  unsigned long long *bins; // BINS counts, then BINS mantissa sums (fixed)
  Totals *totals;           // (fixed), after the bins: the sums step copies both at once
  unsigned int *tickets;    // (fixed) TICKETS of them, zero between launches
  unsigned long long *h_bins; // pinned
  Totals *h_totals;           // pinned
  cudaEvent_t counted;        // an apply's totals are on the host (the cache's)
};

namespace {

void free_cache(gq_store_cache *m)
{
  cudaFree(m->a.raw);
  cudaFree(m->c.raw);
  cudaFree(m->scratch);
  cudaFree(m->fixed);
  cudaFreeHost(m->pinned);
  if (m->counted)
    cudaEventDestroy(m->counted);
  *m = gq_store_cache{};
}

// The scratch (per region: the actions and the holes' positions; per tile:
// the sums and counts, the scans' offsets) for a store of room regions.
int scratch_for(gq_cuda_store *s, uint64_t room)
{
  if (room <= s->scratch_room)
    return GQ_SUCCESS;
  const uint64_t tiles = tiles_of(room);
  const size_t action = align256(room), list = align256(room * sizeof(unsigned long long)), holes = 3 * list,
               part = align256(2 * tiles * sizeof(gq_csum)), tile = align256(tiles * sizeof(unsigned long long)),
               need = action + holes + part + 6 * tile;
  gq_store_cache *m = &s->mem;
  if (m->scratch_bytes < need) {
    cudaFree(m->scratch);
    m->scratch = nullptr;
    m->scratch_bytes = 0;
    s->scratch_room = 0;
    GQ_CUDA_TRY(cudaMalloc(&m->scratch, need));
    m->scratch_bytes = need;
  }
  char *p = static_cast<char *>(m->scratch);
  s->action = reinterpret_cast<unsigned char *>(p);
  s->hole_pos = reinterpret_cast<unsigned long long *>(p + action);
  s->mover = reinterpret_cast<unsigned long long *>(p + action + list);
  s->parent = reinterpret_cast<unsigned long long *>(p + action + 2 * list);
  s->part = reinterpret_cast<gq_csum *>(p + action + holes);
  unsigned long long **arrays[] = {&s->tile_cut, &s->cut_off, &s->tile_keep, &s->keep_off, &s->tile_split,
                                   &s->split_off};
  size_t at = action + holes + part;
  for (unsigned long long **q : arrays) {
    *q = reinterpret_cast<unsigned long long *>(p + at);
    at += tile;
  }
  s->scratch_room = room;
  return GQ_SUCCESS;
}

} // namespace

extern "C" void gq_cuda_store_close(gq_cuda_store *s)
{
  if (!s)
    return;
  gq_cuda_state *st = s->st;
  cudaSetDevice(st->device);
  s->mem.a = s->a;
  s->mem.c = s->c;
  if (!st->adaptive_store)
    st->adaptive_store = new (std::nothrow) gq_store_cache();
  if (st->adaptive_store) {
    free_cache(st->adaptive_store);
    *st->adaptive_store = s->mem;
  } else {
    free_cache(&s->mem);
  }
  delete s;
}

void gq_store_release(gq_cuda_state *st)
{
  if (!st->adaptive_store)
    return;
  free_cache(st->adaptive_store);
  delete st->adaptive_store;
  st->adaptive_store = nullptr;
}

// GPUQUAD_ADAPTIVE_STORE_BYTES: a whole number of bytes, optionally with
// a binary suffix k, M or G; unset or empty is no limit.
static int store_limit(size_t *limit)
{
  *limit = 0;
  const char *v = getenv("GPUQUAD_ADAPTIVE_STORE_BYTES");
  if (!v || !*v)
    return GQ_SUCCESS;
  char *end;
  errno = 0;
  const unsigned long long n = strtoull(v, &end, 10);
  const int shift = *end == 'k' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (shift)
    end++;
  if (*v < '0' || *v > '9' || errno || *end || n == 0 || n > (SIZE_MAX >> shift))
    return gq_fail(GQ_EINVAL, "GPUQUAD_ADAPTIVE_STORE_BYTES='%s' is not a number of bytes (e.g. 64M)", v);
  *limit = (size_t)n << shift;
  return GQ_SUCCESS;
}

static int open_store(gq_cuda_store *s, uint64_t n, const double *centre, const double *half, const double *share)
{
  gq_cuda_state *st = s->st;
  if (st->adaptive_store) { // the last integral's buffers
    s->mem = *st->adaptive_store;
    *st->adaptive_store = gq_store_cache{};
    s->a = s->mem.a;
    s->c = s->mem.c;
  }
  const uint64_t room = n > FIRST_ROOM ? n : FIRST_ROOM < s->cap ? FIRST_ROOM : s->cap;
  int status = room_for(&s->a, s->D, room, s->cap, s->c.bytes, s->limit);
  if (status == GQ_SUCCESS)
    status = scratch_for(s, s->a.room);
  if (status != GQ_SUCCESS)
    return status;
  const size_t fixed = align256(2 * BINS * sizeof(unsigned long long)) + align256(sizeof(Totals)) +
                       TICKETS * sizeof(unsigned int);
  if (!s->mem.fixed) {
    GQ_CUDA_TRY(cudaMalloc(&s->mem.fixed, fixed));
    GQ_CUDA_TRY(cudaMemsetAsync(s->mem.fixed, 0, fixed, st->stream)); // the tickets start at zero
  }
  if (!s->mem.pinned)
    GQ_CUDA_TRY(cudaMallocHost(&s->mem.pinned, fixed));
  if (!s->mem.counted)
    GQ_CUDA_TRY(cudaEventCreateWithFlags(&s->mem.counted, cudaEventDisableTiming));
  s->counted = s->mem.counted;
  s->bins = static_cast<unsigned long long *>(s->mem.fixed);
  s->totals = reinterpret_cast<Totals *>(static_cast<char *>(s->mem.fixed) + align256(2 * BINS * sizeof(unsigned long long)));
  s->tickets = reinterpret_cast<unsigned int *>(reinterpret_cast<char *>(s->totals) + align256(sizeof(Totals)));
  s->h_bins = static_cast<unsigned long long *>(s->mem.pinned);
  s->h_totals = reinterpret_cast<Totals *>(static_cast<char *>(s->mem.pinned) + align256(2 * BINS * sizeof(unsigned long long)));
  const size_t vec = n * (size_t)s->D * sizeof(double);
  cudaStream_t stream = st->stream;
  GQ_CUDA_TRY(cudaMemcpyAsync(s->a.centre, centre, vec, cudaMemcpyHostToDevice, stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(s->a.half, half, vec, cudaMemcpyHostToDevice, stream));
  GQ_CUDA_TRY(cudaMemcpyAsync(s->a.share, share, n * sizeof(double), cudaMemcpyHostToDevice, stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(stream));
  s->held = n;
  s->first = 0;
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_store_open(gq_cuda_adaptive *a, int dims, uint64_t cap, uint64_t n, const double *centre,
                                  const double *half, const double *share, gq_cuda_store **out)
{
  *out = nullptr;
  gq_cuda_store *s = new (std::nothrow) gq_cuda_store();
  if (!s)
    return gq_fail(GQ_ENOMEM, "cannot allocate an adaptive region store");
  s->adaptive = a;
  s->st = gq_cuda_adaptive_state(a);
  s->D = dims;
  s->cap = cap;
  int status = store_limit(&s->limit);
  if (status == GQ_SUCCESS) {
    const cudaError_t e = cudaSetDevice(s->st->device);
    status = e == cudaSuccess ? open_store(s, n, centre, half, share) : gq::cuda_status(e, "cudaSetDevice");
  }
  if (status != GQ_SUCCESS) {
    gq_cuda_store_close(s);
    return status;
  }
  *out = s;
  return GQ_SUCCESS;
}

// The launch alone: the next step's synchronisation (sums, or a share's
// copy of the results) waits for it, and the sums read its time.
extern "C" int gq_cuda_store_evaluate(gq_cuda_store *s, uint64_t first, uint64_t count)
{
  GQ_CUDA_TRY(cudaSetDevice(s->st->device));
  const uint64_t r = s->first + first;
  const size_t D = (size_t)s->D;
  const gq_adaptive_batch b = {NULL, s->D, (size_t)count, s->a.centre + r * D, s->a.half + r * D, s->a.est + r,
                               s->a.err + r, s->a.axis + r};
  const int status = gq_cuda_adaptive_launch(s->adaptive, &b);
  if (status == GQ_SUCCESS)
    s->timed = 1;
  return status;
}

extern "C" int gq_cuda_store_results(gq_cuda_store *s, int to_host, uint64_t first, uint64_t count, double *estimate,
                                     double *error, unsigned char *axis)
{
  GQ_CUDA_TRY(cudaSetDevice(s->st->device));
  const uint64_t r = s->first + first;
  cudaStream_t stream = s->st->stream;
  if (to_host) {
    GQ_CUDA_TRY(cudaMemcpyAsync(estimate, s->a.est + r, count * sizeof(double), cudaMemcpyDeviceToHost, stream));
    GQ_CUDA_TRY(cudaMemcpyAsync(error, s->a.err + r, count * sizeof(double), cudaMemcpyDeviceToHost, stream));
    GQ_CUDA_TRY(cudaMemcpyAsync(axis, s->a.axis + r, count, cudaMemcpyDeviceToHost, stream));
  } else {
    GQ_CUDA_TRY(cudaMemcpyAsync(s->a.est + r, estimate, count * sizeof(double), cudaMemcpyHostToDevice, stream));
    GQ_CUDA_TRY(cudaMemcpyAsync(s->a.err + r, error, count * sizeof(double), cudaMemcpyHostToDevice, stream));
    GQ_CUDA_TRY(cudaMemcpyAsync(s->a.axis + r, axis, count, cudaMemcpyHostToDevice, stream));
  }
  GQ_CUDA_TRY(cudaStreamSynchronize(stream));
  return GQ_SUCCESS;
}

namespace {

// The bins of the live regions (the sums' merge zeroed them).
int launch_bins(gq_cuda_store *s, double retire)
{
  const uint64_t tiles = tiles_of(s->held), most = 2 * (uint64_t)s->st->sms;
  if (tiles > 0) {
    bins_kernel<<<(unsigned)(tiles < most ? tiles : most), THREADS, 0, s->st->stream>>>(s->a, s->held, retire,
                                                                                         s->bins, s->bins + BINS);
    GQ_CUDA_LAUNCH_CHECK();
  }
  return GQ_SUCCESS;
}

} // namespace

extern "C" int gq_cuda_store_sums(gq_cuda_store *s, double retire, int bins, gq_store_report *rep)
{
  GQ_CUDA_TRY(cudaSetDevice(s->st->device));
  cudaStream_t stream = s->st->stream;
  const uint64_t tiles = tiles_of(s->held);
  GQ_CUDA_TRY(cudaMemsetAsync(&s->totals->bad, 0xff, sizeof s->totals->bad, stream));
  if (tiles > 0) // its last block merges the tiles and zeroes the bins
    sums_kernel<<<(unsigned)tiles, THREADS, 0, stream>>>(s->a, s->held, s->first, tiles, s->part, s->totals,
                                                         s->bins, s->tickets + TICKET_SUMS);
  else
    merge_kernel<<<1, THREADS, 0, stream>>>(s->part, tiles, s->totals, s->bins);
  GQ_CUDA_LAUNCH_CHECK();
  if (bins) { // the bins and the totals after them, in one copy
    const int status = launch_bins(s, retire);
    if (status != GQ_SUCCESS)
      return status;
    const size_t bytes = (size_t)(reinterpret_cast<char *>(s->totals + 1) - reinterpret_cast<char *>(s->bins));
    GQ_CUDA_TRY(cudaMemcpyAsync(s->h_bins, s->bins, bytes, cudaMemcpyDeviceToHost, stream));
  } else {
    GQ_CUDA_TRY(cudaMemcpyAsync(s->h_totals, s->totals, sizeof(Totals), cudaMemcpyDeviceToHost, stream));
  }
  GQ_CUDA_TRY(cudaStreamSynchronize(stream));
  memset(rep, 0, sizeof *rep);
  if (s->timed) {
    float elapsed = 0.0f;
    GQ_CUDA_TRY(cudaEventElapsedTime(&elapsed, s->st->start, s->st->stop));
    rep->eval_ms = elapsed;
    s->timed = 0;
  }
  rep->est = s->h_totals->est;
  rep->err = s->h_totals->err;
  rep->bad = s->h_totals->bad;
  rep->held = s->held;
  rep->first = s->first;
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_store_count(gq_cuda_store *s, double retire)
{
  GQ_CUDA_TRY(cudaSetDevice(s->st->device));
  const int status = launch_bins(s, retire);
  if (status != GQ_SUCCESS)
    return status;
  GQ_CUDA_TRY(cudaMemcpyAsync(s->h_bins, s->bins, 2 * BINS * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                              s->st->stream));
  GQ_CUDA_TRY(cudaStreamSynchronize(s->st->stream));
  return GQ_SUCCESS;
}

// The bins last brought back, as errors and counts (most bins are empty:
// a pass's errors span a few dozen exponents).
extern "C" void gq_cuda_store_bins(const gq_cuda_store *s, double *bin_err, uint64_t *bin_count)
{
  for (int b = 0; b < BINS; b++) {
    bin_count[b] = s->h_bins[b];
    // the mantissas' sum times the bin's unit: (b ? b : 1) - 1075 for the last bit
    bin_err[b] = bin_count[b] ? ldexp((double)s->h_bins[BINS + b], MANT_SHIFT + (b ? b : 1) - 1075) : 0.0;
  }
}

extern "C" int gq_cuda_store_apply(gq_cuda_store *s, double retire, int lowest, int cut, uint64_t take,
                                   uint64_t most_split, gq_store_report *rep)
{
  GQ_CUDA_TRY(cudaSetDevice(s->st->device));
  memset(rep, 0, sizeof *rep);
  cudaStream_t stream = s->st->stream;
  const uint64_t held = s->held, tiles = tiles_of(held);
  if (tiles == 0) {
    rep->held = rep->first = 0;
    return GQ_SUCCESS;
  }
  // room for the kept regions and two halves of each split one; the halves
  // first in c
  const uint64_t need = held + most_split < s->cap ? held + most_split : s->cap;
  int status = room_keeping(&s->a, s->D, need, s->cap, held, s->c.bytes, s->limit, stream);
  if (status == GQ_SUCCESS)
    status = room_for(&s->c, s->D, most_split > 0 ? most_split : 1, s->cap, s->a.bytes, s->limit);
  if (status == GQ_SUCCESS)
    status = scratch_for(s, s->a.room);
  if (status != GQ_SUCCESS) {
    cudaGetLastError(); // an allocation's failure is no sticky error: clear it for the context's next launch
    return status;
  }
  const bool ranked = cut >= 0 && take > 0;
  if (ranked) {
    cut_kernel<<<(unsigned)tiles, THREADS, 0, stream>>>(s->a, held, tiles, retire, cut, s->tile_cut, s->cut_off,
                                                        s->tickets + TICKET_CUT);
    GQ_CUDA_LAUNCH_CHECK();
  }
  classify_kernel<<<(unsigned)tiles, THREADS, 0, stream>>>(s->a, s->D, held, tiles, retire, lowest, cut, take,
                                                           ranked ? s->cut_off : nullptr, s->action, s->tile_keep,
                                                           s->keep_off, s->tile_split, s->split_off, s->part,
                                                           s->totals, s->tickets + TICKET_CLASSIFY);
  GQ_CUDA_LAUNCH_CHECK();
  // The totals go to the host while the compaction runs: the host waits
  // for them alone, and the next pass's launches queue behind the
  // compaction on the stream.
  GQ_CUDA_TRY(cudaMemcpyAsync(s->h_totals, s->totals, sizeof(Totals), cudaMemcpyDeviceToHost, stream));
  GQ_CUDA_TRY(cudaEventRecord(s->counted, stream));
  unsigned long long *below = &s->totals->kept_below;
  lists_kernel<<<(unsigned)tiles, THREADS, 0, stream>>>(s->action, held, tiles, s->tile_keep, s->keep_off,
                                                        s->split_off, below, s->parent, s->hole_pos, s->mover);
  GQ_CUDA_LAUNCH_CHECK();
  // flat loops: grids for the most doubles each may move (the counts are the device's)
  const uint64_t most_blocks = 16 * (uint64_t)s->st->sms, D = (uint64_t)s->D;
  auto grid = [&](uint64_t n) {
    const uint64_t want = (n + THREADS - 1) / THREADS;
    return (unsigned)(want < 1 ? 1 : want < most_blocks ? want : most_blocks);
  };
  gather_kernel<<<grid(most_split * D), THREADS, 0, stream>>>(s->a, s->c, s->D, tiles, s->tile_split,
                                                               s->split_off, s->parent);
  GQ_CUDA_LAUNCH_CHECK();
  move_kernel<<<grid(held / 2 * D), THREADS, 0, stream>>>(s->a, s->D, tiles, s->tile_keep, s->keep_off, below,
                                                          s->hole_pos, s->mover);
  GQ_CUDA_LAUNCH_CHECK();
  halves_kernel<<<grid(2 * most_split * D), THREADS, 0, stream>>>(s->a, s->c, s->D, tiles, s->tile_keep,
                                                                   s->keep_off, s->tile_split, s->split_off);
  GQ_CUDA_LAUNCH_CHECK();
  GQ_CUDA_TRY(cudaEventSynchronize(s->counted));
  const Totals *t = s->h_totals;
  if (t->split == 0) // the integral stops here: the compaction's faults are its own
    GQ_CUDA_TRY(cudaStreamSynchronize(stream));
  s->held = t->keep + 2 * t->split;
  s->first = t->keep;
  rep->est = t->est;
  rep->err = t->err;
  rep->retired = held - t->keep - t->split;
  rep->split = t->split;
  rep->held = s->held;
  rep->first = s->first;
  return GQ_SUCCESS;
}

extern "C" int gq_cuda_store_region(gq_cuda_store *s, uint64_t r, double *centre, double *half)
{
  GQ_CUDA_TRY(cudaSetDevice(s->st->device));
  const size_t D = (size_t)s->D;
  GQ_CUDA_TRY(cudaMemcpy(centre, s->a.centre + r * D, D * sizeof(double), cudaMemcpyDeviceToHost));
  GQ_CUDA_TRY(cudaMemcpy(half, s->a.half + r * D, D * sizeof(double), cudaMemcpyDeviceToHost));
  return GQ_SUCCESS;
}
