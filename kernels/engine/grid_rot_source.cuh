// grid_rot_source.cuh — the grid source of an expression with sines,
// cosines or exponentials of an affine argument θ(x) = α x + β (lib/expr/trig.c finds them;
// the module's Trig struct, written by gq_expr_emit_cuda_trig, computes
// them): a thread's points in a tile are x_c + k BLOCK h, k < ITEMS, so
// their arguments are θ(x_c) + φ_k with φ_k = α k BLOCK h, and
//   sin(θ_c + φ_k) = sin θ_c cos φ_k + cos θ_c sin φ_k,
//   cos(θ_c + φ_k) = cos θ_c cos φ_k − sin θ_c sin φ_k:
// one sincos a term per thread and tile (CUDA's), a table of sincos φ_k per
// block (source_begin), and one multiplication and one FMA a value — where
// CUDA's sin costs ~25 FP64 operations, the whole of a cheap integrand's
// budget (BENCHMARKS.md, issue 23).  Exponentials the same way:
// exp(θ_c + φ_k) = exp θ_c exp φ_k, one multiplication a value, within ~3
// units of 2^-53 relative (each factor's 1 ulp and the product's rounding).
//
// Accuracy.  Each value errs by at most a few units of 2^-53 in absolute
// terms (the four factors' rounding and the two operations'); CUDA's sin
// errs by ~1 ulp of its result, relative to the rounded argument it was
// given.  For |θ| >= NEAR = 2 the argument itself carries that much: its
// rounding is up to 2^-53 |θ| >= 2.2e-16, which moves sin θ by as much as
// the formula's error, so nothing a user can observe is lost.  (An
// exponential has no zero to lose: its tiles rotate wherever the factors
// stay normal, |θ| <= EXP_LIMIT.)  Near θ = 0,
// where the doubles are dense and sin θ ≈ θ is known to full relative
// precision, the formula would lose it (a result of 1e-9 with an absolute
// error of 1e-16); a thread's tile whose range of θ comes within NEAR of 0
// (or is not finite) therefore takes the point-by-point map with CUDA's
// functions, as does every tile of a problem too small for a whole tile
// (its blocks compute no table).  The rotated values differ from the
// point-by-point ones in the last bits, and a tile's items are summed in
// groups (below), so a problem's bits are this source's: the single launch
// and the packed launch (batch_kernel.cuh) take the same tiles the same
// way, and stay equal; the deterministic module and the rerun with CUDA's
// functions (a sum that is not finite) do not rotate.
#ifndef GQ_GRID_ROT_SOURCE_CUH
#define GQ_GRID_ROT_SOURCE_CUH

#include "grid_source.cuh"

namespace gq {

constexpr int ROT_TERMS = 4;  // GQ_EXPR_MAX_TRIG
constexpr int ROT_ITEMS = 64; // the most items of a rotating grid shape (policy.cuh)
constexpr int ROT_GROUP = 4;  // items summed and closed together (policy.cuh's GridRot)

// The block's table: sin φ_k, cos φ_k of term j at [j][k] (exp φ_k in
// rot_sin for an exponential term), and the step α BLOCK h of each term
// (for the tile's range test).  One module per
// expression, so one table per kernel that uses it.
__shared__ double rot_sin[ROT_TERMS][ROT_ITEMS], rot_cos[ROT_TERMS][ROT_ITEMS], rot_step[ROT_TERMS];

template <class Trig> struct GridRotSource : GridSource<double> {
  static constexpr bool OWN_TILES = true;
  static constexpr double NEAR = 2.0;
  // exp's tiles rotate where every argument is within ±EXP_LIMIT: then
  // exp(θ_c), each exp(φ_k) (|φ_k| <= 2 EXP_LIMIT) and their product are
  // normal doubles, and no factor overflows where the value would not.
  static constexpr double EXP_LIMIT = 350.0;
  static_assert(Trig::TERMS >= 1 && Trig::TERMS <= ROT_TERMS, "rotation terms");

  // Whether the problem's blocks compute the table (source_begin) and may
  // rotate: it has a whole tile.  Below that, every value goes point by
  // point.
  template <int BLOCK, int ITEMS> __device__ __forceinline__ bool has_table() const
  {
    return n >= (unsigned long long)BLOCK * ITEMS;
  }

  // Whether the items k < ITEMS from cursor c rotate (every sine's and
  // cosine's argument at least NEAR from 0 on one side, every exponential's
  // within ±EXP_LIMIT, all finite), and if so each term's sin and cos (or
  // exp) at the first item.
  template <int ITEMS> __device__ __forceinline__ bool base(double c, double *s0, double *c0) const
  {
    constexpr int R = Trig::TERMS;
    const double xc = fma(c, h, a);
    double t0[R];
    Trig::args(&xc, t0);
    bool rotate = true;
#pragma unroll
    for (int j = 0; j < R; j++) {
      const double t1 = fma(rot_step[j], (double)(ITEMS - 1), t0[j]);
      // false for NaN: comparisons with NaN are false
      if ((Trig::EXP >> j) & 1u)
        rotate = rotate && fabs(t0[j]) <= EXP_LIMIT && fabs(t1) <= EXP_LIMIT;
      else
        rotate = rotate && ((t0[j] >= NEAR && t1 >= NEAR) || (t0[j] <= -NEAR && t1 <= -NEAR));
    }
    if (rotate)
#pragma unroll
      for (int j = 0; j < R; j++) {
        if ((Trig::EXP >> j) & 1u)
          s0[j] = exp(t0[j]);
        else
          sincos(t0[j], &s0[j], &c0[j]);
      }
    return rotate;
  }

  // The value of item k from the first item's sines and cosines.
  template <int BLOCK>
  __device__ __forceinline__ double rotated(double c, int k, const double *s0, const double *c0) const
  {
    constexpr int R = Trig::TERMS;
    const double x = fma(c + (double)(k * BLOCK), h, a);
    double sc[2 * R];
#pragma unroll
    for (int j = 0; j < R; j++) {
      if ((Trig::EXP >> j) & 1u) {
        sc[2 * j] = s0[j] * rot_sin[j][k]; // exp(θ_c) exp(φ_k)
        sc[2 * j + 1] = 0.0;
        continue;
      }
      const double sk = rot_sin[j][k], ck = rot_cos[j][k];
      sc[2 * j] = (Trig::SIN >> j) & 1u ? fma(s0[j], ck, c0[j] * sk) : 0.0;
      sc[2 * j + 1] = (Trig::COS >> j) & 1u ? fma(c0[j], ck, -(s0[j] * sk)) : 0.0;
    }
    return static_cast<double>(Trig::g(&x, sc));
  }

  // A whole tile (agent.cuh): items in groups of GROUP, each summed and
  // closed on its own (a group's values only are live at once: registers
  // for two blocks an SM), the groups in a loop the compiler keeps rolled.
  template <int BLOCK, int ITEMS, bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void tile(double c, const Map &map, Thread &th) const
  {
    static_assert(ITEMS <= ROT_ITEMS, "the rotation table holds ROT_ITEMS items");
    constexpr int GROUP = ITEMS < ROT_GROUP ? ITEMS : ROT_GROUP;
    static_assert(ITEMS % GROUP == 0, "whole groups");
    double s0[Trig::TERMS], c0[Trig::TERMS];
    if (base<ITEMS>(c, s0, c0)) {
#pragma unroll 1
      for (int k0 = 0; k0 < ITEMS; k0 += GROUP) {
#pragma unroll
        for (int k = 0; k < GROUP; k++)
          th.template add<CLASSIFY>(rotated<BLOCK>(c, k0 + k, s0, c0), c + (double)((k0 + k) * BLOCK), k);
        th.template close<GROUP>();
      }
    } else {
#pragma unroll 1
      for (int k0 = 0; k0 < ITEMS; k0 += GROUP) {
#pragma unroll
        for (int k = 0; k < GROUP; k++)
          feed<CLASSIFY>(load(c, (k0 + k) * BLOCK), c, (k0 + k) * BLOCK, map, th, k, 1);
        th.template close<GROUP>();
      }
    }
  }

  // The partial tile: thread t's items k with k BLOCK + t < left, each
  // closed on its own (as agent.cuh's partial tile), rotated where the
  // problem has the table (a whole tile: source_begin) and the range allows.
  template <int BLOCK, int ITEMS, bool CLASSIFY, class Map, class Thread>
  __device__ __forceinline__ void partial(double c, unsigned long long left, const Map &map, Thread &th) const
  {
    double s0[Trig::TERMS], c0[Trig::TERMS];
    if (has_table<BLOCK, ITEMS>() && base<ITEMS>(c, s0, c0)) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        if ((unsigned long long)(k * BLOCK + threadIdx.x) < left) {
          th.template add<CLASSIFY>(rotated<BLOCK>(c, k, s0, c0), c + (double)(k * BLOCK), 0);
          th.template close<1>();
        }
    } else {
#pragma unroll
      for (int k = 0; k < ITEMS; k++)
        if ((unsigned long long)(k * BLOCK + threadIdx.x) < left) {
          feed<CLASSIFY>(load(c, k * BLOCK), c, k * BLOCK, map, th, 0, 1);
          th.template close<1>();
        }
    }
  }
};

// The block's table for its problem's h and parameters (the batch kernel
// calls this once its block's parameters are loaded): thread j ITEMS + k
// computes term j's sincos φ_k (exp φ_k); then the block waits.  A problem without a
// whole tile (all of it the partial tile, which goes point by point) needs
// no table: its blocks skip it, barrier included (the test is the block's).
template <int BLOCK, int ITEMS, class Trig> __device__ __forceinline__ void source_begin(const GridRotSource<Trig> &src)
{
  constexpr int R = Trig::TERMS;
  static_assert(BLOCK >= R * ITEMS && ITEMS <= ROT_ITEMS, "a block computes its table in one step");
  if (!src.template has_table<BLOCK, ITEMS>())
    return;
  double alpha[R];
  Trig::slopes(alpha);
  const int j = threadIdx.x / ITEMS, k = threadIdx.x % ITEMS;
  double a = 0.0;
#pragma unroll
  for (int i = 0; i < R; i++)
    a = i == j ? alpha[i] : a;
  if (j < R) {
    const double phi = a * ((double)(k * BLOCK) * src.h);
    double s, c = 0.0;
    if ((Trig::EXP >> j) & 1u) // j is not a constant here: a branch
      s = exp(phi);
    else
      sincos(phi, &s, &c);
    rot_sin[j][k] = s;
    rot_cos[j][k] = c;
    if (k == 0)
      rot_step[j] = a * ((double)BLOCK * src.h);
  }
  __syncthreads();
}

} // namespace gq
#endif
