#!/bin/sh
# gpu_scan.sh BUILD_DIR — the scans (issue 19) on a GPU machine, in a build
# directory configured with CUDA (configure --with-cuda-arch=sm_90): builds
# what it needs, then correctness first (the scan tests on the GPU, the NVRTC
# compile of the cumulative kernel, the CLI and hostile cases, and
# bench_scan verify: many runs at sizes where tiles wait on each other, int64
# compared exactly), compute-sanitizer memcheck, racecheck and synccheck on
# small sizes (the library through t_scan's sizes up to 2^20, every look-back
# variant directly through bench_scan verify), then the timings (bench_scan
# time: copy, CUB, every look-back variant and three phases at 2^20, 2^24,
# 2^28 doubles, medians of 11 after warm-ups, each verified against CUB first;
# the cumulative integral of 10^9 points through the library and through the
# bench's shapes, each compared value by value with the library's).  Logs go
# to $OUT (default ./gpu-out-scan); the tables are printed last.
set -u
B=${1:?usage: sh bench/gpu_scan.sh BUILD_DIR}
cd "$B" || exit 2
OUT=${OUT:-$PWD/gpu-out-scan}
mkdir -p "$OUT"
summary="$OUT/summary-scan.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(cat "$OUT/gpu.txt")  date: $(date -u +%Y-%m-%dT%H:%MZ)"

make -j8 gpuquad tests/t_scan tests/t_scan_jit_compile bench/bench_scan >"$OUT/build.log" 2>&1
say "build: exit $?"

make -j8 check TESTS="tests/scan.gpu tests/t_scan tests/t_scan_jit_compile tests/scan_cli.sh tests/hostile.sh" \
  >"$OUT/check.log" 2>&1
say "make check (scan tests): exit $?; $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
grep -E '^not ok' tests/scan.log tests/t_scan.log tests/scan_cli.log tests/hostile.log 2>/dev/null | head -10 | tee -a "$summary"
grep -E '^# largest' tests/scan.log 2>/dev/null | tee -a "$summary"
./gpuquad scan --gen=normal --n=2^27 --check --device=cuda >"$OUT/cli-check.txt" 2>&1
say "gpuquad scan --gen=normal --n=2^27 --check (every sum against a long double scan): exit $?"
./gpuquad --f=circle --n=1e8 --cumulative --device=cuda >"$OUT/cli-cumulative.txt" 2>&1
say "gpuquad --f=circle --n=1e8 --cumulative (F(b) against the plain rule and GSL): exit $?"

# every variant (bench_scan.cu's list: the baseline, the launch shapes and the
# warp-staged kernels) and every cumulative shape (against the library's
# values): 17 to 600 tiles 20 times each, then 2^14 + 1 tiles of
# 4096 (2^15 + 1 of 2048) once (its host check is the slow part)
{ bench/bench_scan verify 20 2000000 && bench/bench_scan verify 1; } >"$OUT/verify.txt" 2>&1
say "bench_scan verify: exit $? ($(grep -c ': ok$' "$OUT/verify.txt") ok, $(grep -c FAILED "$OUT/verify.txt") failed)"

for tool in memcheck racecheck synccheck; do
  log="$OUT/sanitize-$tool.log"
  # every look-back variant and three phases, once each at 17 to 600 tiles,
  # and every cumulative shape
  compute-sanitizer --tool "$tool" --error-exitcode 9 bench/bench_scan verify 1 2000000 all >"$log" 2>&1
  a=$?
  # the library's path (tile states, carries, the NVRTC cumulative kernel) on
  # t_scan's sizes; its 10^7 + 3 cases are the slowest part under a tool
  compute-sanitizer --tool "$tool" --error-exitcode 9 tests/t_scan gpu >>"$log" 2>&1
  say "compute-sanitizer $tool: bench_scan verify exit $a, t_scan gpu exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ')"
done

bench/bench_scan time 11 >"$OUT/bench.txt" 2>&1
say "bench_scan time: exit $?"
grep -E 'against (CUB|the library)|^bench_scan' "$OUT/bench.txt" | tee -a "$summary"
echo
grep -E '^\||^cumulative trapezoid' "$OUT/bench.txt" | tee -a "$summary"
