#!/bin/sh
# gpu_batch.sh — sweeps and batch files (issue 23) on the GPU machine, in a
# build tree already configured with CUDA (given as $1, default .):
#   1. builds gpuquad, the tests and bench/bench_batch;
#   2. correctness first: the batch tests (tests/batch.gpu: each result the
#      single run's to the bit, one compilation per sweep) and the JIT, mc,
#      rules and scan GPU tests that the run-time parameters touch;
#   3. compute-sanitizer memcheck, racecheck and synccheck on small sweeps;
#   4. timings: bench/bench_batch (10,000 integrals of sin(k x)/(1+x), 10^5
#      intervals each: device time from CUDA events, median of 5 after a
#      warm-up, 25 results checked bitwise against single calls; tiny
#      integrals against one large), the whole process for the same sweep
#      (median of 5, warm kernel cache), and torchquad in the same run
#      (looping over k, and vectorised), from .whl when there is one;
#   5. the table, last.
# Logs go to $OUT/batch (default ./gpu-out/batch).
#   sh bench/gpu_batch.sh [BUILDDIR]
set -u
B=${1:-.}
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$B" || exit 2
OUT=${OUT:-$PWD/gpu-out}
L="$OUT/batch"
mkdir -p "$L"
S="$L/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
say "gpu: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null) $(date -u +%Y-%m-%dT%H:%MZ)"
export GPUQUAD_CACHE_DIR=${GPUQUAD_CACHE_DIR:-$(mktemp -d)}

make -j16 gpuquad bench/bench_batch >"$L/build.log" 2>&1 || { say "build failed: see $L/build.log"; tail -20 "$L/build.log"; exit 3; }

# ---- 2. correctness ----------------------------------------------------------
T="tests/batch.gpu tests/packed.gpu tests/t_packed tests/t_batch_params tests/batch_cli.sh tests/jit.gpu tests/mc.gpu tests/product.gpu"
T="$T tests/rules.gpu tests/scan.gpu tests/t_jit_compile tests/cli_expr.sh"
make -j16 check TESTS="$T" >"$L/tests.log" 2>&1
say "tests: exit $? $(grep -E '^# (PASS|SKIP|FAIL|ERROR):' "$L/tests.log" | tr -s ' ' | tr '\n' ' ')"
grep -E '^(FAIL|ERROR|SKIP):' "$L/tests.log" | head -20 | tee -a "$S"
cp tests/batch.log tests/packed.log tests/t_batch_params.log "$L/" 2>/dev/null

# ---- 3. sanitizers on small sweeps -------------------------------------------
for tool in memcheck racecheck synccheck; do
  while IFS='|' read -r tag args; do
    log="$L/san-$tool-$tag.log"
    eval "compute-sanitizer --tool $tool --error-exitcode 9 ./gpuquad $args --device=cuda --no-check" >"$log" 2>&1
    say "$tool $tag: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log" | tail -1)"
  done <<'CASES'
sweep-1d|--f='sin(k*x)/(1+x)' --b=pi --param k=1:4:1 --n=1e4 --quiet
sweep-packed-tiny|--f='sin(k*x)/(1+x)' --b=k --param k=1:300:1 --n=1000 --rule=simpson --quiet
sweep-float|--f='sin(k*x)/(1+x)' --b=pi --param k=1:3:1 --n=1e4 --precision=float --quiet
sweep-box|--f='exp(-a*(x^2+y^2))' --dim=2 --a=-3 --b=3 --rule=gauss-legendre --n=8 --param a=1:3:1 --quiet
sweep-mc|mc --f='exp(-c*x1*x2)' --dim=2 --param c=0:1:0.5 --n=1e5 --quiet
CASES
done

# ---- 4. timings ----------------------------------------------------------------
./bench/bench_batch 5 100000 >"$L/bench_batch.txt" 2>&1
say "bench_batch: exit $?"
cat "$L/bench_batch.txt" | tee -a "$S"

# the whole process: one gpuquad for the 10,000 integrals (the kernel cached)
set -f # the sweep's words hold '*', which is no file name pattern here
sweep="--f=sin(k*x)/(1+x) --b=pi --n=1e5 --param k=1:10000:1 --device=cuda --no-check --quiet"
./gpuquad $sweep >"$L/sweep-first.txt" 2>&1
times=""
for r in 1 2 3 4 5; do
  t0=$(date +%s%N)
  ./gpuquad $sweep >"$L/sweep.txt" 2>&1
  t1=$(date +%s%N)
  times="$times $(( (t1 - t0) / 1000000 ))"
done
process_ms=$(printf '%s\n' $times | sort -n | sed -n 3p)
say "process: gpuquad sweep of 10000 x 1e5: median $process_ms ms of 5 ($times ms); $(wc -l <"$L/sweep.txt") estimates"

if [ -d "$SRC/.whl" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$SRC"/.whl/*.whl \
    >"$L/pip.log" 2>&1
  export PYTHONPATH=/tmp/site
fi
python3 "$SRC/bench/torchquad_batch.py" 3 10000 1000 500 >"$L/torchquad.txt" 2>&1
say "torchquad: exit $?"
cat "$L/torchquad.txt" | tee -a "$S"

# ---- 5. the table ---------------------------------------------------------------
dev=$(sed -n 's/^sweep 10000 x 1e5: device \([0-9.]*\) ms.*/\1/p' "$L/bench_batch.txt")
call=$(sed -n 's/^sweep 10000 x 1e5: device [0-9.]* ms, call \([0-9.]*\) ms.*/\1/p' "$L/bench_batch.txt")
ratio=$(sed -n 's/.*ratio \([0-9.]*\)%.*/\1/p' "$L/bench_batch.txt")
bits=$(sed -n 's/^bitwise: //p' "$L/bench_batch.txt")
tq_loop=$(awk '$1 == "loop" { print $4 }' "$L/torchquad.txt")
tq_vec=$(awk '$1 == "vectorised" { print ($2 == "unsupported:" ? "unsupported" : $4) }' "$L/torchquad.txt")
echo
echo "| measurement (10,000 integrals, 10^5 intervals each) | value | goal |"
echo "|---|---|---|"
echo "| gpuquad device time (sum of kernel events) | ${dev:-?} ms | <= 2 ms |"
echo "| gpuquad batch call (library, one context) | ${call:-?} ms | - |"
echo "| gpuquad whole process (CLI sweep) | ${process_ms:-?} ms | <= 350 ms |"
echo "| bitwise equal to single calls | ${bits:-?} | all |"
echo "| tiny (10^3 points) vs one large, throughput | ${ratio:-?}% | >= 50% |"
echo "| torchquad, a loop over k (scaled to 10,000) | ${tq_loop:-?} s | - |"
echo "| torchquad, vectorised over k | ${tq_vec:-?} s | - |"
