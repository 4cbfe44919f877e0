# batch_cli.sh — sweeps (--param NAME=LO:HI:STEP, NAME=@FILE, products,
# limits of the parameters) and batch files (gpuquad batch), on the CPU:
# every result bitwise the single run's, good and bad lines, hostile input.
. "$TESTS_SRC/tap.sh"

g() { run "$GPUQUAD" "$@"; }
F='sin(k*x)/(1+x)'

# ---- sweeps: each estimate is the single run's to the bit ------------------
g --f="$F" --b=pi --n=1e4 --param k=1:7:1 --device=cpu --quiet
check "sweep k=1:7:1: exit 0" test "$rc" -eq 0
check "sweep k=1:7:1: 7 estimates" test "$(lines "$out")" -eq 7
sweep=$out
k=1
for v in $sweep; do
  g --f="$F" --b=pi --n=1e4 --param k=$k --device=cpu --quiet
  check "k=$k: the sweep's estimate is the single run's to the bit ($v)" test "$out" = "$v"
  k=$((k + 1))
done

g --f="$F" --b=pi --n=1e4 --param k=1:7:1 --device=cpu --json
check "json lines: 7, one per problem" test "$(lines "$out")" -eq 7
check "json lines: all passed" test "$(printf '%s\n' "$out" | grep -c '"check": "passed"')" -eq 7
check "json lines: in order" sh -c 'printf "%s\n" "$1" | sed -n "3p" | grep -q "\"index\": 2, .*\"params\": {\"k\": 3}"' _ "$out"
if command -v python3 >/dev/null 2>&1; then
  check "json lines parse" sh -c 'printf "%s\n" "$1" | python3 -c "import json,sys; [json.loads(l) for l in sys.stdin]"' _ "$out"
fi

# a product of two parameters, the last varying fastest; a negative step
g --f='a*x^p' --param a=1:2:1 --param p=3:1:-1 --n=100 --rule=simpson --device=cpu --csv
check "product 2 x 3: header and 6 rows" test "$(lines "$out")" -eq 7
check "product: rows in order" sh -c 'printf "%s\n" "$1" | sed -n "2p;7p" | tr "\n" "|" | grep -q "\"a=1 p=3\".*\"a=2 p=1\""' _ "$out"
g --f='2*x^3' --n=100 --rule=simpson --device=cpu --quiet
single=$out
g --f='a*x^p' --param a=2 --param p=3:1:-1 --n=100 --rule=simpson --device=cpu --quiet
check "a=2, p=3 in a sweep is 2*x^3 alone to the bit" test "$(printf '%s\n' "$out" | head -1)" = "$single"

# 0:0.3:0.1 has its four values, the last exactly 0.3
g --f='x+c' --param c=0:0.3:0.1 --n=10 --device=cpu --json
check "0:0.3:0.1 is 4 values" test "$(lines "$out")" -eq 4
check "the last value is 0.3" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "\"c\": 0.3}"' _ "$out"

# @FILE: values with comments, commas and new lines
printf '# the values\n1, 2\n  5 # five\n' >"$tap_tmp/k.txt"
g --f="$F" --b=pi --n=1e4 --param k=@"$tap_tmp/k.txt" --device=cpu --quiet
check "@FILE: three values" test "$(lines "$out")" -eq 3
fromfile=$out
g --f="$F" --b=pi --n=1e4 --param k=5 --device=cpu --quiet
check "@FILE: the third is k=5 alone to the bit" test "$(printf '%s\n' "$fromfile" | tail -1)" = "$out"

# limits of the parameters: --b=k, --b='2*pi/k'
g --f='x' --param k=1:3:1 --b=k --n=10 --device=cpu --quiet
check "--b=k: the integrals of x on [0, k] are k^2/2" test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "0.5 2 4.5 "
g --f='sin(k*x)' --param k=1:2:1 --b='2*pi/k' --n=1000 --device=cpu --json --no-check
check "--b=2*pi/k: exit 0" test "$rc" -eq 0
g --f='x' --param k=2 --b=x --device=cpu
check "a limit may not use x: exit 2 in its record" test "$rc" -eq 2

# mc sweeps: the same seed, the same samples; a parameter in the limits
g mc --f='x^p' --param p=1:3:1 --n=1e4 --seed=3 --device=cpu --quiet
mcs=$out
g mc --f='x^p' --param p=2 --n=1e4 --seed=3 --device=cpu --quiet
check "mc: p=2 in the sweep is the single run's to the bit" test "$(printf '%s\n' "$mcs" | sed -n 2p)" = "$out"
g mc --f='x' --param w=1:2:1 --b=w --n=1e4 --device=cpu --json
check "mc --b=w: 2 records, both passed" test "$(printf '%s\n' "$out" | grep -c '"check": "passed"')" -eq 2

# ---- a sweep parses its expression once and rebinds it to each problem's
# values (batch_params.h): every problem is still its single run to the bit,
# whatever the values fold to (signs, if(), integer powers, power-of-two
# factors), with several parameters, with limits of them, across a chunk.
# single_runs DESC SWEEP-OUTPUT ARGS-BEFORE -- VALUES...: each line of
# SWEEP-OUTPUT against the single run "gpuquad ARGS --param V" (V as
# "k=1" or "a=1 --param p=2") with --quiet.
single_runs() {
  desc=$1 sweep_out=$2
  shift 2
  args=""
  while [ "$1" != "--" ]; do args="$args $1"; shift; done
  shift
  i=0 bad=""
  for v in "$@"; do
    i=$((i + 1))
    set -f
    one=$(eval "\"\$GPUQUAD\" $args --param $v --device=cpu --quiet" 2>/dev/null)
    set +f
    [ "$one" = "$(printf '%s\n' "$sweep_out" | sed -n "${i}p")" ] || bad="$bad [$v: $one]"
  done
  check "$desc: $i problems, each its single run's to the bit$bad" test -z "$bad"
}
g --f='-k*x+x^k+if(k>1,x^2,k)' --a=0.5 --b=2 --n=64 --param k=-2:3:0.5 --device=cpu --quiet
single_runs "signs, powers and if() of k" "$out" "--f='-k*x+x^k+if(k>1,x^2,k)' --a=0.5 --b=2 --n=64" -- \
  k=-2 k=-1.5 k=-1 k=-0.5 k=0 k=0.5 k=1 k=1.5 k=2 k=2.5 k=3
g --f='k*sin(x)' --n=100 --param k=1:6:1 --precision=float --device=cpu --quiet
single_runs "k*sin(x) in float (scale 2^j or none)" "$out" "--f='k*sin(x)' --n=100 --precision=float" -- \
  k=1 k=2 k=3 k=4 k=5 k=6
g --f='a*x^p+c' --n=100 --rule=simpson --param a=1:2:1 --param p=0:2:1 --param c=-1:1:1 --device=cpu --quiet
single_runs "a product of three parameters" "$out" "--f='a*x^p+c' --n=100 --rule=simpson" -- \
  "a=1 --param p=0 --param c=-1" "a=1 --param p=0 --param c=0" "a=1 --param p=0 --param c=1" \
  "a=1 --param p=1 --param c=-1" "a=1 --param p=1 --param c=0" "a=1 --param p=1 --param c=1" \
  "a=1 --param p=2 --param c=-1" "a=1 --param p=2 --param c=0" "a=1 --param p=2 --param c=1" \
  "a=2 --param p=0 --param c=-1" "a=2 --param p=0 --param c=0" "a=2 --param p=0 --param c=1" \
  "a=2 --param p=1 --param c=-1" "a=2 --param p=1 --param c=0" "a=2 --param p=1 --param c=1" \
  "a=2 --param p=2 --param c=-1" "a=2 --param p=2 --param c=0" "a=2 --param p=2 --param c=1"
g --f='exp(-k*x^2)' --a=-k --b='2*k+c' --n=1000 --param k=0.5:2:0.5 --param c=0:1:1 --device=cpu --quiet
single_runs "limits of two parameters" "$out" "--f='exp(-k*x^2)' --a=-k --b='2*k+c' --n=1000" -- \
  "k=0.5 --param c=0" "k=0.5 --param c=1" "k=1 --param c=0" "k=1 --param c=1" \
  "k=1.5 --param c=0" "k=1.5 --param c=1" "k=2 --param c=0" "k=2 --param c=1"
swept=$(printf '%s\n' "$out" | sed -n 5p)
g --f='exp(-1.5*x^2)' --a=-1.5 --b=3 --n=1000 --device=cpu --quiet
check "--a=-k --b=2*k+c at k=1.5, c=0 is --a=-1.5 --b=3 to the bit ($swept)" test "$swept" = "$out"
g --f='x1*k+x2' --dim=2 --a=0,-k --b=k,1 --n=20 --rule=gauss-legendre:3 --param k=1:3:1 --device=cpu --quiet
single_runs "a box with limits of k (gauss-legendre)" "$out" "--f='x1*k+x2' --dim=2 --a=0,-k --b=k,1 --n=20 --rule=gauss-legendre:3" -- \
  k=1 k=2 k=3
g mc --f='x1*k+x2^p' --dim=2 --b=k,1 --n=1e4 --seed=5 --param k=1:2:1 --param p=1:2:1 --device=cpu --quiet
single_runs "mc with parameters in f and the limits" "$out" "mc --f='x1*k+x2^p' --dim=2 --b=k,1 --n=1e4 --seed=5" -- \
  "k=1 --param p=1" "k=1 --param p=2" "k=2 --param p=1" "k=2 --param p=2"
# (an integrand whose checks are quick: GSL's check of sin(k x) at k ~ 10^4 takes
# seconds a problem)
g --f='k/(1+x*x)' --n=10 --param k=1:16390:1 --device=cpu --quiet
single_runs "a sweep over two chunks of 16384 (first, last of the first, first of the second, last)" \
  "$(printf '%s\n' "$out" | sed -n '1p;16384p;16385p;16390p')" "--f='k/(1+x*x)' --n=10" -- \
  k=1 k=16384 k=16385 k=16390
g --f='sin(k*x)/(1+x)' --b=pi --n=100 --param k=2:4:1 --device=cpu --json
swept=$(printf '%s\n' "$out" | sed -n 2p | sed 's/.*"formula": "\([^"]*\)".*/\1/')
g --f='sin(k*x)/(1+x)' --b=pi --n=100 --param k=3 --device=cpu --json
check "the formula of k=3 in the sweep is the single run's ($swept)" \
  sh -c 'printf "%s\n" "$1" | grep -q -F "\"formula\": \"$2\""' _ "$out" "$swept"
g --f='x' --b='0/k' --n=10 --param k=-1:1:1 --device=cpu --json
check "a NaN limit at k=0 only: exit 2, two problems passed" \
  sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | grep -c "\"check\": \"passed\"")" -eq 2 ]' _ "$rc" "$out"
check "  ...and k=0 says why, as its single run would" \
  sh -c 'printf "%s\n" "$1" | sed -n 2p | grep -q -F -- "--b=0/k: the limit is NaN"' _ "$out"

# ---- hostile sweeps: one line, exit 2, before any work ----------------------
expect_usage "STEP 0" "STEP must not be 0" --f="$F" --param k=1:5:0 --device=cpu
expect_usage "a VEGAS sweep" "runs plain Monte Carlo only" mc --f='x^p' --param p=1:2:1 --method=vegas --device=cpu
expect_usage "a Sobol sweep" "runs plain Monte Carlo with Philox only" mc --f='x^p' --param p=1:2:1 --sampler=sobol --device=cpu
expect_usage "a VEGAS option in a sweep" "runs plain Monte Carlo with Philox only" mc --f='x^p' --param p=1:2:1 --bins=50 --device=cpu
expect_usage "a step away from HI" "moves away from HI" --f="$F" --param k=5:1:1 --device=cpu
expect_usage "not LO:HI:STEP" "is not LO:HI:STEP" --f="$F" --param k=1:5 --device=cpu
expect_usage "a bad LO" "LO 'one'" --f="$F" --param k=one:5:1 --device=cpu
expect_usage "NaN step" "STEP 'nan'" --f="$F" --param k=1:5:nan --device=cpu
expect_usage "a huge range" "at most 10000000" --f="$F" --param k=1:1e12:1 --device=cpu
expect_usage "a huge product" "would be 1e+08 problems" --f="$F*c" --param k=1:1e4:1 --param c=1:1e4:1 --device=cpu
expect_usage "a missing file" "@/nonexistent/k.txt" --f="$F" --param k=@/nonexistent/k.txt --device=cpu
printf '1 2 x3\n' >"$tap_tmp/bad.txt"
expect_usage "a bad value in the file" "bad.txt:1: 'x3'" --f="$F" --param k=@"$tap_tmp/bad.txt" --device=cpu
printf '# nothing\n' >"$tap_tmp/empty.txt"
expect_usage "an empty file" "holds no value" --f="$F" --param k=@"$tap_tmp/empty.txt" --device=cpu
expect_usage "a parameter twice" "defined twice" --f="$F" --param k=1:2:1 --param k=3 --device=cpu
g mc --f='x*k' --param k=1:2:1 --method=host-api --device=cpu --json
check "mc sweep --method=host-api: exit 2, each record says why" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | grep -c "bench_mc_curand")" -eq 2 ]' _ "$rc" "$out"
expect_usage "--cumulative with a sweep" "not a sweep" --f="$F" --param k=1:2:1 --cumulative --device=cpu
expect_usage "--plot: not png or svg" "FILE.png or FILE.svg" --f="$F" --param k=1:2:1 --plot=out.txt --device=cpu
# --plot: gnuplot is found on PATH at run time; a stand-in records its script
mkdir -p "$tap_tmp/bin"
printf '#!/bin/sh\ncat >"%s/script.gp"\n' "$tap_tmp" >"$tap_tmp/bin/gnuplot"
chmod +x "$tap_tmp/bin/gnuplot"
run env PATH="$tap_tmp/bin:$PATH" "$GPUQUAD" --f="$F" --b=pi --n=1e4 --param k=1:3:1 --plot="$tap_tmp/s.svg" --device=cpu
check "--plot: exit 0, the table still printed" sh -c '[ "$1" -eq 0 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 4 ]' _ "$rc" "$out"
check "--plot: gnuplot gets the svg terminal, the file, k as x and 3 points with error bars (lines)" sh -c '
  grep -q "^set terminal svg" "$1" && grep -q "^set output .$2.$" "$1" && grep -q "^set xlabel .k.$" "$1" &&
  grep -q "yerrorlines" "$1" && [ "$(grep -c "^[123] " "$1")" -eq 3 ]' _ "$tap_tmp/script.gp" "$tap_tmp/s.svg"
run env PATH="$tap_tmp/bin:$PATH" "$GPUQUAD" --f="$F" --b=pi --param k=2 --csv --plot="$tap_tmp/s.svg" --device=cpu
check "--plot with no parameter that takes several values: exit 2" test "$rc" -eq 2
g --f='sin(q*x)' --param k=1:2:1 --device=cpu --json
check "a parameter the expression does not know: exit 2" test "$rc" -eq 2
check "  ...each record says why" test "$(printf '%s\n' "$out" | grep -c '"status": 2')" -eq 2

# ---- batch files ------------------------------------------------------------
cat >"$tap_tmp/good.jsonl" <<'EOF'
{"f": "sin(k*x)/(1+x)", "b": "pi", "n": 1e4, "param": {"k": "1:3:1"}}

{"command": "mc", "f": "x1*x2", "dim": 2, "a": [0, 0], "b": [1, 2], "n": 20000, "seed": 9}
{"f": "exp(-x^2)", "a": -3, "b": 3, "n": 1000, "rule": "gauss-legendre:4", "check": false}
{"f": "a*x", "param": ["a=2"], "n": "2^10", "precision": "float"}
EOF
g batch --device=cpu "$tap_tmp/good.jsonl"
check "batch: exit 0" test "$rc" -eq 0
check "batch: 6 records (3 + 1 + 1 + 1)" test "$(lines "$out")" -eq 6
check "batch: lines kept (1, 1, 1, 3, 4, 5)" test "$(printf '%s\n' "$out" | sed 's/^{"line": \([0-9]*\),.*/\1/' | tr '\n' ' ')" = "1 1 1 3 4 5 "
check "batch: the check skipped where asked" sh -c 'printf "%s\n" "$1" | sed -n 5p | grep -q "\"check\": \"skipped\""' _ "$out"
batch=$out
g --f="$F" --b=pi --n=1e4 --param k=2 --device=cpu --json
one=$(printf '%s\n' "$out" | sed 's/.*"estimate": \([^,]*\),.*/\1/')
check "batch: line 1's k=2 is the single run's to the bit ($one)" sh -c 'printf "%s\n" "$1" | sed -n 2p | grep -q "\"estimate\": $2,"' _ "$batch" "$one"
g mc --f='x1*x2' --dim=2 --a=0,0 --b=1,2 --n=20000 --seed=9 --device=cpu --json
one=$(printf '%s\n' "$out" | sed 's/.*"integral": \([^,]*\),.*/\1/')
check "batch: the mc line is the single run's to the bit ($one)" sh -c 'printf "%s\n" "$1" | sed -n 4p | grep -q "\"estimate\": $2,"' _ "$batch" "$one"
cat "$tap_tmp/good.jsonl" | "$GPUQUAD" batch --device=cpu - >"$tap_tmp/stdin.out" 2>/dev/null
check "batch -: standard input gives the same estimates" test "$(sed 's/"kernel_ms": [^,]*,//' "$tap_tmp/stdin.out")" = "$(printf '%s\n' "$batch" | sed 's/"kernel_ms": [^,]*,//')"
g batch --device=cpu --csv "$tap_tmp/good.jsonl"
check "batch --csv: a header and 6 rows" test "$(lines "$out")" -eq 7
g batch --device=cpu --table "$tap_tmp/good.jsonl"
check "batch --table: a head and 6 rows" test "$(lines "$out")" -eq 7

# bad lines report their error; the others still run; the exit status is the worst
cat >"$tap_tmp/bad.jsonl" <<'EOF'
{"f": "x", "n": 100}
{"f": "x", "n": 100
not json
{"f": "x", "colour": "red"}
{"f": "sinn(x)"}
{"f": "x", "n": 0}
{"f": "x", "seed": 3}
{"f": "x", "param": {"k": "1:2:0"}}
{"f": "x", "n": [1, 2]}
{"f": "x", "check": "yes"}
{"f": "x", "f": "y"}
{"f": "x\u0000"}
{"f": "x", "a": [[0]]}
{"f": "k*x", "param": {"k": true}}
{"f": "x", "n": 1e999}
{"f": "x", "b": "1e5x"}
{"f": "\ud800"}
{"f": "x"} trailing
{"f": "x", "n": 200}
EOF
g batch --device=cpu "$tap_tmp/bad.jsonl"
check "bad lines: exit 2 (the worst: bad input)" test "$rc" -eq 2
check "bad lines: one record per line, 19" test "$(lines "$out")" -eq 19
check "bad lines: the first and the last ran" test "$(printf '%s\n' "$out" | grep -c '"check": "passed"')" -eq 2
check "bad lines: 17 errors" test "$(printf '%s\n' "$out" | grep -c '"check": "error"')" -eq 17
for why in "expected ',' or '}'" "expected a JSON object" "unknown key" "unknown function 'sinn'" "--n=0" \
  "is an option of mc" "STEP must not be 0" "more values than dimensions" "expected true or false" "given twice" \
  "u0000" "nested too deeply" "item 1 is not a number or a string" "is too large" "--b=1e5x" "lone surrogate" \
  "text after the object"; do
  check "bad lines: says '$why'" sh -c 'printf "%s\n" "$1" | grep -q -F -- "$2"' _ "$out" "$why"
done
if command -v python3 >/dev/null 2>&1; then
  check "bad lines: every record is JSON" sh -c 'printf "%s\n" "$1" | python3 -c "import json,sys; [json.loads(l) for l in sys.stdin]"' _ "$out"
fi

# a check that fails is exit 1 when nothing worse happened
printf '{"command": "mc", "f": "x", "n": 1000, "exact": 0.7}\n{"f": "x", "n": 10}\n' >"$tap_tmp/check.jsonl"
g batch --device=cpu "$tap_tmp/check.jsonl"
check "a failed check: exit 1" test "$rc" -eq 1
check "  ...the other line passed" test "$(printf '%s\n' "$out" | grep -c '"check": "passed"')" -eq 1

expect_usage "batch: no file" "give one FILE.jsonl" batch --device=cpu
expect_usage "batch: a missing file" "nonexistent.jsonl" batch --device=cpu /nonexistent.jsonl
expect_usage "batch: --csv and --table" "choose one" batch --device=cpu --csv --table "$tap_tmp/good.jsonl"
g batch --help
check "batch --help: exit 0 with usage" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^Usage: gpuquad batch"' _ "$rc" "$out"

finish
