#!/bin/sh
# stats_sweep.sh — the stats fast pass's knobs on a GPU machine, each built
# out of tree and timed in one run beside the tree before issue 13
# (.base/base.tar.gz): GQ_STATS_SETS (independent sums per thread),
# GQ_STATS_MIN_BLOCKS (launch bounds of the fast pass), GQ_STATS_LITE_TREE
# (the 11-word partials in the block and grid trees).  Each build also runs
# tests/t_stats_fast_gpu (GPU stats against the CPU, 1 ulp).  Prints the
# stats rows of bench/bench_reduce last.  Run from an unconfigured tree.
#   sh bench/stats_sweep.sh
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi
src=$PWD
[ -x configure ] || autoreconf -fi >/dev/null 2>&1
build() { # DIR FLAGS
  mkdir -p "$1" && cd "$1" && "$src/configure" -q --with-cuda-arch=sm_90 NVCCFLAGS="-O3 $2" >/dev/null &&
    make -j3 bench/bench_reduce tests/t_stats_fast_gpu tests/t_reduce_gpu >"$1.log" 2>&1
}
( rm -rf /tmp/sw-base && mkdir -p /tmp/sw-base && tar xzf .base/base.tar.gz -C /tmp/sw-base &&
  cd /tmp/sw-base && autoreconf -fi >/dev/null 2>&1 && ./configure -q --with-cuda-arch=sm_90 >/dev/null &&
  make -j3 bench/bench_reduce >/tmp/sw-base.log 2>&1 ) &
for c in "1 1 0" "2 2 1" "2 3 1" "1 3 1"; do
  set -- $c
  (build /tmp/sw-$1-$2-$3 "-DGQ_STATS_SETS=$1 -DGQ_SWEEP_ROWS -DGQ_SWEEP_STATS_MIN_BLOCKS=$2 -DGQ_STATS_LITE_TREE=$3") &
done
wait
for d in /tmp/sw-base /tmp/sw-1-1-0 /tmp/sw-2-2-1 /tmp/sw-2-3-1 /tmp/sw-1-3-1; do # base, then SETS-MIN_BLOCKS-LITE
  echo "== $d" | tee -a "$OUT/sweep.txt"
  [ -x $d/bench/bench_reduce ] || { echo "   build failed"; tail -5 $d.log; continue; }
  (cd $d && bench/bench_reduce 20 | grep -E "stats|cub Sum" | grep -E "2\^(20|28)") | tee -a "$OUT/sweep.txt"
  [ -x $d/tests/t_stats_fast_gpu ] && echo "   t_stats_fast_gpu: $($d/tests/t_stats_fast_gpu | grep -c '^not ok') not ok, $($d/tests/t_stats_fast_gpu | grep -c '^ok') ok" | tee -a "$OUT/sweep.txt"
  [ -x $d/tests/t_reduce_gpu ] && echo "   t_reduce_gpu: $($d/tests/t_reduce_gpu | grep -c '^not ok') not ok, $($d/tests/t_reduce_gpu | grep -c '^ok') ok" | tee -a "$OUT/sweep.txt"
done
