#!/bin/sh
# gpu_mpi.sh — mpirun -np K gpuquad on a GPU machine (issues 21 and 22):
#   1. build gpuquad (MPI configured) in the CUDA build dir $1 and run the
#      MPI tests (tests/mpi.sh: CPU ranks against one process; tests/gpu_ranks.gpu:
#      GPU ranks against one GPU process; tests/t_share);
#   2. correctness with GPU ranks: integrate (1-D and --dim), mc, stats and
#      dot with K = 1, 2 and 4 ranks (K > GPUs: ranks share a GPU) against
#      K = 1: equal to 1e-14 (rules, mc) or bitwise (stats, dot, counts);
#   3. compute-sanitizer memcheck, racecheck and synccheck of two ranks on
#      small sizes (the --gen index ranges, a split trapezoid and mc);
#   4. issue 22's timings, each the median of 5 runs after a warm-up: strong
#      scaling of the trapezoid of circle at n = 1e11 and of mc at 1e11
#      samples in 8 dimensions; weak scaling of dot and stats with 2^30
#      doubles per rank generated on the devices.  Per run: rank 0's kernel
#      (or reduce) time, the slowest rank's compute time and the longest
#      wait in the combines (gpuquad --json's "mpi" member); and issue 21's
#      CPU goal, 2 CPU ranks of one OpenMP thread against one on the
#      trapezoid at n = 1e9 (>= 1.8x).
# Logs go to $OUT (default ./gpu-out/mpi); the table is printed last.
#   sh bench/gpu_mpi.sh BUILDDIR     (BUILDDIR configured with CUDA and --with-mpi)
set -uf # -f: the integrands in the argument lists hold * and ( )
B=${1:?usage: gpu_mpi.sh BUILDDIR (a CUDA build dir configured --with-mpi)}
B=$(cd "$B" && pwd)
OUT=${OUT:-$PWD/gpu-out/mpi}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUQUAD_CACHE_DIR="$OUT/cache"
export OMPI_MCA_plm="${OMPI_MCA_plm:-isolated}" # one host: no ssh needed
GQ=$B/gpuquad
MPIRUN=${MPIRUN:-mpirun}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$OUT/gpu.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
say "gpus: $gpus x $(tail -1 "$OUT/gpu.txt"); $($MPIRUN --version 2>&1 | head -1)"
grep -q '^#define HAVE_MPI 1' "$B/config.h" || { say "FAILED: $B is not configured with MPI (./configure --with-mpi)"; exit 1; }
t0=$(date +%s)
make -C "$B" -j16 gpuquad >"$OUT/build.log" 2>&1
say "build: exit $? in $(( $(date +%s) - t0 )) s"
if [ "${TESTS:-1}" != 0 ]; then
  make -C "$B" -j8 check TESTS="tests/mpi.sh tests/gpu_ranks.gpu tests/t_share tests/gen.gpu tests/gen_cli.gpu" >"$OUT/check.log" 2>&1
  say "tests (mpi.sh, gpu_ranks.gpu, t_share, gen): exit $? $(grep -E '^# (PASS|FAIL|SKIP|ERROR):' "$OUT/check.log" | tr '\n' ' ')"
  grep -E '^not ok|^(FAIL|ERROR)' "$OUT/check.log" "$B/tests/mpi.log" "$B/tests/gpu_ranks.log" 2>/dev/null | head -20 | tee -a "$summary"
fi

# KS: the rank counts (default 1 2 4); TESTS=0 and SANITIZE=0 skip those steps
# where they ran on another machine (a lent multi-GPU machine's time is dear)
ks=${KS:-1 2 4}
mp() { k=$1; shift; "$MPIRUN" --oversubscribe -np "$k" "$GQ" "$@" --json; }
# a JSON number member; an array member's values, space-separated
field() { sed -n "s/.*\"$2\": \{0,1\}\(-\{0,1\}[0-9][^,}]*\).*/\1/p" "$1"; }
array() { sed -n "s/.*\"$2\":\[\([^]]*\)\].*/\1/p" "$1" | tr ',' ' '; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = a < 0 ? -a : a; exit !(a != "" && d <= 1e-14 * s) }'; }

# 2. correctness: "NAME|exact keys|near keys|args"
fails=0
while IFS='|' read -r name exact close args; do
  [ -n "$name" ] || continue
  for k in $ks; do
    # shellcheck disable=SC2086
    mp "$k" $args >"$OUT/ok-$name-$k.json" 2>"$OUT/ok-$name-$k.err"
    rc=$?
    verdict=ok
    [ "$rc" -eq 0 ] || verdict="exit $rc: $(head -1 "$OUT/ok-$name-$k.err")"
    for key in $exact; do
      [ "$(field "$OUT/ok-$name-$k.json" "$key")" = "$(field "$OUT/ok-$name-1.json" "$key")" ] || verdict="$key differs"
    done
    for key in $close; do
      near "$(field "$OUT/ok-$name-$k.json" "$key")" "$(field "$OUT/ok-$name-1.json" "$key")" || verdict="$key beyond 1e-14"
    done
    [ "$verdict" = ok ] || fails=$((fails + 1))
    say "correct $name -np $k: $verdict"
  done
done <<EOF
trapezoid|n|estimate coarse_estimate|--f=circle --n=1e9
box|points|estimate coarse_estimate|--f=exp(-x1*x2*x3) --dim=3 --n=400 --rule=simpson --no-check
gauss|points|estimate|--f=cos(x1+x2) --dim=2 --n=2000 --rule=gauss-legendre:8 --no-check
mc|n|mean sd integral|mc --f=exp(-(x1^2+x2^2)) --dim=8 --a=-3 --b=3 --n=1e9 --no-check
stats|n sum mean var_sample min max argmin argmax||stats --gen=normal --n=100000007
dot|n dot||dot --gen=uniform --n=100000007
EOF

# 3. sanitizers, two ranks sharing the device, small sizes
[ "${SANITIZE:-1}" = 0 ] || for tool in memcheck racecheck synccheck; do
  for args in "stats --gen=normal --n=1000003" "dot --gen=uniform --n=1000003 --dtype=f32" "--f=circle --n=1000003" \
    "mc --f=x1*x2 --dim=2 --n=1000003 --no-check"; do
    tag=$(echo "$args" | tr -c 'a-z0-9' '_' | cut -c1-40)
    # shellcheck disable=SC2086
    "$MPIRUN" --oversubscribe -np 2 compute-sanitizer --tool "$tool" --error-exitcode 9 "$GQ" $args --no-cache \
      >"$OUT/sanitize-$tool-$tag.log" 2>&1
    say "compute-sanitizer $tool -np 2 $args: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-$tag.log" | sort -u | tr '\n' ' ')"
  done
done

# 4. timings: median of 5 after a warm-up, for each K
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "nan" }'; }
max_of() { tr ' ' '\n' | grep . | sort -g | tail -1; }
row() { # NAME K TIME-KEY ARGS...
  name=$1 k=$2 key=$3
  shift 3
  mp "$k" "$@" >/dev/null 2>&1
  : >"$OUT/t-$name-$k.txt"
  for rep in 1 2 3 4 5; do
    mp "$k" "$@" >"$OUT/t-$name-$k-$rep.json" 2>"$OUT/t-$name-$k-$rep.err"
    f=$OUT/t-$name-$k-$rep.json
    echo "$(field "$f" "$key") $(array "$f" compute_ms | max_of) $(array "$f" wait_ms | max_of)" >>"$OUT/t-$name-$k.txt"
  done
  t=$(cut -d' ' -f1 "$OUT/t-$name-$k.txt" | median)
  c=$(cut -d' ' -f2 "$OUT/t-$name-$k.txt" | median)
  w=$(cut -d' ' -f3 "$OUT/t-$name-$k.txt" | median)
  echo "$name $k $t ${c:-nan} ${w:-nan}" >>"$OUT/rows.txt"
}
: >"$OUT/rows.txt"
for k in $ks; do
  row trapezoid "$k" kernel_ms --f=circle --n=1e11 --no-check
  row mc8 "$k" kernel_ms mc --f='exp(-(x1^2+x2^2+x3^2+x4^2+x5^2+x6^2+x7^2+x8^2))' --dim=8 --a=-3 --b=3 --n=1e11 --no-check
  row dot "$k" reduce_ms dot --gen=uniform --n=$((k * 1073741824))
  row stats "$k" reduce_ms stats --gen=normal --n=$((k * 1073741824))
done
export OMP_NUM_THREADS=1 # one thread a rank: the CPU goal's setting
for k in 1 2; do
  row cpu-trap "$k" kernel_ms --f=circle --n=1e9 --no-check --device=cpu
done
unset OMP_NUM_THREADS

say ""
say "mpirun -np K gpuquad on $gpus GPU(s) ($(tail -1 "$OUT/gpu.txt" | cut -d, -f1)); K > $gpus: ranks share a GPU"
say "time: rank 0's kernel_ms (integrate, mc) or reduce_ms (dot, stats: generation excluded, combine included),"
say "median of 5; eff: strong T1/(K TK) for trapezoid and mc8, weak T1/TK for dot and stats (2^30 doubles a rank);"
say "compute: the slowest rank's time in the command (context, JIT, generation included); wait: the longest combine wait"
say "$(printf '%-10s %3s %12s %7s %12s %10s' run K time_ms eff compute_ms wait_ms)"
while read -r name k t c w; do
  t1=$(awk -v n="$name" '$1 == n && $2 == 1 { print $3 }' "$OUT/rows.txt")
  case $name in
    trapezoid | mc8 | cpu-trap) eff=$(awk -v a="$t1" -v b="$t" -v k="$k" 'BEGIN { printf "%.1f%%", 100 * a / (k * b) }') ;;
    *) eff=$(awk -v a="$t1" -v b="$t" 'BEGIN { printf "%.1f%%", 100 * a / b }') ;;
  esac
  say "$(printf '%-10s %3s %12.4g %7s %12.4g %10.4g' "$name" "$k" "$t" "$eff" "$c" "$w")"
done <"$OUT/rows.txt"
say "correctness failures: $fails"
[ "$fails" -eq 0 ]
