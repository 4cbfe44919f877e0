#!/bin/sh
# gpu_before_after.sh — a change on the GPU machine: build this tree and the
# tree before it (.base/base.tar.gz, `git archive` of that commit) side by
# side, run the whole make check (GPU tests included), compute-sanitizer
# (memcheck, racecheck, synccheck) on every kernel family, and time both
# builds in the same run.  Used for issue 13 (trust) and issue 14 (engine).
#   sh bench/gpu_before_after.sh build check    (first call)
#   sh bench/gpu_before_after.sh sanitize bench  (second; rebuilds if the machine is new)
# Logs go to $OUT (default ./gpu-out) as one archive; the summary is printed last.
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-build check sanitize bench}
L=/tmp/ba-logs
mkdir -p "$L"
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"
top=$PWD
base=/tmp/gq-base

build_both() {
  t0=$(date +%s)
  { autoreconf -fi && ./configure --with-cuda-arch=sm_90 && make -j12 && { make -k -j12 bench; make -j12 check TESTS=; }; } >"$L/build.log" 2>&1 &
  p1=$!
  { rm -rf "$base" && mkdir -p "$base" && tar xzf .base/base.tar.gz -C "$base" && cd "$base" && autoreconf -fi &&
    ./configure --with-cuda-arch=sm_90 && make -j4 && make -k -j4 bench; } >"$L/build-base.log" 2>&1 &
  p2=$!
  wait $p1; r1=$?
  wait $p2; r2=$?
  say "build: this tree exit $r1, base exit $r2, $(( $(date +%s) - t0 )) s"
}
if has build || [ ! -x ./gpuquad ] || [ ! -x "$base/gpuquad" ]; then build_both; fi

if has check; then
  t0=$(date +%s)
  make -j16 check >"$L/check.log" 2>&1
  say "make check: exit $? in $(( $(date +%s) - t0 )) s: $(grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$L/check.log" | tr -s ' ' | tr '\n' ' ')"
  grep -E '^(FAIL|ERROR|SKIP):' "$L/check.log" | head -30 | tee -a "$S"
  grep -h -E '^# (byte|flip)' tests/jit_cache.log 2>/dev/null | head -5 | tee -a "$S"
  for t in hostile jit_cache api_hostile refs reduce mc trapezoid jit expr/constants; do
    [ -f tests/$t.log ] && say "  tests/$t: $(grep -c '^ok' tests/$t.log) ok, $(grep -c '^not ok' tests/$t.log) not ok, $(grep -c '# SKIP' tests/$t.log) skipped"
  done
  cp test-suite.log "$L/" 2>/dev/null
  cat tests/*.log tests/*/*.log >"$L/test-logs.txt" 2>/dev/null
fi

if has sanitize; then
  export GPUQUAD_CACHE_DIR=$(mktemp -d)
  printf '1e308\n-1e308\n1e308\n1.5\n' >/tmp/big.txt
  python3 -c "print('\n'.join(str((-1)**i * 1e200 * (1 + i / 1e5)) for i in range(300001)))" >/tmp/bigrms.txt
  python3 -c "print('\n'.join(str(i % 97 - 48.5) for i in range(300001)))" >/tmp/mid.txt
  n=0
  for tool in memcheck racecheck synccheck; do
    while IFS='|' read -r tag args; do
      n=$((n + 1))
      log="$L/san-$tool-$tag.log"
      eval "compute-sanitizer --tool $tool --error-exitcode 9 ./gpuquad $args --device=cuda" >"$log" 2>&1
      say "$tool $tag: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log" | tail -1)"
    done <<'CASES'
circle|--f=circle --n=3000001 --quiet
circle-float|--f=circle --precision=float --n=3000001 --quiet
expr-float|--f='(x^0)^2+sin(3*x)' --precision=float --n=3000001 --quiet
expr-scan|--f='1/(x-0.5)' --n=3000002 --quiet
expr-scan-float|--f='1/(x-0.5)' --precision=float --n=3002 --quiet
huge-sum|--f='1e308+x' --n=100001 --quiet
simpson|--f=circle --rule=simpson --n=3000000 --quiet
boole-expr-float|--f='sin(3*x)+x^2' --rule=boole --precision=float --n=3000000 --quiet
infinite-line|--f=gauss --a=-inf --b=inf --rule=simpson --n=3000000 --quiet
mc-fused|mc --f='x1*x2+x3' --dim=3 --n=200000 --no-check
mc-wide|mc --f='x1+x2+x3+x4+x5+x6' --dim=6 --n=200001 --no-check
mc-normal-float|mc --f='x1*x1' --dist=normal --precision=float --n=200003 --no-check
mc-rescale|mc --f='1e300*(x-0.5)' --n=200000 --no-check
stats-overflow|stats /tmp/big.txt
stats-text|stats /tmp/mid.txt --check
rms-overflow|rms /tmp/bigrms.txt /tmp/mid.txt --check
dot-gen|dot --gen=uniform --n=1000003 --check
stats-gen|stats --gen=normal --n=3000001 --check
CASES
  done
  for tool in memcheck racecheck synccheck; do # every array path: one-shot, async, stream, classify
    for t in t_reduce_gpu t_stats_fast_gpu t_trapezoid_gpu "t_empty gpu"; do
      log="$L/san-$tool-${t%% *}.log"
      # shellcheck disable=SC2086
      timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 tests/$t >"$log" 2>&1
      say "$tool tests/$t: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log" | tail -1)"
    done
  done
fi

if has bench; then
  export GPUQUAD_CACHE_DIR=$(mktemp -d)
  for side in base new; do
    dir=$top; [ $side = base ] && dir=$base
    (cd "$dir" && bench/bench_reduce 20 >"$L/bench-reduce-$side.txt" 2>&1)
    (cd "$dir" && bench/bench_trapezoid 1000000000 20 >"$L/bench-trapezoid-$side.txt" 2>&1)
    # the Monte Carlo bench: bench_mc (fused vs the library's host-API path) until issue 14,
    # bench_mc_curand (fused vs cuRAND's host API + a map + CUB) after
    mc=bench/bench_mc_curand; [ -x "$dir/$mc" ] || mc=bench/bench_mc
    (cd "$dir" && $mc 28 20 >"$L/bench-mc-$side.txt" 2>&1)
  done
  for side in base new; do
    say "---- $side: data reductions, 2^20 and 2^28"
    grep -E "n=2\^(20|28)" "$L/bench-reduce-$side.txt" | tee -a "$S"
    say "---- $side: trapezoid circle 1e9, mc fused 2^28"
    tail -3 "$L/bench-trapezoid-$side.txt" | tee -a "$S"
    grep -iE "fused|curand|host" "$L/bench-mc-$side.txt" | tail -3 | tee -a "$S"
  done
fi
# Interleaved: base, new, base, new, ... so that drift of the shared machine
# (which moves the peers as much as gpuquad) falls on both sides alike.
if has abab; then
  export GPUQUAD_CACHE_DIR=$(mktemp -d)
  for round in 1 2 3; do
    for side in base new; do
      dir=$top; [ $side = base ] && dir=$base
      mc=bench/bench_mc_curand; [ -x "$dir/$mc" ] || mc=bench/bench_mc
      (cd "$dir" && bench/bench_reduce 20 && bench/bench_trapezoid 1000000000 20 && $mc 28 20) \
        >"$L/abab-$side-$round.txt" 2>&1
    done
  done
  for side in base new; do
    say "---- $side, rounds 1-3: each row's medians (gpuquad/peer where the row has a peer)"
    for row in "gq_dot .*n=2\^20" "gq_rms_diff .*n=2\^20" "gq_sum .*n=2\^20" "gq_stats .*n=2\^20" \
      "gq_dot .*n=2\^28" "gq_sum .*n=2\^28" "gq_rms_diff .*n=2\^28" "gq_stats .*n=2\^28" \
      "gpuquad circle double" "thrust" "^fused"; do
      vals=$(for r in 1 2 3; do grep -E "$row" "$L/abab-$side-$r.txt" | grep -v probe | head -1; done |
        awk '/^fused/ { printf "%s ", $2; next }
             { v = ""; for (i = 1; i < NF; i++) if ($i ~ /^[0-9.]+$/ && ($(i+1) == "us" || $(i+1) == "ms"))
                 v = v (v == "" ? "" : "/") $i; printf "%s ", v }')
      say "  $row: $vals"
    done
  done
fi
(cd "$L" && tar czf "$OUT/logs-$(echo "$steps" | tr ' ' '-').tar.gz" .)
