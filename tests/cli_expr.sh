# cli_expr.sh — --f='EXPR' and --param on the command line: results against
# the built-ins and exact values, every kind of parse error (one message line,
# then the expression and a caret), and the report of points where f is not
# finite.  CPU backend, so it runs everywhere.
. "$TESTS_SRC/tap.sh"

# expect_parse_error DESC MESSAGE COLUMN ARGS...: exit 2, nothing on stdout,
# "gpuquad: ..." then the offending text then a caret at COLUMN (0-based).
expect_parse_error() {
  desc=$1 pattern=$2 column=$3
  shift 3
  run "$GPUQUAD" --device=cpu "$@"
  first=$(printf '%s\n' "$err" | sed -n 1p)
  caret=$(printf '%s\n' "$err" | sed -n 3p)
  want_caret=$(printf "%$((column + 2))s^" "")
  if [ "$rc" -eq 2 ] && [ -z "$out" ] && printf '%s\n' "$first" | grep -q "^gpuquad: " &&
     printf '%s\n' "$first" | grep -qF -- "$pattern" && [ "$caret" = "$want_caret" ]; then
    ok "$desc: $first"
  else
    not_ok "$desc: exit $rc, stderr '$err' (wanted /$pattern/ and a caret at column $column)"
  fi
}

expect_parse_error "unknown function, with a suggestion" "unknown function 'sinn' (did you mean 'sin'?)" 0 --f='sinn(x)'
expect_parse_error "unknown name" "'y'" 4 --f='x + y'
expect_parse_error "wrong argument count" "'atan2' takes 2 arguments" 0 --f='atan2(x)'
expect_parse_error "unbalanced parenthesis" "'(' of 'sin' is never closed" 3 --f='sin((x+1)'
expect_parse_error "trailing garbage" "unexpected number '3' after a complete expression" 7 --f='sin(x) 3'
expect_parse_error "empty expression" "empty expression" 1 --f=' '
expect_parse_error "number overflows" "1e999" 2 --f='x*1e999'
expect_parse_error "chained comparison" "chain" 6 --f='0 < x < 1'

run "$GPUQUAD" --device=cpu --f='sin(k*x)' --param k=3 --param k=4
check "a parameter defined twice: exit 2" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | head -1 | grep -q "^gpuquad: --param k=4: .*twice\|^gpuquad: --param k=4: .*defined"' _ "$rc" "$err"
run "$GPUQUAD" --device=cpu --f='sin(3*x)' --param k=3
check "a parameter never used: exit 2" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | head -1 | grep -q "^gpuquad: --param k=3: .*not used"' _ "$rc" "$err"
run "$GPUQUAD" --device=cpu --f='sin(k*x)' --param k=abc
check "a parameter that is no number: exit 2" test "$rc" -eq 2
run "$GPUQUAD" --device=cpu --f=circle --param k=3
check "a parameter for a built-in: exit 2, one line" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ]' _ "$rc" "$err"

# Values.
run "$GPUQUAD" --device=cpu --f='4*sqrt(1-x^2)' --n=1e6 --quiet
expr_circle=$out
run "$GPUQUAD" --device=cpu --f=circle --n=1e6 --quiet
check "4*sqrt(1-x^2) is the built-in circle to the bit ($out)" test "$expr_circle" = "$out"
run "$GPUQUAD" --device=cpu --f='exp(-x*x)*cos(3*x)' --a=-2 --b=2 --n=1e6
check "the brief's example passes its GSL check" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "gsl_integration_qags"' _ "$rc" "$out"
run "$GPUQUAD" --device=cpu --f='sin(k*x)' --param k=3 --a=0 --b=pi --n=1e5 --quiet
check "--param k=3: int sin(3x) over [0,pi] = 2/3" awk -v v="$out" 'BEGIN { d = v - 2/3; exit !(d < 1e-9 && d > -1e-9) }'
run "$GPUQUAD" --device=cpu --f='x^2' --n=1000 --quiet
check "expressions default to [0, 1]: int x^2 = 1/3" awk -v v="$out" 'BEGIN { d = v - 1/3; exit !(d < 1e-6 && d > -1e-6) }'
run "$GPUQUAD" --device=cpu --f='if(x < 0.5, 1, 2)' --n=1000 --quiet --precision=float
check "if() and --precision=float: 1.5" awk -v v="$out" 'BEGIN { d = v - 1.5; exit !(d < 1e-3 && d > -1e-3) }'
run "$GPUQUAD" --device=cpu --f='exp(-x*x)' --n=1000 --json
check "JSON: integrand is 'expression' with its canonical formula" sh -c 'printf "%s\n" "$1" | grep -q "\"integrand\": \"expression\"" && printf "%s\n" "$1" | grep -q "\"reference_method\": \"gsl_integration_qags\"" && printf "%s\n" "$1" | grep -q "\"jit\": \"none\""' _ "$out"

# Not finite.
run "$GPUQUAD" --device=cpu --f='1/(x-0.5)' --n=1000
check "1/(x-0.5): exit 2, the count and the first x" sh -c '[ "$1" -eq 2 ] && [ "$2" = "gpuquad: f is not finite at 1 of the 999 interior points; the first is x = 0.5" ]' _ "$rc" "$err"
run "$GPUQUAD" --device=cpu --f='log(abs(x-0.5)-0.25)' --n=1000
check "log(|x-0.5|-0.25): 501 points from x = 0.25" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | grep -q "at 501 of the 999 interior points; the first is x = 0.25$"' _ "$rc" "$err"
run "$GPUQUAD" --device=cpu --f='1/sqrt(x)' --n=1000
check "1/sqrt(x) on [0,1]: the endpoint is named" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | grep -q "not finite at the endpoint a = 0"' _ "$rc" "$err"
run "$GPUQUAD" --device=cpu --f='1/sqrt(x)' --a=1e-12 --n=1e6
check "1/sqrt(x) from 1e-12: runs (and the check reports the slow convergence)" sh -c '[ "$1" -eq 0 ] || [ "$1" -eq 1 ]' _ "$rc"
finish
