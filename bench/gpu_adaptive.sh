#!/bin/sh
# gpu_adaptive.sh BUILD_DIR — adaptive cubature (issue 16) on a GPU machine,
# in a build directory configured with CUDA (configure
# --with-cuda-arch=sm_90): builds what it needs, then correctness first
# (t_adaptive on the GPU, which also compares the CPU and GPU backends within
# their reported errors; the NVRTC compile of the region kernel for D = 1..8;
# the CLI and hostile cases), compute-sanitizer memcheck, racecheck and
# synccheck on small problems (the library through bench_adaptive's smallest
# cells and the CLI in 1, 3 and 8 dimensions), then the timings:
# bench_adaptive's time-to-accuracy table (Genz's six families at d = 3, 5, 8,
# rtol 1e-3 .. 1e-9, medians of 5 after a warm-up, libcubature's hcubature on
# one host core in the same run).  Logs go to $OUT (default
# ./gpu-out-adaptive); the table is printed last.
set -u
B=${1:?usage: sh bench/gpu_adaptive.sh BUILD_DIR}
cd "$B" || exit 2
OUT=${OUT:-$PWD/gpu-out-adaptive}
mkdir -p "$OUT"
summary="$OUT/summary-adaptive.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(cat "$OUT/gpu.txt")  date: $(date -u +%Y-%m-%dT%H:%MZ)"

make -j8 gpuquad tests/t_adaptive tests/t_adaptive_jit_compile bench/bench_adaptive >"$OUT/build.log" 2>&1
say "build: exit $?"

make -j8 check TESTS="tests/adaptive.gpu tests/t_adaptive tests/t_adaptive_jit_compile tests/adaptive_cli.sh tests/hostile.sh" \
  >"$OUT/check.log" 2>&1
say "make check (adaptive tests): exit $?; $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
grep -E '^not ok' tests/adaptive.log tests/t_adaptive.log tests/t_adaptive_jit_compile.log tests/adaptive_cli.log \
  tests/hostile.log 2>/dev/null | head -10 | tee -a "$summary"
grep -E 'cpu .* gpu .* agree' tests/adaptive.log 2>/dev/null | tee -a "$summary"
./gpuquad --f='exp(-9*((x1-0.4)^2+(x2-0.4)^2+(x3-0.4)^2+(x4-0.4)^2+(x5-0.4)^2))' --dim=5 --rule=adaptive \
  --epsrel=1e-9 --device=cuda >"$OUT/cli-gauss5.txt" 2>&1
say "gpuquad 5-D Gaussian to 1e-9 (checked against the exact product): exit $?"
sed 's/^/    /' "$OUT/cli-gauss5.txt" | tee -a "$summary"

for tool in memcheck racecheck synccheck; do
  log="$OUT/sanitize-$tool.log"
  compute-sanitizer --tool "$tool" --error-exitcode 9 bench/bench_adaptive --device=cuda --dims=2,3 --tols=1e-3 \
    --repeat=1 --no-peer >"$log" 2>&1
  a=$?
  for args in "--f=1/sqrt(x) --epsrel=1e-8" "--f=exp(-(x^2+y^2+z^2)) --dim=3 --a=-inf --b=inf --epsrel=1e-5" \
    "--f=cos(x1+x2+x3+x4+x5+x6+x7+x8) --dim=8 --epsrel=1e-2 --no-check"; do
    # shellcheck disable=SC2086
    compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad $args --rule=adaptive --device=cuda >>"$log" 2>&1
    a="$a,$?"
  done
  say "compute-sanitizer $tool: exits $a (0 = clean) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | sort | uniq -c | tr '\n' ' ')"
done

bench/bench_adaptive --device=cuda --dims=3,5,8 --tols=1e-3,1e-6,1e-9 --repeat=5 >"$OUT/bench.txt" 2>&1
say "bench_adaptive: exit $?"
echo
tee -a "$summary" <"$OUT/bench.txt"
