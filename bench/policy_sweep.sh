#!/bin/sh
# policy_sweep.sh — rebuild the grid kernels with other launch shapes and time
# each with bench_trapezoid (GPU machine, after a configured build).
#   sh bench/policy_sweep.sh "256x8 256x16 256x32 512x16" [N]
shapes=${1:-"128x16 256x8 256x16 256x32 512x16"}
n=${2:-1000000000}
for shape in $shapes; do
  block=${shape%x*} items=${shape#*x}
  rm -f kernels/grid_sum.o src/libgpuquad.a bench/bench_trapezoid
  make -s NVCCFLAGS="-O3 -DGQ_SWEEP_ROWS -DGQ_SWEEP_GRID_BLOCK=$block -DGQ_SWEEP_GRID_ITEMS=$items" bench >/dev/null 2>&1 || { echo "$shape: build failed"; continue; }
  printf '%-8s ' "$shape"
  bench/bench_trapezoid "$n" 20 | grep "gpuquad circle double"
done
rm -f kernels/grid_sum.o src/libgpuquad.a bench/bench_trapezoid
make -s bench >/dev/null 2>&1
