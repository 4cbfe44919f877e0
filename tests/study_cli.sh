# study_cli.sh — integrate --study on the CPU backend: e^x on [0, 1] shows
# each rule's order (trapezoid 2, simpson 4, boole 6, Gauss-Legendre with 2
# nodes 4) between successive n, errors against GSL's reference, rungs at the
# rounding floor marked and two of them ending a ladder; --rule studies one
# rule; JSON Lines; a study is one-dimensional and one integral.
. "$TESTS_SRC/tap.sh"
G="$GPUQUAD"

run "$G" integrate --f='exp(x)' --a=0 --b=1 --study --n=4096 --device=cpu
check "--study: exit 0" test "$rc" -eq 0
check "  against GSL's reference of e - 1" sh -c 'printf "%s\n" "$1" | grep -q "^  reference    1.71828182845904[0-9]*  (gsl_integration_qags"' _ "$out"
# the order column of the last rung of a rule that is clear of rounding
order_at() { printf '%s\n' "$out" | awk -v r="$1" -v n="$2" '$1 == r && $2 == n { print $5 }'; }
near() { awk -v x="$1" -v want="$2" 'BEGIN { exit !(x != "" && x - want < 0.02 && want - x < 0.02) }'; }
check "trapezoid: order 2.00 at n = 4096 ($(order_at trapezoid 4096))" near "$(order_at trapezoid 4096)" 2
check "simpson: order 4.00 at n = 256 ($(order_at simpson 256))" near "$(order_at simpson 256)" 4
check "boole: order 6.00 at n = 32 ($(order_at boole 32))" near "$(order_at boole 32)" 6
check "trapezoid: 11 rungs, n = 4 .. 4096" test "$(printf '%s\n' "$out" | grep -c '^  trapezoid ')" -eq 11
check "the error at n = 4 is |T(1/4) - (e - 1)| = 0.00894" sh -c 'printf "%s\n" "$1" | grep -q "^  trapezoid  *4  1.72722190455751[0-9]*  *0.00894 "' _ "$out"
check "simpson stops after two rungs at rounding" sh -c '[ "$(printf "%s\n" "$1" | grep "^  simpson " | tail -2 | grep -c "(ulps)")" -eq 2 ] && ! printf "%s\n" "$1" | grep -q "^  simpson  *4096 "' _ "$out"

run "$G" integrate --f='exp(x)' --study --rule=gauss-legendre:2 --n=64 --json --device=cpu
check "--rule=gauss-legendre:2 --json: one line per rung, n = 4 .. 64" test "$(lines "$out")" -eq 5
check "  the expected order 4, and the order seen near it" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "\"observed_order\": 3.99[0-9]*, \"order\": 4}"' _ "$out"

expect_usage "--study --dim=2" "one-dimensional" integrate --f='x1*x2' --dim=2 --study --device=cpu
expect_usage "--study --cumulative" "one or the other" integrate --f=sin --study --cumulative --device=cpu
expect_usage "--study with a sweep" "--study: one integral at a time" integrate --f='sin(k*x)' --param k=1:3:1 --study --device=cpu
finish
