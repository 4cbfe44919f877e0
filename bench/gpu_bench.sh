#!/bin/sh
# gpu_bench.sh — `gpuquad bench` (issue 7) on a GPU machine: build, verify
# every method x type x operator at awkward sizes, run compute-sanitizer on
# each method's kernels, then the timing sweeps with CSV (and a chart where
# gnuplot is on PATH).  Logs go to $OUT (default ./gpu-out), archived as
# bench-logs-STEPS.tar.gz next to the CSV files; a short table is printed last.
#   sh bench/gpu_bench.sh [steps]   steps: any of build verify sanitize sweep (default: all)
# All four take about as long as the device tool allows one command; run them
# as "build verify", "sanitize", "sweep" to stay well inside it.
set -u
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-build verify sanitize sweep}
tag=$(echo "$steps" | tr ' ' '-')
summary="$OUT/bench-summary-$tag.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
GQ=./gpuquad

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >"$OUT/gpu.txt" 2>&1
say "gpu: $(tail -1 "$OUT/gpu.txt")"
say "date: $(date -u +%Y-%m-%dT%H:%MZ)"

if has build; then
  if [ -f .gpu/setup.sh ]; then set +u; sh .gpu/setup.sh >/dev/null && . .gpu/env.sh; set -u; fi
  t0=$(date +%s)
  { autoreconf -fi && ./configure --with-cuda-arch=sm_90 NVCCFLAGS="-O3 -Xptxas -v" && make -j16 &&
    make -j16 check TESTS="tests/help.sh tests/bench_cli.sh tests/t_bench_verify"; } >"$OUT/build.log" 2>&1
  say "build + bench tests: exit $? in $(( $(date +%s) - t0 )) s; $(grep -E '^# (PASS|FAIL):' "$OUT/build.log" | tr '\n' ' ')"
  grep -E "spill" "$OUT/build.log" | grep -v " 0 bytes spill" | sort -u | head -5 | tee -a "$summary"
fi

# Every method x type x operator at sizes that are not powers of two (and one
# that is), verification only.  Exit 1 means a method FAILED.
if has verify; then
  $GQ bench --method=all --type=all --op=all --n=1,31,1000,1000003,2^20,33554431 --reps=0 \
    --csv="$OUT/verify.csv" >"$OUT/verify.txt" 2>&1
  rc=$?
  say "verify: exit $rc; $(grep -c ' yes' "$OUT/verify.txt") verified, $(grep -c ' FAILED' "$OUT/verify.txt") FAILED, $(grep -c ' n/a' "$OUT/verify.txt") n/a"
  grep ' FAILED' "$OUT/verify.txt" | head -20 | tee -a "$summary"
fi

# compute-sanitizer on each method at a small n: racecheck and synccheck (and
# memcheck), double sum for all, argmax for the generic combines, int32 min
# for the native-atomic ones.
if has sanitize; then
  bad=0
  for tool in racecheck synccheck memcheck; do
    for case in "all double sum" "12,13,14,15,17 double argmax" "1,2,3,4,5,6,7,8,9,10,11,16 int32 min"; do
      set -- $case
      for m in $(echo "$1" | tr ',' ' '); do
        [ "$m" = all ] && m=$(seq -s ' ' 1 19)
        for k in $m; do
          log="$OUT/sanitize-$tool-$k-$2-$3.log"
          compute-sanitizer --tool "$tool" --error-exitcode 9 $GQ bench --method="$k" --type="$2" --op="$3" \
            --n=100003 --reps=0 >"$log" 2>&1
          rc=$?
          if [ $rc -ne 0 ] || ! grep -qE '(ERROR|RACECHECK) SUMMARY: 0 ' "$log"; then
            grep -q ' n/a' "$log" && [ $rc -eq 0 ] && continue
            bad=$((bad + 1))
            say "compute-sanitizer $tool method $k $2 $3: exit $rc $(grep -E 'SUMMARY' "$log" | head -1)"
          fi
        done
      done
    done
  done
  say "compute-sanitizer: $bad method runs with errors or hazards (racecheck, synccheck, memcheck)"
fi

if has sweep; then
  plot=
  command -v gnuplot >/dev/null 2>&1 && plot="--plot=$OUT/bench-double-sum.svg"
  $GQ bench --type=double --op=sum --reps=20 --csv="$OUT/sweep-double-sum.csv" $plot >"$OUT/sweep-double-sum.txt" 2>&1
  say "sweep double sum 2^10..2^28: exit $?${plot:+ (chart: bench-double-sum.svg)}"
  [ -n "$plot" ] || say "gnuplot: not on PATH, no chart"
  $GQ bench --type=int32,int64,float --op=sum --n=2^10,2^14,2^18,2^20,2^22,2^24,2^26,2^28 --reps=10 \
    --csv="$OUT/sweep-other-sum.csv" >"$OUT/sweep-other-sum.txt" 2>&1
  say "sweep int32/int64/float sum: exit $?"
  $GQ bench --type=double,int32 --op=min,max --n=2^10,2^20,2^24,2^28 --reps=10 \
    --csv="$OUT/sweep-minmax.csv" >"$OUT/sweep-minmax.txt" 2>&1
  say "sweep min/max: exit $?"
  $GQ bench --type=double --op=argmax --method=12,13,14,15,17 --n=2^10,2^20,2^24,2^28 --reps=10 \
    --csv="$OUT/sweep-argmax.csv" >"$OUT/sweep-argmax.txt" 2>&1
  say "sweep argmax: exit $?"
  say ""
  head -3 "$OUT/sweep-double-sum.txt" | tee -a "$summary"
  grep -m1 '^# ' "$OUT/sweep-double-sum.txt" | tee -a "$summary"
  grep -E ' double +sum +(1024|1048576|268435456) ' "$OUT/sweep-double-sum.txt" | tee -a "$summary"
fi

# The logs of this call in one archive (the device tool returns a handful of
# files); summaries, CSV files, charts and earlier archives stay as they are.
(cd "$OUT" && find . -maxdepth 1 -type f \( -name '*.log' -o -name '*.txt' \) ! -name 'bench-summary-*' \
  ! -name summary.txt >"files-$tag" && tar czf "bench-logs-$tag.tar.gz" -T "files-$tag" &&
  xargs rm -f <"files-$tag" && rm -f "files-$tag")
