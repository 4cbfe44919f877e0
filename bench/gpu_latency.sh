#!/bin/sh
# gpu_latency.sh — the latency work of issues 6 and 7 on the GPU machine:
# build, the GPU tests of the reductions and of the launch cache,
# compute-sanitizer on the finished-value and cached-graph paths, then
# bench/bench_latency (where a one-shot call's time goes), bench/bench_reduce
# (gq_dot / gq_rms_diff against cuBLAS and CUB) and `gpuquad bench`'s
# production path against CUB.  Logs go to $OUT; the summary is printed last.
#   sh bench/gpu_latency.sh [steps]   steps: any of build check sanitize bench grid
#   (default: all but grid, bench/bench_grid's experiments)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-build check sanitize bench}
S="$OUT/summary-latency.txt"
: >"$S"
say() { echo "$*" >>"$S"; }
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"

# GSL from .gpu/ (../shared/gpu/README.md), for the build and for the tests that run it.
if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi

if has build; then
  t0=$(date +%s)
  { autoreconf -fi && ./configure --with-cuda-arch=sm_90 && make -j16 && make -j16 bench/bench_latency bench/bench_reduce bench/bench_merge bench/bench_grid \
      tests/t_launch_gpu tests/t_reduce_gpu examples/jacobi; } >"$OUT/build.log" 2>&1
  say "build: exit $? in $(( $(date +%s) - t0 )) s"
fi

if has check; then
  make -j8 check TESTS="tests/reduce.gpu tests/launch.gpu tests/jacobi.gpu tests/t_reduce_cpu tests/data_cli.sh tests/examples.sh" \
    >"$OUT/check.log" 2>&1
  say "make check (reduction tests): exit $?; $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr -s ' ' | tr '\n' ' ')"
  cat tests/reduce.log tests/launch.log tests/jacobi.log >"$OUT/test-logs.txt" 2>/dev/null
  grep -E '^not ok' tests/reduce.log tests/launch.log 2>/dev/null | head -10 >>"$S"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    log="$OUT/sanitize-$tool.log"
    compute-sanitizer --tool "$tool" --error-exitcode 9 tests/t_launch_gpu >"$log" 2>&1
    say "compute-sanitizer $tool t_launch_gpu: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad rms --gen=uniform --n=1000003 --device=cuda >>"$log" 2>&1
    say "compute-sanitizer $tool gpuquad rms: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    # the full accumulators' last block (with fences)
    compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad stats --gen=normal --n=1000003 --device=cuda >>"$log" 2>&1
    say "compute-sanitizer $tool gpuquad stats: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
  done
fi

if has bench; then
  bench/bench_merge 400 >"$OUT/bench-merge.txt" 2>&1
  say "bench_merge: exit $?"
  bench/bench_latency 400 >"$OUT/bench-latency.txt" 2>&1
  say "bench_latency: exit $?"
  bench/bench_reduce 200 >"$OUT/bench-reduce.txt" 2>&1
  say "bench_reduce: exit $?"
  for run in 1 2; do
    ./gpuquad bench --method=17,19 --type=double --op=sum --n=2^10,2^16,2^20,2^28 --reps=200 \
      >"$OUT/bench-prod-$run.txt" 2>&1
    say "gpuquad bench run $run: exit $?"
  done
  say "---- bench_merge (2^20)"
  sed -n '/^n = 2^20/,/^n = 2^22/p' "$OUT/bench-merge.txt" | grep -v '^n = 2^22' >>"$S"
  grep -A8 '^device time' "$OUT/bench-merge.txt" >>"$S"
  say "---- bench_latency"
  grep -vE '^ +(lite|full|rms) .*grid' "$OUT/bench-latency.txt" >>"$S"
  say "---- bench_reduce (host-clock medians, result on the host)"
  grep -E "n=2\^(10|20|28)" "$OUT/bench-reduce.txt" >>"$S"
  say "---- gpuquad bench (CUDA events, medians of 200)"
  grep -hE "^ ?(17|19) " "$OUT/bench-prod-1.txt" "$OUT/bench-prod-2.txt" >>"$S"
fi
if has grid; then
  bench/bench_grid 400 >"$OUT/bench-grid.txt" 2>&1
  say "bench_grid: exit $?"
  say "---- bench_grid"
  cat "$OUT/bench-grid.txt" >>"$S"
fi
cat "$S"
