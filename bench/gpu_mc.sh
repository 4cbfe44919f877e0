#!/bin/sh
# gpu_mc.sh — gpuquad mc on a GPU machine: build, the mc and --gen tests,
# the fused method against cuRAND's host API + map + CUB (bench_mc_curand,
# 2^28 samples of sqrt(1-u^2) in double), a CLI run, and compute-sanitizer on
# the mc kernels at small n.  Logs go to $OUT (default
# ./gpu-out); a short table is printed last.
#   sh bench/gpu_mc.sh
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >"$OUT/gpu.txt" 2>&1
say "gpu: $(tail -1 "$OUT/gpu.txt")"
if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi
t0=$(date +%s)
{ autoreconf -fi && ./configure --with-cuda-arch=sm_90 && make -j16 && make -j16 bench/bench_mc_curand; } >"$OUT/build.log" 2>&1
say "build: exit $? in $(( $(date +%s) - t0 )) s"

make -j8 check TESTS="tests/t_mc_cpu tests/mc_cli.sh tests/mc.gpu tests/t_mc_jit_compile tests/jit.gpu tests/trapezoid.gpu tests/t_gen tests/gen.gpu tests/gen_cli.gpu" \
  >"$OUT/check.log" 2>&1
say "mc tests: exit $? $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
cat tests/t_mc_gpu.log tests/mc.log >"$OUT/t_mc_gpu.log" 2>/dev/null
grep -E '^not ok|^(FAIL|ERROR)' "$OUT/check.log" "$OUT/t_mc_gpu.log" | head -20 | tee -a "$summary"

cache=$(mktemp -d)
GPUQUAD_CACHE_DIR=$cache bench/bench_mc_curand 28 20 >"$OUT/bench_mc.txt" 2>&1
say "bench_mc_curand: exit $?"
GPUQUAD_CACHE_DIR=$cache ./gpuquad mc --f='exp(-(x1^2+x2^2))' --dim=2 --a=-3 --b=3 --n=1e10 >"$OUT/cli.txt" 2>&1
say "gpuquad mc --f='exp(-(x1^2+x2^2))' --dim=2 --a=-3 --b=3 --n=1e10: exit $?"

for tool in memcheck racecheck synccheck; do
  for d in uniform normal; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad mc --f='x1*x2+sqrt(x1)' --dim=2 --n=1000003 \
      --dist=$d --device=cuda --no-check --no-cache --quiet >"$OUT/sanitize-$tool-$d.log" 2>&1
    say "compute-sanitizer $tool ($d): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-$d.log" | head -1)"
  done
  compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad stats --gen=normal --n=1000003 --device=cuda \
    >"$OUT/sanitize-$tool-gen.log" 2>&1
  say "compute-sanitizer $tool (--gen=normal): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-gen.log" | head -1)"
done

say ""
cat "$OUT/cli.txt" | head -16 | tee -a "$summary"
say ""
cat "$OUT/bench_mc.txt" | tee -a "$summary"
