// sweep_rows.cuh — the policy rows of a sweep build (bench/policy_sweep.sh,
// bench/gpu_reduce.sh): -DGQ_SWEEP_ROWS and the shapes below from -D flags; the rows not swept keep the library's
// values (kernels/engine/policy.cuh, which includes this file in their place).
#ifndef GQ_SWEEP_GRID_BLOCK
#define GQ_SWEEP_GRID_BLOCK 512
#endif
#ifndef GQ_SWEEP_GRID_ITEMS
#define GQ_SWEEP_GRID_ITEMS 16
#endif
#ifndef GQ_SWEEP_ROT_MIN_BLOCKS
#define GQ_SWEEP_ROT_MIN_BLOCKS 3
#endif
#ifndef GQ_SWEEP_ROT_BLOCK
#define GQ_SWEEP_ROT_BLOCK 512
#endif
#ifndef GQ_SWEEP_ROT_ITEMS
#define GQ_SWEEP_ROT_ITEMS 32
#endif
#ifndef GQ_SWEEP_STATS_MIN_BLOCKS
#define GQ_SWEEP_STATS_MIN_BLOCKS 2
#endif
struct RowsSm90 {
  using Grid = Shape<GQ_SWEEP_GRID_BLOCK, GQ_SWEEP_GRID_ITEMS>;
  using GridSmall = Shape<128, 8, 8>;
  using GridRot = Shape<GQ_SWEEP_ROT_BLOCK, GQ_SWEEP_ROT_ITEMS, GQ_SWEEP_ROT_MIN_BLOCKS>;
#ifdef GQ_SWEEP_ARRAY_BLOCK // every array row
  using Sum = Shape<GQ_SWEEP_ARRAY_BLOCK, GQ_SWEEP_ARRAY_ITEMS>;
  using Dot = Sum;
  using Rms = Sum;
  using Stats = Shape<GQ_SWEEP_ARRAY_BLOCK, GQ_SWEEP_ARRAY_ITEMS, GQ_SWEEP_STATS_MIN_BLOCKS>;
  using SumLite = Sum;
  using DotLite = Sum;
  using RmsLite = Sum;
#else
  using Sum = Shape<256, 8>;
  using Dot = Shape<256, 4>;
  using Rms = Shape<256, 4>;
  using Stats = Shape<256, 4, GQ_SWEEP_STATS_MIN_BLOCKS>;
  using SumLite = Shape<256, 8>;
  using DotLite = Shape<256, 8>;
  using RmsLite = Shape<256, 8>;
#endif
  using Mc = Shape<256, 4>;
  using McWide = Shape<256, 1>;
  using Product = Shape<256, 4>;
  using ProductWide = Shape<256, 2>;
};
struct RowsSm80 : RowsSm90 {};
