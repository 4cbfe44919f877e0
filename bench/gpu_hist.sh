#!/bin/sh
# gpu_hist.sh BUILD_DIR — `gpuquad hist` (issue 18) on a GPU machine, in a
# build directory already configured with CUDA: builds what it needs, runs
# the histogram tests (t_hist on the GPU, every method; the CLI and hostile
# tests), compute-sanitizer memcheck, racecheck and synccheck on small sizes
# for every method (the cluster one at 65536 bins, where it runs) with counts
# and sums and for every launch variant (bench_hist verify), then
# bench/bench_hist against CUB.  Logs go to $OUT (default
# ./gpu-out-hist); the bench's table is printed last.
set -u
build=${1:?usage: sh bench/gpu_hist.sh BUILD_DIR}
cd "$build" || exit 2
OUT=${OUT:-$PWD/gpu-out-hist}
mkdir -p "$OUT"
summary="$OUT/summary-hist.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(cat "$OUT/gpu.txt")"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"

make -j8 gpuquad tests/t_hist bench/bench_hist >"$OUT/build.log" 2>&1
say "build: exit $?"

# correctness first
make -j8 check TESTS="tests/hist.gpu tests/t_hist tests/hist_cli.sh" >"$OUT/check.log" 2>&1
say "make check (hist tests): exit $?; $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
grep -E '^not ok' tests/hist.log tests/t_hist.log 2>/dev/null | head -20 | tee -a "$summary"
./tests/t_hist gpu >"$OUT/t_hist-gpu.txt" 2>&1
say "t_hist gpu: exit $? ($(grep -c '^ok' "$OUT/t_hist-gpu.txt") ok, $(grep -c '^not ok' "$OUT/t_hist-gpu.txt") not ok)"

# sanitizers: small sizes, every method, counts (16 and 65536 bins, 2-D) and sums
awk 'BEGIN { for (i = 0; i < 20011; i++) { printf "%.17g\n", (i * 0.6180339887) % 1 } }' >"$OUT/x.txt"
awk 'BEGIN { for (i = 0; i < 20011; i++) { printf "%.17g\n", (i % 7) - 2.5 } }' >"$OUT/v.txt"
for tool in memcheck racecheck synccheck; do
  log="$OUT/sanitize-$tool.log"
  : >"$log"
  bad=0
  for method in global shared match ballot cluster; do
    for args in "--gen=uniform --n=100003 --bins=16" "--gen=uniform --n=100003 --bins=65536" \
                "--gen=normal --n=50021 --bins=17,9" \
                "$OUT/x.txt --bins=256 --values=$OUT/v.txt --sum=plain" \
                "$OUT/x.txt --bins=256 --values=$OUT/v.txt --sum=compensated"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad hist $args --method=$method --check \
        --device=cuda --json >>"$log" 2>&1 || { bad=$((bad + 1)); echo "FAILED: $method $args" >>"$log"; }
    done
  done
  # every launch variant of shared (kernels/hist/hist.cu's VARIANTS, 1-D and
  # 2-D), which the CLI reaches only through the policy's row: the bench,
  # each pass run once and checked against CUB's (or global's) counts
  compute-sanitizer --tool "$tool" --error-exitcode 9 bench/bench_hist 100003 5 verify >>"$log" 2>&1 ||
    { bad=$((bad + 1)); echo "FAILED: bench/bench_hist 100003 5 verify" >>"$log"; }
  say "compute-sanitizer $tool: $bad failing runs of 26 ($(grep -cE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' "$log") clean summaries)"
done

# the bench: every method against CUB, 2^28 doubles
bench/bench_hist $((1 << 28)) 9 >"$OUT/bench-hist.txt" 2>&1
say "bench_hist: exit $?"
for m in auto global match cluster; do
  ./gpuquad hist --gen=uniform --n=2^28 --bins=65536 --range=0:1 --method=$m --device=cuda --json >>"$OUT/cli-hist.txt" 2>&1
done
echo
sed -n '/^summary/,$p' "$OUT/bench-hist.txt"
