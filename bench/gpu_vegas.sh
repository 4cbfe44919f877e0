#!/bin/sh
# gpu_vegas.sh BUILDDIR — issue 17 (gpuquad mc --method=vegas, --sampler=sobol)
# on a GPU machine, unattended, in a build directory already configured with
# CUDA: builds what it needs, runs the tests (correctness first: VEGAS and
# Sobol on the device and the CPU, the NVRTC modules, the CLI, plain mc
# unchanged), compute-sanitizer memcheck, racecheck and synccheck on small
# runs of both VEGAS training-cell methods and of Sobol, then the timings:
# bench/bench_vegas (CUDA events and host clock, medians of 5 after a
# warm-up, cuRAND's scrambled Sobol measured in the same run), torchquad's
# VEGAS on the same GPU and Lepage's vegas on the CPU where installed
# (bench/torchquad_vegas.py; torchquad's wheels from .whl/), and plain mc
# against cuRAND as before (bench_mc_curand: the plain path must not have
# slowed down).  Logs go to $OUT (default ./gpu-vegas-out); a short table is
# printed last.  REPS (default 5) sets the timed repetitions; the whole run
# takes several minutes (NVRTC compiles a module per integrand), so where a
# command is limited to 10 minutes, build first (make -C BUILDDIR gpuquad
# bench/bench_vegas ...) and run this script in a second command.
#   sh bench/gpu_vegas.sh /path/to/cuda-build
set -u
B=${1:?usage: sh bench/gpu_vegas.sh BUILDDIR (a build directory configured with CUDA)}
B=$(cd "$B" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$PWD/gpu-vegas-out}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >"$OUT/gpu.txt" 2>&1
say "gpu: $(tail -1 "$OUT/gpu.txt")"
t0=$(date +%s)
make -C "$B" -j16 gpuquad tests/t_vegas tests/t_sobol tests/t_vegas_jit_compile tests/t_mc_gpu tests/t_mc_cpu \
  bench/bench_vegas bench/bench_mc_curand >"$OUT/build.log" 2>&1
say "build: exit $? in $(( $(date +%s) - t0 )) s"

make -C "$B" -j8 check TESTS="tests/t_vegas tests/t_sobol tests/vegas.gpu tests/sobol.gpu tests/t_vegas_jit_compile \
  tests/vegas_cli.sh tests/hostile.sh tests/t_mc_cpu tests/mc.gpu tests/mc_cli.sh" >"$OUT/check.log" 2>&1
say "tests: exit $? $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
cat "$B/tests/vegas.log" "$B/tests/sobol.log" >"$OUT/gpu_tests.log" 2>/dev/null
grep -E '^not ok|^(FAIL|ERROR)' "$OUT/check.log" "$OUT/gpu_tests.log" | head -20 | tee -a "$summary"
grep -E 'GPU and CPU agree|first pass' "$OUT/gpu_tests.log" | tee -a "$summary"

# D = 4 with 512 bins keeps the training cells in shared memory (2 x 16 KiB);
# D = 16 with 512 bins (2 x 64 KiB) takes the warp-aggregated global atomics.
G="$B/gpuquad"
peak4='exp(-100*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2+(x4-0.5)^2))'
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$G" mc --f="$peak4" --dim=4 --method=vegas --n=200000 \
    --device=cuda --no-check --no-cache --quiet >"$OUT/sanitize-$tool-shared.log" 2>&1
  say "compute-sanitizer $tool (vegas, shared cells): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-shared.log" | head -1)"
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$G" mc --f='x1*x2+x16^2' --dim=16 --method=vegas --bins=512 \
    --n=300000 --device=cuda --no-check --no-cache --quiet >"$OUT/sanitize-$tool-warp.log" 2>&1
  say "compute-sanitizer $tool (vegas, warp cells): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-warp.log" | head -1)"
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$G" mc --f='cos(x1+x2+x3)' --dim=3 --sampler=sobol --n=100000 \
    --device=cuda --no-check --no-cache --quiet >"$OUT/sanitize-$tool-sobol.log" 2>&1
  say "compute-sanitizer $tool (sobol): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-sobol.log" | head -1)"
done

cache=$(mktemp -d)
(cd "$B" && GPUQUAD_CACHE_DIR=$cache bench/bench_vegas "${REPS:-5}") >"$OUT/bench_vegas.txt" 2>&1
say "bench_vegas: exit $?"
(cd "$B" && GPUQUAD_CACHE_DIR=$cache bench/bench_mc_curand 28 20) >"$OUT/bench_mc.txt" 2>&1
say "bench_mc_curand (plain mc, as fast as before?): exit $?"
if [ -d "$SRC/.whl" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$SRC"/.whl/*.whl \
    >"$OUT/pip.log" 2>&1
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 "$SRC/bench/torchquad_vegas.py" "${REPS:-5}" >"$OUT/peers.txt" 2>&1
say "peers (torchquad VEGAS on the GPU, Lepage's vegas on the CPU): exit $?"
GPUQUAD_CACHE_DIR=$cache "$G" mc --f="$peak4" --dim=4 --method=vegas --n=2e7 \
  --exact=0.00098696044010286629 >"$OUT/cli.txt" 2>&1
say "gpuquad mc (4-D peak, vegas, n = 2e7): exit $?"

say ""
head -20 "$OUT/cli.txt" | tee -a "$summary"
say ""
cat "$OUT/bench_mc.txt" | tee -a "$summary"
say ""
cat "$OUT/peers.txt" | tee -a "$summary"
say ""
cat "$OUT/bench_vegas.txt" | tee -a "$summary"
