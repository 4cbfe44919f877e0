# progress_cli.sh — --progress on the CPU backend: `always` to a file writes
# well-formed plain lines (no \r) ending at 100% for grid points, samples,
# VEGAS iterations, adaptive evaluations, streamed, scanned and histogrammed
# bytes (of a pipe too), and a sweep's integrals; `never`, and `auto` on a
# stderr that is no terminal, write nothing; the results are the same bits
# either way; a bad value is a usage error.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
G="$GPUQUAD"
line='^gpuquad: ([0-9]+\.[0-9]% of [^,]+, [^,]+/s, [^,]+ left|100% of [^,]+ in [0-9.e+-]+ s, [^,]+/s|[0-9.e+]+ [A-Za-z]+, [^,]+/s)$'

# the output less what varies from run to run: times, rates, the busiest side
strip() {
  sed -E -e 's/"[a-z_]*(_ms|_per_s|bound)": [^,}]*//g' -e 's/,[0-9.e+-]+,none,/,none,/' -e '/ time /d' "$1"
}

# always: plain lines, each well formed, the last at 100% of the unit's work
always() {
  desc=$1 unit=$2
  shift 2
  "$G" "$@" --progress=always >"$d/always.out" 2>"$d/always.err"
  rc=$?
  last=$(tail -n 1 "$d/always.err")
  if [ "$rc" -eq 0 ] && [ -s "$d/always.err" ] && ! grep -q "$(printf '\r')" "$d/always.err" &&
     ! grep -E -v "$line" "$d/always.err" | grep -q . &&
     printf '%s\n' "$last" | grep -E -q "^gpuquad: 100% of .* $unit in "; then
    ok "$desc: $(wc -l <"$d/always.err") lines, last '$last'"
  else
    not_ok "$desc: exit $rc, stderr: $(tr '\r' '|' <"$d/always.err")"
  fi
  # the same bits without progress, and nothing on stderr
  "$G" "$@" --progress=never >"$d/never.out" 2>"$d/never.err"
  check "  --progress=never: nothing on stderr" test ! -s "$d/never.err"
  "$G" "$@" >"$d/auto.out" 2>"$d/auto.err"
  check "  auto, stderr a file: nothing on stderr" test ! -s "$d/auto.err"
  strip "$d/always.out" >"$d/always.kept"
  strip "$d/never.out" >"$d/never.kept"
  check "  the same output: $(head -c 60 "$d/never.kept")" cmp -s "$d/always.kept" "$d/never.kept"
}

always "integrate, n = 1e7" points integrate --f='sin(x)*exp(-x)' --a=0 --b=3 --n=10000000 --device=cpu --quiet
always "integrate a 2-D box" points integrate --f='exp(-x1*x2)' --dim=2 --n=2000 --device=cpu --quiet
always "mc, n = 1e7" samples mc --f='x1*x2' --dim=2 --n=10000000 --seed=3 --device=cpu --quiet
always "mc --method=vegas" iterations mc --f='exp(-x1*x1-x2*x2)' --dim=2 --n=300000 --method=vegas --device=cpu --quiet
always "adaptive cubature" evaluations integrate --f='1/sqrt(x1*x2+1e-6)' --dim=2 --a=0 --b=1 --rule=adaptive \
  --epsrel=1e-8 --device=cpu --quiet

# streams: a raw file of 3e6 doubles (three CPU chunks), then scanned
"$G" scan --gen=uniform --n=3000000 --seed=5 --device=cpu --out="$d/u.f64" >/dev/null 2>&1 # sums: data as any
check "a 24 MB raw file to stream" test "$(wc -c <"$d/u.f64")" -eq 24000000
always "stats, a streamed file" "MB" stats "$d/u.f64" --device=cpu --no-check --json
always "dot, two streamed inputs" "MB" dot "$d/u.f64" "$d/u.f64" --device=cpu --no-check --json
always "scan, read in chunks" "MB" scan "$d/u.f64" --device=cpu --out="$d/s.f64"
"$G" scan "$d/u.f64" --device=cpu --out="$d/s2.f64" --progress=always 2>/dev/null >/dev/null
check "  the same sums written" cmp -s "$d/s.f64" "$d/s2.f64"
"$G" dot "$d/u.f64" "$d/u.f64" --device=cpu --no-check --json --progress=always 2>"$d/dot.err" >/dev/null
check "dot: the total is both inputs, 48 MB" grep -q "^gpuquad: 100% of 48 MB in " "$d/dot.err"

# hist reads its files into memory in chunks (1 Mi numbers) before it counts
always "hist, a file read in chunks" "MB" hist "$d/u.f64" --bins=64 --device=cpu --json
check "  hist: a line before the end, the last at 100% of the file's 24 MB" \
  sh -c '[ "$(wc -l <"$1")" -ge 2 ] && tail -n 1 "$1" | grep -q "^gpuquad: 100% of 24 MB in "' _ "$d/always.err"
always "hist --values, two files" "MB" hist "$d/u.f64" --values="$d/u.f64" --bins=64 --device=cpu --csv
check "  hist: the total is both inputs, 48 MB" grep -q "^gpuquad: 100% of 48 MB in " "$d/always.err"
cat "$d/u.f64" | "$G" hist - --dtype=f64 --bins=64 --device=cpu --csv --progress=always >"$d/pipe.out" 2>"$d/pipe.err"
check "hist from a pipe: bytes without a total, each line well formed, then 100% of 24 MB" \
  sh -c 'grep -E -q "^gpuquad: [0-9.]+ MB, [^,]+/s$" "$1" && ! grep -E -v "$2" "$1" | grep -q . &&
         tail -n 1 "$1" | grep -q "^gpuquad: 100% of 24 MB in "' _ "$d/pipe.err" "$line"
"$G" hist "$d/u.f64" --bins=64 --device=cpu --csv --progress=never >"$d/file.out" 2>/dev/null
check "  the same counts as from the file without progress" cmp -s "$d/pipe.out" "$d/file.out"

# a sweep counts its integrals
always "a sweep of 3 integrals" integrals integrate --f='sin(k*x)' --a=0 --b=1 --n=1000 --param k=1:3:1 \
  --device=cpu --csv
check "  the sweep's lines count integrals only" sh -c '! grep -q points "$1"' _ "$d/always.err"

expect_usage "--progress=sometimes" "--progress=sometimes: expected auto, always or never" \
  integrate --f=sin --progress=sometimes --device=cpu
expect_usage "mc --progress=" "expected auto, always or never" mc --f=x --progress= --device=cpu
run "$G" hist --gen=uniform --n=1000 --bins=4 --device=cpu --progress=never
check "hist takes --progress too (exit $rc)" test "$rc" -eq 0
expect_usage "hist --progress=often, before any reading" "--progress=often: expected auto, always or never" \
  hist "$d/nope.f64" --bins=4 --device=cpu --progress=often
finish
