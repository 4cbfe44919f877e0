#!/bin/sh
# gpu_determ.sh — deterministic mode (issue 20) on a GPU machine, unattended:
#   sh bench/gpu_determ.sh BUILDDIR     (an already-configured CUDA build dir)
# 1. builds the library, gpuquad, the tests and bench/bench_determ;
# 2. correctness: tests/exact.gpu (GPU bits == CPU bits, forced launch
#    shapes, correct rounding), t_exact, determ_cli.sh, and gpuquad on the
#    device against --device=cpu for dot, rms and stats of generated data;
# 3. compute-sanitizer memcheck, racecheck and synccheck on small sizes;
# 4. bench_determ: deterministic vs fast sum, dot (2^28), stats (2^28), the
#    one-shot latency at 2^20, CUB's DeviceReduce::Sum, and CUB's gpu_to_gpu
#    deterministic sum if a probe compiles against the toolkit's CCCL;
# 5. gpuquad integrate (1-D rules, a 3-D box, Gauss-Legendre) and mc,
#    deterministic vs fast: kernel_ms (CUDA events), median of 7 after a
#    warm-up, built-ins and expressions.
# Logs go to $OUT (default BUILDDIR/gpu-determ); the table is printed last.
set -u
B=${1:?usage: sh bench/gpu_determ.sh BUILDDIR}
B=$(cd "$B" && pwd)
OUT=${OUT:-$B/gpu-determ}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
cd "$B" || exit 1

say "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
make -j16 >"$OUT/build.log" 2>&1
say "build: exit $?"
make -j16 tests/t_exact tests/t_exact_integrals tests/t_exact_jit >>"$OUT/build.log" 2>&1

# ---- correctness first ----
make check TESTS="tests/exact.gpu tests/t_exact tests/determ_cli.sh tests/exact_integrals.gpu tests/t_exact_jit" \
  >"$OUT/check.log" 2>&1
say "make check (exact.gpu t_exact determ_cli.sh exact_integrals.gpu t_exact_jit): exit $? $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
grep -h -E '^not ok' tests/exact.log tests/t_exact.log tests/determ_cli.log tests/exact_integrals.log \
  tests/t_exact_jit.log 2>/dev/null | head -20 | tee -a "$summary"
same=0 differ=0
for c in "dot --gen=uniform --n=3000001" "rms --gen=uniform --n=1000003" "stats --gen=uniform --n=3000001" \
  "stats --gen=linspace --n=1000" "dot --gen=uniform --n=100003 --dtype=f32"; do
  g=$(./gpuquad $c --deterministic --device=cuda --json 2>/dev/null | sed 's/"backend.*//')
  h=$(./gpuquad $c --deterministic --device=cpu --json 2>/dev/null | sed 's/"backend.*//')
  if [ -n "$g" ] && [ "$g" = "$h" ]; then same=$((same + 1)); else differ=$((differ + 1)); echo "$c: gpu $g / cpu $h" >>"$OUT/cli-differ.txt"; fi
done
say "gpuquad --deterministic, cuda vs cpu (uniform/linspace --gen data): $same identical, $differ differ"
# random bits: every exponent, subnormals, NaN and Inf (omitted), streamed from files
head -c 80000000 /dev/urandom >"$OUT/r1.f64"
head -c 80000000 /dev/urandom >"$OUT/r2.f64"
same=0 differ=0
for c in "stats $OUT/r1.f64" "dot $OUT/r1.f64 $OUT/r2.f64" "rms $OUT/r1.f64 $OUT/r2.f64"; do
  g=$(./gpuquad $c --format=raw --nan=omit --deterministic --device=cuda --json 2>/dev/null | sed 's/"backend.*//')
  h=$(./gpuquad $c --format=raw --nan=omit --deterministic --device=cpu --json 2>/dev/null | sed 's/"backend.*//')
  if [ -n "$g" ] && [ "$g" = "$h" ]; then same=$((same + 1)); else differ=$((differ + 1)); echo "$c: gpu $g / cpu $h" >>"$OUT/cli-differ.txt"; fi
done
say "gpuquad --deterministic, cuda vs cpu (10^7 random-bit doubles, files): $same identical, $differ differ"
rm -f "$OUT/r1.f64" "$OUT/r2.f64"

# ---- sanitizers on small sizes ----
for tool in memcheck racecheck synccheck; do
  log="$OUT/sanitize-$tool.log"
  compute-sanitizer --tool "$tool" --error-exitcode 9 tests/t_exact gpu >"$log" 2>&1
  rc1=$?
  compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad stats --gen=normal --n=100003 --deterministic \
    --device=cuda >>"$log" 2>&1
  rc2=$?
  compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad integrate --f=circle --n=100001 --deterministic \
    --device=cuda >>"$log" 2>&1
  rc3=$?
  compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad integrate --f='x*x+sqrt(x)' --a=0 --b=1 \
    --rule=boole --n=100000 --deterministic --device=cuda >>"$log" 2>&1
  rc4=$?
  compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad integrate --f='x*y+sqrt(z)' --dim=3 --n=40 \
    --rule=gauss-legendre --deterministic --device=cuda >>"$log" 2>&1
  rc5=$?
  compute-sanitizer --tool "$tool" --error-exitcode 9 ./gpuquad mc --f=circle --n=100000 --deterministic \
    --device=cuda >>"$log" 2>&1
  say "compute-sanitizer $tool: t_exact gpu exit $rc1, stats exit $rc2, integrate exit $rc3 / $rc4, box exit $rc5, mc exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
done

# ---- CUB's gpu_to_gpu determinism: compiled only if this toolkit has it ----
cat >"$OUT/probe.cu" <<'CU'
#include <cub/device/device_reduce.cuh>
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
int main()
{
  double *d = nullptr;
  const auto env = cuda::execution::require(cuda::execution::determinism::gpu_to_gpu);
  return (int)cub::DeviceReduce::Sum(d, d, 0LL, env);
}
CU
flag=0
if nvcc -std=c++17 -arch=sm_90 -o "$OUT/probe" "$OUT/probe.cu" >"$OUT/probe.log" 2>&1; then flag=1; fi
say "CUB gpu_to_gpu determinism in this toolkit: $([ $flag = 1 ] && echo yes || echo no)"

# ---- timings ----
rm -f bench/bench_determ.o bench/bench_determ
make bench/bench_determ NVCCFLAGS="-O3 -DGQ_HAVE_CUB_GPU_TO_GPU=$flag" >"$OUT/bench-build.log" 2>&1
say "bench_determ build: exit $?"
bench/bench_determ 28 9 >"$OUT/bench.txt" 2>&1
say "bench_determ: exit $?"
say ""
say "---- bench_determ (same run) ----"
tee -a "$summary" <"$OUT/bench.txt"

# ---- integrate: deterministic (exact grid sums) vs fast, same run ----
# kernel_ms is the library's CUDA-event time of the reduction; median of 7
# after one warm-up run.
median_ms() {
  ./gpuquad "$@" --device=cuda --json >/dev/null 2>&1
  for i in 1 2 3 4 5 6 7; do
    ./gpuquad "$@" --device=cuda --json 2>/dev/null | sed -n 's/.*"kernel_ms": \([0-9.e+-]*\).*/\1/p'
  done | sort -g | sed -n 4p
}
say ""
say "---- integrate and mc, kernel ms (median of 7): fast / deterministic / ratio fast/det ----"
set -f # the expressions hold *: no globbing
for c in "integrate --f=circle --n=1000000000" "integrate --f=gauss --rule=simpson --n=100000000" \
  "integrate --f=x*x*x-3*x+1/(1+x*x) --a=-1 --b=2 --n=100000000" \
  "integrate --f=x*y*y-z/(1+x*x)+sqrt(z+1) --dim=3 --n=800" \
  "integrate --f=circle --rule=gauss-legendre --n=10000000" "mc --f=circle --n=1000000000" \
  "mc --f=x*y+sqrt(z) --dim=3 --n=1000000000" "mc --f=x*x-3*x --dist=normal --n=1000000000"; do
  f=$(median_ms $c)
  d=$(median_ms $c --deterministic)
  say "$c: $f / $d / $(awk -v f="$f" -v d="$d" 'BEGIN { if (d > 0) printf "%.2f", f / d }')"
done
