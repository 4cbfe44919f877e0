# adaptive_cli.sh — `gpuquad --rule=adaptive` end to end on the CPU backend:
# the table, --json and --quiet; the check against the box references; an
# accuracy not reached (exit 1, said on stderr with the accuracy reached);
# bad options (exit 2, one line).
. "$TESTS_SRC/tap.sh"
G="$GPUQUAD"

run "$G" --f='1/sqrt(x)' --rule=adaptive --epsrel=1e-10 --device=cpu
check "1/sqrt(x) on [0, 1]: exit 0" test "$rc" -eq 0
check "the table says reached" sh -c 'printf "%s\n" "$1" | grep -q "tolerance .*: reached"' _ "$out"
check "the check passed" sh -c 'printf "%s\n" "$1" | grep -q "difference .*: ok"' _ "$out"
run "$G" --f='exp(-(x1^2+x2^2+x3^2))' --dim=3 --a=-inf --b=inf --rule adaptive --epsrel=1e-7 --device=cpu --json
check "a Gaussian over R^3: exit 0" test "$rc" -eq 0
for key in estimate error_estimate evaluations regions passes; do
  check "--json has $key" sh -c 'printf "%s\n" "$1" | grep -q "\"$2\": [0-9-]"' _ "$out" "$key"
done
check "--json: reached true" sh -c 'printf "%s\n" "$1" | grep -q "\"reached\": true"' _ "$out"
check "--json: the check passed" sh -c 'printf "%s\n" "$1" | grep -q "\"check\": \"passed\""' _ "$out"
run "$G" --f='x1*x2*x3*x4*x5*x6*x7' --dim=7 --rule=adaptive --quiet --no-check --device=cpu
check "7-D, --quiet: 1/128 to 1e-15" awk -v v="$out" 'BEGIN { d = v - 0.0078125; exit !(d < 1e-17 && d > -1e-17) }' 
run "$G" --f='x1*x2*x3*x4*x5*x6*x7' --dim=7 --rule=adaptive --quiet --device=cpu
check "7-D with --check: no reference, exit 1" test "$rc" -eq 1
check "... and it says why" sh -c 'printf "%s\n" "$1" | grep -q "no reference for a box of 7 dimensions"' _ "$err"
run "$G" --f='exp(-9*((x1-0.4)^2+(x2-0.4)^2+(x3-0.4)^2+(x4-0.4)^2+(x5-0.4)^2))' --dim=5 --rule=adaptive \
  --epsrel=1e-12 --max-evals=200000 --device=cpu --no-check --json
check "max-evals reached first: exit 1" test "$rc" -eq 1
check "--json: reached false" sh -c 'printf "%s\n" "$1" | grep -q "\"reached\": false"' _ "$out"
check "--json: stop max-evals" sh -c 'printf "%s\n" "$1" | grep -q "\"stop\": \"max-evals\""' _ "$out"
check "stderr: one line with the accuracy reached" sh -c \
  'test "$(printf "%s\n" "$1" | wc -l)" -eq 1 && printf "%s\n" "$1" | grep -q "^gpuquad: accuracy not reached (max-evals after [0-9]* evaluations): error estimate"' \
  _ "$err"
run "$G" --f='1/((x1-0.3)^2+(x2-0.6)^2+0.0001)' --dim=2 --rule=adaptive --epsrel=1e-13 --max-regions=2000 \
  --device=cpu --no-check --json
check "--max-regions=2000 full first: exit 1" test "$rc" -eq 1
check "--json: stop max-regions" sh -c 'printf "%s\n" "$1" | grep -q "\"stop\": \"max-regions\""' _ "$out"
check "--json: at most 2000 held" sh -c 'h=$(printf "%s\n" "$1" | sed -n "s/.*\"max_regions_held\": \([0-9]*\).*/\1/p"); test -n "$h" && test "$h" -le 2000 && test "$h" -gt 1024' _ "$out"

expect_usage "--dim=9" "--dim=9: " --f=x --dim=9 --rule=adaptive
expect_usage "--max-regions=0" "--max-regions=0: " --f=x --rule=adaptive --max-regions=0
expect_usage "--max-regions below one pass" "the first pass alone holds" --f=x --rule=adaptive --max-regions=10 --device=cpu
expect_usage "--epsrel=-1" "--epsrel=-1: must be >= 0" --f=x --rule=adaptive --epsrel=-1
expect_usage "--epsrel=abc" "--epsrel=abc: " --f=x --rule=adaptive --epsrel=abc
expect_usage "both tolerances 0" "both are 0" --f=x --rule=adaptive --epsrel=0
expect_usage "--epsrel=1e-17" "below 50 eps" --f=x --rule=adaptive --epsrel=1e-17
expect_usage "--max-evals=0" "--max-evals=0: " --f=x --rule=adaptive --max-evals=0
expect_usage "--max-evals below one pass" "the first pass alone takes" --f=x --rule=adaptive --max-evals=100 --device=cpu
expect_usage "--n with adaptive" "chooses its own points" --f=x --rule=adaptive --n=100
expect_usage "--precision=float" "double only" --f=x --rule=adaptive --precision=float
expect_usage "a sweep" "not a sweep" --f='exp(-k*x)' --rule=adaptive --param k=1:2:1 --device=cpu
# --deterministic is every command's: adaptive cubature's bits do not depend on the thread count already
run env OMP_NUM_THREADS=1 "$G" --f='exp(-x1*x2)' --dim=2 --rule=adaptive --epsrel=1e-9 --device=cpu --deterministic --quiet
one=$out
run env OMP_NUM_THREADS=3 "$G" --f='exp(-x1*x2)' --dim=2 --rule=adaptive --epsrel=1e-9 --device=cpu --deterministic --quiet
check "--deterministic: the same bits on 1 and 3 threads ($one)" test "$rc" -eq 0 -a -n "$one" -a "$out" = "$one"
run "$G" --f=x3 --dim=2 --rule=adaptive
check "x3 in 2-D: exit 2 with the parser's caret" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | grep -q "^gpuquad: --f: variable .x3. needs 3 dimensions"' _ "$rc" "$err"
finish
