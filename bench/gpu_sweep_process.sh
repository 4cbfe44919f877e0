#!/bin/sh
# gpu_sweep_process.sh — the whole-process time of a parameter sweep (issue
# 23's goal: <= 350 ms for 10,000 integrals of sin(k x)/(1+x), 10^5
# intervals each), against its floors, on the GPU machine in a build tree
# configured with CUDA (given as $1, default .):
#   1. builds gpuquad and bench/context_only;
#   2. checks first: four of the sweep's estimates against the single runs
#      (gpuquad --param k=K alone), to the bit;
#   3. times, each the median of 5 after a warm-up run (the kernel cache
#      warm): a process that only creates a CUDA context; a sweep of 1
#      problem; the sweep of 10,000; the same sweeps at n = 10, whose
#      difference is the host's work per problem (the device's is nil);
#   4. prints the table, last.
# Logs go to $OUT/sweep-process (default ./gpu-out/sweep-process).
#   sh bench/gpu_sweep_process.sh [BUILDDIR]
set -u
B=${1:-.}
cd "$B" || exit 2
OUT=${OUT:-$PWD/gpu-out}
L="$OUT/sweep-process"
mkdir -p "$L"
S="$L/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
say "gpu: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null) $(date -u +%Y-%m-%dT%H:%MZ)"
export GPUQUAD_CACHE_DIR=${GPUQUAD_CACHE_DIR:-$(mktemp -d)}

make -j16 gpuquad bench/context_only >"$L/build.log" 2>&1 || { say "build failed: see $L/build.log"; tail -20 "$L/build.log"; exit 3; }

set -f # the sweeps' words hold '*', which is no file name pattern here
F='--f=sin(k*x)/(1+x) --b=pi --device=cuda --no-check --quiet'

# ---- 2. the sweep's estimates are the single runs' ----------------------------
./gpuquad $F --n=1e5 --param k=1:10000:1 >"$L/sweep.txt" 2>"$L/sweep.err"
say "sweep: exit $?, $(wc -l <"$L/sweep.txt") estimates"
bad=0
for k in 1 77 5000 10000; do
  single=$(./gpuquad $F --n=1e5 --param k=$k 2>&1)
  swept=$(sed -n "${k}p" "$L/sweep.txt")
  [ "$single" = "$swept" ] || { bad=$((bad + 1)); say "k=$k: sweep $swept, single run $single"; }
done
say "bitwise: $((4 - bad)) of 4 sweep estimates equal their single runs"

# ---- 3. timings -----------------------------------------------------------------
# median_ms TAG COMMAND...: a warm-up run, then the median of 5 (ms)
median_ms() {
  tag=$1
  shift
  "$@" >/dev/null 2>&1
  times=""
  for r in 1 2 3 4 5; do
    t0=$(date +%s%N)
    "$@" >"$L/$tag.out" 2>&1
    t1=$(date +%s%N)
    times="$times $(( (t1 - t0) / 1000 ))"
  done
  m=$(printf '%s\n' $times | sort -n | sed -n 3p)
  say "$tag: median $m us of 5 ($times us)" >&2
  echo "$m"
}
ctx=$(median_ms context-only ./bench/context_only | tail -1)
one=$(median_ms sweep-1 ./gpuquad $F --n=1e5 --param k=1:1:1 | tail -1)
all=$(median_ms sweep-10000 ./gpuquad $F --n=1e5 --param k=1:10000:1 | tail -1)
one10=$(median_ms sweep-1-n10 ./gpuquad $F --n=10 --param k=1:1:1 | tail -1)
all10=$(median_ms sweep-10000-n10 ./gpuquad $F --n=10 --param k=1:10000:1 | tail -1)
# where the host's time goes, where perf is installed
if command -v perf >/dev/null 2>&1 &&
  perf record -g -o "$L/perf.data" ./gpuquad $F --n=1e5 --param k=1:10000:1 >/dev/null 2>"$L/perf.err"; then
  perf report -i "$L/perf.data" --no-children --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -40 >"$L/perf-top.txt"
  say "perf: the sweep's profile in $L/perf-top.txt"
fi

# ---- 4. the table ---------------------------------------------------------------
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
each=$(awk -v a="$all10" -v b="$one10" 'BEGIN { printf "%.2f", (a - b) / 9999 }')
echo
echo "| process (median of 5, kernel cache warm) | ms | goal |"
echo "|---|---|---|"
echo "| a CUDA context only (bench/context_only) | $(ms "$ctx") | - |"
echo "| gpuquad sweep of 1 problem (k=1:1:1, n = 10^5) | $(ms "$one") | - |"
echo "| gpuquad sweep of 10,000 problems (k=1:10000:1, n = 10^5) | $(ms "$all") | <= 350 |"
echo "| the same two at n = 10: 1 / 10,000 problems | $(ms "$one10") / $(ms "$all10") | - |"
echo "| host work per problem ((10,000 - 1) at n = 10, / 9,999) | $each us | ~1-2 us |"
echo "| sweep estimates bitwise the single runs' (4 sampled) | $((4 - bad)) of 4 | all |"
