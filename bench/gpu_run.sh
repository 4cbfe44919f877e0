#!/bin/sh
# gpu_run.sh — build, test, sanitize and benchmark gpuquad on a GPU machine in
# one go (the device tool's machine: GSL comes from .gpu/, see
# ../shared/gpu/README.md).  Logs go to $OUT (default ./gpu-out); a short
# summary is printed last.
#   sh bench/gpu_run.sh [steps]   steps: any of build check sanitize bench (default: all)
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-build check sanitize bench}
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >"$OUT/gpu.txt" 2>&1
say "gpu: $(tail -1 "$OUT/gpu.txt")"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"

# GSL from .gpu/ (../shared/gpu/README.md), for the build and for the tests that run it.
if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi

if has build; then
  t0=$(date +%s)
  { autoreconf -fi && ./configure --with-cuda-arch=sm_90 NVCCFLAGS="-O3 -Xptxas -v" &&
    make -j16; } >"$OUT/build.log" 2>&1
  say "build: exit $? in $(( $(date +%s) - t0 )) s"
  grep -E "registers|spill" "$OUT/build.log" | sort | uniq -c | sort -rn | head -5 >>"$OUT/ptxas.txt"
fi

if has check; then
  t0=$(date +%s)
  make -j8 check >"$OUT/check.log" 2>&1
  rc=$?
  cat test-suite.log tests/*.log >"$OUT/test-logs.txt" 2>/dev/null
  say "make check: exit $rc in $(( $(date +%s) - t0 )) s; $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
  grep -E '^(FAIL|ERROR|SKIP)' "$OUT/check.log" | head -20 | tee -a "$summary"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    for p in double float; do
      for f in circle 'exp(-x*x)*cos(3*x)' '1/(x-0.5)'; do
        tag=$(echo "$f" | tr -c 'a-z0-9' '_' | cut -c1-12)
        compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad --device=cuda --n=3000001 --f="$f" \
          --precision=$p --quiet --no-check >"$OUT/sanitize-$tool-$p-$tag.log" 2>&1
        say "compute-sanitizer $tool ($p, $f): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-$p-$tag.log" | head -1)"
      done
    done
  done
fi

if has bench; then
  make bench >"$OUT/bench-build.log" 2>&1
  bench/bench_trapezoid 1000000000 20 >"$OUT/bench.txt" 2>&1
  cat "$OUT/bench.txt" | tee -a "$summary"
  jitcache=$(mktemp -d)
  GPUQUAD_CACHE_DIR=$jitcache bench/bench_jit 20 >"$OUT/bench-jit.txt" 2>&1
  cat "$OUT/bench-jit.txt" | tee -a "$summary"
  for i in 1 2; do
    GPUQUAD_CACHE_DIR=$jitcache.cli ./gpuquad --f='4*sqrt(1-x^2)' --n=1e9 --json >>"$OUT/wall-jit.txt" 2>&1
  done
  say "gpuquad --f='4*sqrt(1-x^2)' --n=1e9, cold cache then warm:"
  grep -o '"kernel_ms": [0-9.]*\|"wall_ms": [0-9.]*\|"jit": "[a-z ,]*"\|"jit_ms": [0-9.]*' "$OUT/wall-jit.txt" | paste - - - - | tee -a "$summary"
  for i in 1 2 3; do
    /usr/bin/time -f "%e s" ./gpuquad --f=circle --n=1e9 --json >>"$OUT/wall.txt" 2>&1
  done
  say "gpuquad --f=circle --n=1e9 wall (3 runs):"
  grep -o '"kernel_ms": [0-9.]*\|"wall_ms": [0-9.]*\|"difference": [-0-9.e]*' "$OUT/wall.txt" | paste - - - | tee -a "$summary"
  ./gpuquad --f=circle --n=1e9 | tee -a "$summary"
fi

# Everything but the summary in one archive (the device tool returns 8 files).
(cd "$OUT" && tar czf logs.tar.gz --exclude=summary.txt --exclude=logs.tar.gz . &&
  find . -type f ! -name summary.txt ! -name logs.tar.gz -delete)
