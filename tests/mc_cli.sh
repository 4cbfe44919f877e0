# mc_cli.sh — gpuquad mc on the command line: the table, JSON, --quiet, --tol,
# the check, reproducibility, and the exit statuses of bad input.
. "$TESTS_SRC/tap.sh"

mc() { run "$GPUQUAD" mc --device=cpu "$@"; }

mc --f='exp(-(x1^2+x2^2))' --dim=2 --a=-3 --b=3 --n=2e5
check "table: exit 0" test "$rc" -eq 0
for label in "mean" "sd" "std. error" "95% CI" "integral" "reference" "z-score" "samples" "seed"; do
  check "table shows '$label'" sh -c 'printf "%s\n" "$1" | grep -q "^  $2 "' _ "$out" "$label"
done
check "table: check ok" sh -c 'printf "%s\n" "$1" | grep -q "z-score .*: ok$"' _ "$out"

mc --f='x1*x2' --dim=2 --a=0,0 --b=1,2 --n=1e5 --json --seed=9
check "json: exit 0" test "$rc" -eq 0
check "json: one line" test "$(lines "$out")" -eq 1
for key in command dims dist n seed mean sd stderr ci95_low ci95_high volume integral integral_stderr \
  reference z check backend kernel_ms; do
  check "json has \"$key\"" sh -c 'printf "%s\n" "$1" | grep -q "\"$2\": "' _ "$out" "$key"
done
check "json: volume 2" sh -c 'printf "%s\n" "$1" | grep -q "\"volume\": 2,"' _ "$out"
check "json: seed 9" sh -c 'printf "%s\n" "$1" | grep -q "\"seed\": 9,"' _ "$out"
if command -v python3 >/dev/null 2>&1; then
  check "json parses" sh -c 'printf "%s\n" "$1" | python3 -c "import json,sys; json.load(sys.stdin)"' _ "$out"
fi

mc --f='sin(x)' --a=0 --b=pi --n=1e5 --quiet --seed=4
q1=$out
check "--quiet prints one number" test "$(lines "$out")" -eq 1
mc --f='sin(x)' --a=0 --b=pi --n=1e5 --quiet --seed=4
check "same seed: same output" test "$out" = "$q1"
mc --f='sin(x)' --a=0 --b=pi --n=1e5 --quiet --seed=5
check "another seed: another estimate" test "$out" != "$q1"
check "sin on [0, pi] near 2" awk -v v="$q1" 'BEGIN { exit !(v > 1.98 && v < 2.02) }'

mc --f=x --n=1e9 --tol=2e-3 --json --no-check
check "--tol: exit 0" test "$rc" -eq 0
check "--tol stops early" sh -c 'printf "%s\n" "$1" | grep -q "\"stopped_by_tol\": true"' _ "$out"

mc --f='x^2' --dist=normal --n=2e5 --json
check "normal: check passes" sh -c 'printf "%s\n" "$1" | grep -q "\"check\": \"passed\""' _ "$out"
check "normal: plain MC reference" sh -c 'printf "%s\n" "$1" | grep -q "gsl_monte_plain_mt19937"' _ "$out"

mc --f=x --n=1e5 --exact=0.5
check "--exact=0.5: exit 0" test "$rc" -eq 0
mc --f=x --n=1e5 --exact=0.6
check "--exact=0.6: check fails, exit 1" test "$rc" -eq 1
check "check failure on stderr" sh -c 'printf "%s\n" "$1" | grep -q "check failed"' _ "$err"

for bad in "--dim=0" "--dim=17" "--dim=2 --a=0,0,1" "--dim=3 --b=1,2" "--a=2 --b=1" "--n=1" "--n=0" \
  "--dist=cauchy" "--method=magic" "--tol=-1" "--seed=-3" "--a=0,,1 --dim=3" "--precision=half"; do
  # shellcheck disable=SC2086
  mc --f=x $bad
  check "$bad: exit 2" test "$rc" -eq 2
  check "$bad: message on stderr" sh -c 'printf "%s\n" "$1" | grep -q "^gpuquad: "' _ "$err"
done
mc --f='x1+x3' --dim=2
check "x3 with --dim=2: exit 2" test "$rc" -eq 2
mc --n=10
check "no --f: exit 2" test "$rc" -eq 2
expect_usage "--method=host-api: moved to bench/" "bench/bench_mc_curand" mc --f=x --method=host-api
mc --f=x --n=100 --method=fused
check "--method=fused still accepted: exit 0" test "$rc" -eq 0
mc --f='1/(x-x)' --n=100
check "f NaN: exit 2" test "$rc" -eq 2
# Issue 13: --tol is reached or said; zero variance passes; no mean is no
# check; a box volume that overflows is an error, not inf.
mc --f=x^2 --tol=1e-4
check "--tol=1e-4 without --n: reached (the default maximum is 2^30)" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "stopped: --tol reached"' _ "$rc" "$out"
mc --f=x^2 --tol=1e-4 --n=1e6 --json --no-check
check "--tol not reached within --n: exit 1" test "$rc" -eq 1
check "--tol not reached: said on stderr" sh -c 'printf "%s\n" "$1" | grep -q "^gpuquad: --tol=1e-4 not reached: the standard error is"' _ "$err"
check "--tol not reached: json tol_reached false" sh -c 'printf "%s\n" "$1" | grep -q "\"tol_reached\": false"' _ "$out"
for f in 1 'x*0+2' 'if(x<2,1,0)' '2^-1074*x'; do
  mc --f="$f" --n=1000
  check "zero variance, $f: exit 0, z finite" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "z-score .*: ok$"' _ "$rc" "$out"
done
mc --f='1/(x-0.5)' --n=1000
check "1/(x-0.5): no mean, exit 1" sh -c '[ "$1" -eq 1 ] && printf "%s\n" "$2" | grep -q "^gpuquad: check could not be made: no reference: f has no mean"' _ "$rc" "$err"
mc --f='1/(x-0.5)' --n=1000 --no-check
check "1/(x-0.5) --no-check: exit 0" test "$rc" -eq 0
mc --f=1 --dim=2 --a=-1e300 --b=1e300 --no-check
check "volume 4e600: exit 2, nothing on stdout" sh -c '[ "$1" -eq 2 ] && [ -z "$2" ] && printf "%s\n" "$3" | grep -q "^gpuquad: the integral overflows a double"' _ "$rc" "$out" "$err"
mc --f=1e-300 --dim=2 --a=-1e300 --b=1e300 --quiet --no-check
check "volume 4e600 times 1e-300: 4e300" awk -v v="$out" 'BEGIN { exit !(v > 3.9999999e300 && v < 4.0000001e300) }'

run "$GPUQUAD" mc --help
check "mc --help: exit 0" test "$rc" -eq 0
check "mc --help mentions --dist" sh -c 'printf "%s\n" "$1" | grep -q -- "--dist"' _ "$out"
finish
