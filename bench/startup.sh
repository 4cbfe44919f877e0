#!/bin/sh
# startup.sh — a fast start (issue 14): whole-process wall time (best of N
# runs) and the largest resident set of four commands, beside the goals.
# Run from the build directory after `make`; it builds its two helpers
# (bench/startup_time, which forks, execs and reaps each run, and
# bench/context_only, a process that only creates a CUDA context).
#   sh bench/startup.sh [N]          N: runs per command (default 10)
set -u
runs=${1:-10}
make -s bench/startup_time bench/context_only >/dev/null || { echo "startup.sh: make failed" >&2; exit 1; }

# best N COMMAND... -> sets ms, mb, rc
best() {
  set -- $(bench/startup_time "$@")
  ms=$1 mb=$2 rc=$3
}
row() { printf '%-44s %9s %9s %5s  %s\n' "$1" "$2" "$3" "$4" "$5"; }
# within VALUE LIMIT: yes or NO; a run that failed meets no goal
within() {
  if [ "$rc" -ne 0 ]; then echo "NO (exit $rc)"; return; fi
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }' && echo yes || echo NO
}

echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
echo "best of $runs whole-process runs; RSS: the largest of them"
row "command" "ms" "max MB" "exit" "goal"
best "$runs" bench/context_only
ctx=$ms
row "context only (cudaFree(0))" "$ms" "$mb" "$rc" "(the floor)"
best "$runs" ./gpuquad --version
row "gpuquad --version" "$ms" "$mb" "$rc" "<= 5 ms: $(within "$ms" 5); <= 20 MB: $(within "$mb" 20)"
best "$runs" ./gpuquad --device=cuda --f=circle --n=1e9
limit=$(awk -v c="$ctx" 'BEGIN { printf "%.1f", c + 15 }')
row "gpuquad --device=cuda --f=circle --n=1e9" "$ms" "$mb" "$rc" "<= context + 15 = $limit ms: $(within "$ms" "$limit")"
best "$runs" ./gpuquad --device=cpu --f=circle --n=1e6
row "gpuquad --device=cpu --f=circle --n=1e6" "$ms" "$mb" "$rc" "<= 20 ms (goal on a machine without a GPU): $(within "$ms" 20)"
