#!/bin/sh
# gpu_rules.sh — rules over boxes (issue 15) on the GPU machine, in a tree
# already built with CUDA (make, make bench): the GPU tests of the rules,
# compute-sanitizer (memcheck, racecheck, synccheck) on the product-grid
# kernels, FP64 operations per point counted by ncu (the floor), and
# bench/bench_rules against torchquad in the same run (torchquad from .whl,
# ../shared/gpu/README.md).  Logs to $OUT/rules; the table is printed last.
#   sh bench/gpu_rules.sh [tests] [sanitize] [floor] [bench]
set -u
OUT=${OUT:-$PWD/gpu-out}
L="$OUT/rules"
mkdir -p "$L"
steps=${*:-tests sanitize floor bench}
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
S="$L/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
say "gpu: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader) $(date -u +%Y-%m-%dT%H:%MZ)"
export GPUQUAD_CACHE_DIR=${GPUQUAD_CACHE_DIR:-$(mktemp -d)}

if has tests; then
  make -j16 check TESTS='tests/product.gpu tests/rules.gpu tests/inf.gpu tests/t_product_jit_compile tests/hostile.sh' \
    >"$L/tests.log" 2>&1
  say "tests: exit $? $(grep -E '^# (PASS|SKIP|FAIL|ERROR):' "$L/tests.log" | tr -s ' ' | tr '\n' ' ')"
  grep -E '^(FAIL|ERROR|SKIP):' "$L/tests.log" | head -20 | tee -a "$S"
  cp tests/product.log tests/t_product*.log "$L/" 2>/dev/null
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    while IFS='|' read -r tag args; do
      log="$L/san-$tool-$tag.log"
      eval "compute-sanitizer --tool $tool --error-exitcode 9 ./gpuquad $args --device=cuda --no-check" >"$log" 2>&1
      say "$tool $tag: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log" | tail -1)"
    done <<'CASES'
gl-1d|--f=circle --rule=gauss-legendre:7 --n=30001 --quiet
simpson-2d|--f='exp(x*y)' --dim=2 --rule=simpson --n=500,302 --quiet
gl-3d|--f='exp(-(x^2+y^2+z^2))' --dim=3 --a=-3 --b=3 --rule=gauss-legendre:10 --n=11 --quiet
trap-4d-float|--f='x1*x2+x3*x4' --dim=4 --n=20,22,24,26 --precision=float --quiet
gl-6d|--f='x1+x2+x3+x4+x5+x6' --dim=6 --rule=gauss-legendre:3 --n=3 --quiet
inf-2d|--f='exp(-x^2-y^2)' --dim=2 --a=-inf --b=inf --rule=gauss-legendre --n=40 --quiet
nonfinite-2d|--f='1/(x+y)' --dim=2 --n=100 --quiet
CASES
  done
fi

if has floor; then
  # FP64 operations per point (DADD + DMUL + DFMA, thread-level), the floor's input
  M=smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum
  while IFS='|' read -r tag points args; do
    eval "ncu --clock-control none --metrics $M ./gpuquad $args --device=cuda --no-check --quiet" >"$L/ncu-$tag.log" 2>&1
    ops=$(awk '/reduce_kernel/ {k=1} k && /dadd_pred_on|dmul_pred_on|dfma_pred_on/ {gsub(",", "", $NF); s += $NF} END {print s}' "$L/ncu-$tag.log")
    say "floor $tag: $(awk -v o="$ops" -v p="$points" 'BEGIN {printf "%.2f FP64 ops per point (%s ops, %s points)", o / p, o, p}')"
  done <<'CASES'
simpson-1d-gauss|100000001|--f='exp(-x^2)' --a=-3 --b=3 --rule=simpson --n=1e8
simpson-1d-poly|100000001|--f='1+x^2' --a=-3 --b=3 --rule=simpson --n=1e8
trap-3d-gauss|125751501|--f='exp(-(x^2+y^2+z^2))' --dim=3 --a=-3 --b=3 --n=500
trap-3d-poly|125751501|--f='1+x^2+y^2+z^2' --dim=3 --a=-3 --b=3 --n=500
gl-3d-gauss|1000000|--f='exp(-(x^2+y^2+z^2))' --dim=3 --a=-3 --b=3 --rule=gauss-legendre:10 --n=10
CASES
fi

if has profile; then
  # where the product grid's time goes: occupancy, registers, stall reasons
  ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
    ./gpuquad --f='1+x^2+y^2+z^2' --dim=3 --a=-3 --b=3 --n=500 --device=cuda --no-check --quiet \
    >"$L/profile-trap-3d-poly.txt" 2>&1
  say "profile: exit $?"
  grep -E "Registers Per|Achieved Occupancy|Theoretical Occupancy|Stall|Issue Slots Busy|Executed Ipc|Duration|Block Limit" \
    "$L/profile-trap-3d-poly.txt" | head -30 | tee -a "$S"
fi

if has bench; then
  if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl \
      >"$L/pip.log" 2>&1
    export PYTHONPATH=/tmp/site
  fi
  ./bench/bench_rules 9 >"$L/bench_rules.txt" 2>&1
  say "bench_rules: exit $?"
  python3 bench/torchquad_rules.py 5 >"$L/torchquad.txt" 2>"$L/torchquad-stderr.txt"
  say "torchquad: exit $?"
  ./bench/bench_rules 9 >"$L/bench_rules-2.txt" 2>&1
  cat "$L/bench_rules.txt" "$L/torchquad.txt" "$L/bench_rules-2.txt" | tee -a "$S"
fi
