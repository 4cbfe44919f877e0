#!/bin/sh
# gpu_reduce.sh — the data reductions (issue 5) on a GPU machine: build, the
# GPU tests, compute-sanitizer on the last-block kernels, the benchmark
# against cuBLAS/CUB (2^10, 2^20, 2^28 doubles generated on the device, and a
# streamed 4 GiB .npy with the page cache warm), and optionally a sweep of
# the stats launch bounds.  Logs go to $OUT (default ./gpu-out); a short
# table is printed last.
#   sh bench/gpu_reduce.sh [steps]   steps: any of build check sanitize bench sweep
#                                    (default: build check sanitize bench)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-build check sanitize bench}
summary="$OUT/summary-reduce.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
NPY=${NPY:-/tmp/gq-bench-4gib.npy}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >"$OUT/gpu.txt" 2>&1
say "gpu: $(tail -1 "$OUT/gpu.txt")"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"

if has build; then
  if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi
  t0=$(date +%s)
  { autoreconf -fi && ./configure --with-cuda-arch=sm_90 NVCCFLAGS="-O3 -Xptxas -v" && make -j16; } >"$OUT/build.log" 2>&1
  say "build: exit $? in $(( $(date +%s) - t0 )) s"
  grep -A2 "reduce_kernel.*ArraySource" "$OUT/build.log" | grep -E "registers|spill" | sort | uniq -c | sort -rn | head -8 >"$OUT/ptxas-reduce.txt"
fi

if has check; then
  make -j8 check TESTS="tests/reduce.gpu tests/t_reduce_cpu tests/data_cli.sh tests/trapezoid.gpu" >"$OUT/check-reduce.log" 2>&1
  rc=$?
  cat tests/reduce.log tests/t_reduce_cpu.log tests/data_cli.log >"$OUT/test-logs-reduce.txt" 2>/dev/null
  say "make check (reduce tests): exit $rc; $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check-reduce.log" | tr '\n' ' ')"
  grep -E '^not ok' tests/reduce.log 2>/dev/null | head -10 | tee -a "$summary"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    for cmd in "stats --gen=normal --n=3000001" "rms --gen=uniform --n=1000003" "dot --gen=uniform --n=1025 --dtype=f32"; do
      log="$OUT/sanitize-$tool-$(echo "$cmd" | cut -d' ' -f1).log"
      compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad $cmd --device=cuda --json >>"$log" 2>&1
      say "compute-sanitizer $tool ($cmd): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    done
  done
fi

if has bench; then
  make bench >"$OUT/bench-build.log" 2>&1
  bench/bench_reduce 20 "$NPY" 4 >"$OUT/bench-reduce.txt" 2>&1
  say "bench_reduce: exit $?"
  for c in "dot --gen=uniform --n=2^28" "stats --gen=normal --n=2^28" "rms --gen=uniform --n=2^28"; do
    ./gpuquad $c --device=cuda --check --json >>"$OUT/cli-reduce.txt" 2>&1
  done
  ./gpuquad stats "$NPY" --device=cuda >>"$OUT/cli-reduce.txt" 2>&1
  rm -f "$NPY"
fi

if has sweep; then
  # Stats launch shapes: each built into its own bench binary, timed in this run.
  for shape in "1 4" "3 4" "4 4" "1 8" "2 8"; do
    set -- $shape
    make clean >/dev/null 2>&1
    make -j16 NVCCFLAGS="-O3 -DGQ_SWEEP_ROWS -DGQ_SWEEP_STATS_MIN_BLOCKS=$1 -DGQ_SWEEP_ARRAY_BLOCK=256 -DGQ_SWEEP_ARRAY_ITEMS=$2" bench >"$OUT/sweep-build-$1-$2.log" 2>&1
    echo "== min_blocks=$1 items=$2" >>"$OUT/sweep.txt"
    bench/bench_reduce 20 >>"$OUT/sweep.txt" 2>&1
  done
  say "sweep (2^28 rows):"
  grep -E "^==|n=2\^28" "$OUT/sweep.txt" | tee -a "$summary"
fi

if [ -f "$OUT/bench-reduce.txt" ]; then
  say ""
  say "---- bench_reduce (gpuquad vs peers, same run) ----"
  tee -a "$summary" <"$OUT/bench-reduce.txt"
fi
