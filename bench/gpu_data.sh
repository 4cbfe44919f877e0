#!/bin/sh
# gpu_data.sh — `gpuquad integrate DATA` (issue 15, sampled data) on a GPU
# machine, in an already configured CUDA build directory: build what it
# needs, the tests (t_samples on the GPU against the CPU, the CLI test, the
# hostile cases), compute-sanitizer memcheck, racecheck and synccheck on
# small stencils of every kind, then the time of each problem (the library
# call as the CLI's integrate_ms reports it, host wall time around one
# launch and the result's copy; median of 5 after a warm-up).  No peer is
# timed: scipy runs on the host, and the issue asks for no benchmark here.
# Logs go to $OUT (default ./gpu-out-data); a short table is printed last.
#   sh bench/gpu_data.sh BUILD_DIR
set -u
[ $# -eq 1 ] && [ -f "$1/Makefile" ] || { echo "usage: sh bench/gpu_data.sh CONFIGURED_CUDA_BUILD_DIR" >&2; exit 2; }
cd "$1" || exit 2
OUT=${OUT:-$PWD/gpu-out-data}
mkdir -p "$OUT"
table="$OUT/table.txt"
: >"$table"
row() { printf '%-58s %s\n' "$1" "$2" >>"$table"; }

make -j8 gpuquad tests/t_samples >"$OUT/build.log" 2>&1
row "build (gpuquad, t_samples)" "exit $?"

make -j8 check TESTS="tests/samples.gpu tests/t_samples tests/integrate_data.sh tests/hostile.sh" >"$OUT/check.log" 2>&1
row "make check (samples.gpu, t_samples, integrate_data.sh, hostile)" "exit $?"
cat tests/samples.log tests/hostile.log >"$OUT/test-logs.txt" 2>/dev/null
row "samples.gpu: ok / not ok / skip" "$(grep -c '^ok' tests/samples.log) / $(grep -c '^not ok' tests/samples.log) / $(grep -c 'SKIP' tests/samples.log)"
row "hostile samples cases on cuda: not ok" "$(grep 'samples:' tests/hostile.log | grep -c 'not ok')"

# Small stencils of every kind: odd and even counts (Cartwright), floats,
# abscissae from a file (uneven, decreasing), a y that is NaN (the
# classifying rerun and the first-index scan).
awk 'BEGIN { for (i = 0; i < 10007; i++) printf "%.17g\n", -(i + 0.3 * sin(i)) / 7 }' >"$OUT/x.txt"
awk 'BEGIN { for (i = 0; i < 10007; i++) printf "%.17g\n", i == 5000 ? "nan" : cos(i / 100) }' >"$OUT/ynan.txt"
G=./gpuquad
for tool in memcheck racecheck synccheck; do
  for args in "--gen=normal --n=100003 --rule=simpson" "--gen=normal --n=100004 --rule=simpson --dtype=f32" \
    "--gen=uniform --n=4097 --rule=trapezoid" "--gen=uniform --n=10007 --x=$OUT/x.txt --rule=simpson" \
    "--gen=uniform --n=10007 --x=$OUT/x.txt" "$OUT/ynan.txt --x=$OUT/x.txt --rule=simpson"; do
    log="$OUT/sanitize-$tool.log"
    echo "== $args" >>"$log"
    compute-sanitizer --tool "$tool" --error-exitcode 9 $G integrate $args --device=cuda --json >>"$log" 2>&1
    rc=$?
    case $args in *ynan*) want=3 ;; *) want=0 ;; esac
    row "compute-sanitizer $tool: $(echo "$args" | sed "s|$OUT/||g")" "exit $rc (want $want)"
  done
done

# Time: median of 5 of integrate_ms after a warm-up.
median5() { # ARGS...: the median integrate_ms of 5 runs
  $G integrate "$@" --device=cuda --json >/dev/null 2>&1
  for k in 1 2 3 4 5; do
    $G integrate "$@" --device=cuda --json 2>/dev/null | sed -n 's/.*"integrate_ms": \([^,]*\),.*/\1/p'
  done | sort -g | sed -n 3p
}
N=$((1 << 26))
for args in "--gen=normal --n=$N" "--gen=normal --n=$N --rule=simpson" "--gen=normal --n=$((N + 1)) --rule=simpson" \
  "--gen=normal --n=$N --dtype=f32 --rule=simpson"; do
  row "time, ms: $args" "$(median5 $args)"
done
# abscissae from a raw file (perl writes it; skipped without perl)
if command -v perl >/dev/null 2>&1; then
  perl -e '$n = shift; for ($i = 0; $i < $n; $i += 65536) { $m = $n - $i < 65536 ? $n - $i : 65536;
    print pack("d*", map { ($i + $_) * 1e-3 + 1e-4 * sin($i + $_) } 0 .. $m - 1) }' $N >"$OUT/x.f64"
  for rule in trapezoid simpson; do
    row "time, ms: --gen=normal --n=$N --x=x.f64 --rule=$rule" "$(median5 --gen=normal --n=$N --x="$OUT/x.f64" --rule=$rule)"
  done
  rm -f "$OUT/x.f64"
fi
$G integrate --gen=normal --n=$N --rule=simpson --device=cuda --check >"$OUT/check-2e26.txt" 2>&1
row "--check at 2^26 (simpson, dx)" "exit $?"
cat "$table"
