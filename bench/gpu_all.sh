#!/bin/sh
# gpu_all.sh — one pass over everything on the GPU machine: build, the whole
# make check (GPU tests included), the benchmarks of every command against
# their peers, the examples, and compute-sanitizer on the mc kernels.  The
# summary (last) is what BENCHMARKS.md records; logs go to $OUT/all-logs.tar.gz.
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
L=$(mktemp -d)
S="$OUT/summary-all.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"
t0=$(date +%s)
{ autoreconf -fi && ./configure --with-cuda-arch=sm_90 && make -j16 && make -j16 bench; } >"$L/build.log" 2>&1
say "build: exit $? in $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
make -j16 check >"$L/check.log" 2>&1
say "make check: exit $? in $(( $(date +%s) - t0 )) s: $(grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$L/check.log" | tr -s ' ' | tr '\n' ' ')"
grep -E '^(FAIL|ERROR|SKIP):' "$L/check.log" | head -10 | tee -a "$S"
cat test-suite.log tests/*.log >"$L/test-logs.txt" 2>/dev/null

export GPUQUAD_CACHE_DIR=$(mktemp -d)
say "---- mc: fused vs cuRAND host API + map + CUB, 2^28 samples of sqrt(1-u^2) in double"
bench/bench_mc_curand 28 20 >"$L/bench-mc.txt" 2>&1; say "bench_mc_curand: exit $?"; tail -12 "$L/bench-mc.txt" | tee -a "$S"
say "---- data reductions (host-clock medians per synchronous call, result on the host)"
bench/bench_reduce 20 >"$L/bench-reduce.txt" 2>&1; grep -E "n=2\^(10|20|28)" "$L/bench-reduce.txt" | tee -a "$S"
say "---- gpuquad bench: production path vs CUB and our classic kernels (CUDA events)"
./gpuquad bench --method=7,10,14,17,18,19 --type=double --op=sum --n=2^10,2^20,2^28 --reps=20 >"$L/bench-prod.txt" 2>&1
grep -E "^ ?[0-9]+ " "$L/bench-prod.txt" | tee -a "$S"
say "---- examples"
for k in 50 10; do examples/jacobi 128 $k 1e-13 2>&1 | tee -a "$S"; done
say "---- gpuquad mc, the issue's example"
./gpuquad mc --f='exp(-(x1^2+x2^2))' --dim=2 --a=-3 --b=3 --n=1e10 2>&1 | tee -a "$S"
say "---- compute-sanitizer on mc (uniform, normal) and --gen"
for tool in memcheck racecheck synccheck; do
  for m in "--dist=uniform" "--dist=normal"; do
    compute-sanitizer --tool $tool --error-exitcode 9 ./gpuquad mc --f='x1*x2+x3' --dim=3 --n=200000 $m --no-check \
      >"$L/san-$tool.log" 2>&1
    say "$tool mc $m: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san-$tool.log" | head -1)"
  done
  compute-sanitizer --tool $tool --error-exitcode 9 ./gpuquad stats --gen=normal --n=200003 --device=cuda \
    >"$L/san-$tool.log" 2>&1
  say "$tool stats --gen=normal: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san-$tool.log" | head -1)"
done
say "---- circle and JIT (same run)"
bench/bench_trapezoid 1000000000 20 2>&1 | tail -3 | tee -a "$S"
bench/bench_jit 20 2>&1 | sed -n '2,6p' | tee -a "$S"
(cd "$L" && tar czf "$OUT/all-logs.tar.gz" .)
