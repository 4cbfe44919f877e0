# integrate_data.sh — `gpuquad integrate DATA` on the CPU backend: scipy's
# numbers (scipy 1.17.1, scipy.integrate.trapezoid and simpson, printed with
# %.17g: no scipy is needed here), the test's own reference in awk for a
# larger input, the reader options (CSV columns for y and x), generated
# data, --check, --json, and the refusals.
. "$TESTS_SRC/tap.sh"
G="$GPUQUAD"
d="$tap_tmp"
printf '1\n3\n2\n5\n4\n' >"$d/y.txt"
printf '0\n0.5\n1.5\n2\n3.5\n' >"$d/x.txt"
printf '3.5\n2\n1.5\n0.5\n0\n' >"$d/xdown.txt"
printf '1\n3\n2\n5\n' >"$d/y4.txt"
printf '0\n0.5\n1.5\n2\n' >"$d/x4.txt"
printf '# x, y\n0, 1\n0.5, 3\n1.5, 2\n2, 5\n3.5, 4\n' >"$d/xy.csv"

# value DESC WANT ARGS...: the integral printed is WANT (17 digits, or scipy's shortest)
value() {
  desc=$1 want=$2
  shift 2
  run "$G" integrate "$@" --device=cpu --json
  got=$(printf '%s\n' "$out" | sed -n 's/.*"integral": \([^,]*\),.*/\1/p')
  if [ "$rc" -eq 0 ] && awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; s = w < 0 ? -w : w; exit !(d <= 4.5e-16 * s) }'; then
    ok "$desc: $got"
  else
    not_ok "$desc: exit $rc, got '$got', wanted $want ($err)"
  fi
}

value "trapezoid(y, x)" 12 "$d/y.txt" --x="$d/x.txt"
value "simpson(y, x), odd n" 14.569444444444443 "$d/y.txt" --x="$d/x.txt" --rule=simpson
value "simpson(y, x), even n: Cartwright" 5.7777777777777777 "$d/y4.txt" --x="$d/x4.txt" --rule=simpson
value "simpson(y, dx=0.25)" 3.4166666666666665 "$d/y.txt" --dx=0.25 --rule=simpson
value "simpson(y, dx=0.25), even n" 2.041666666666667 "$d/y4.txt" --dx=0.25 --rule=simpson
value "trapezoid(y, dx=0.25)" 3.125 "$d/y.txt" --dx=0.25
value "trapezoid(y), dx defaults to 1" 12.5 "$d/y.txt"
value "simpson(y, x decreasing): signed" -11.597222222222221 "$d/y.txt" --x="$d/xdown.txt" --rule=simpson
value "simpson(y, dx=-0.5): scipy takes a negative dx" -6.833333333333333 "$d/y.txt" --dx=-0.5 --rule=simpson
value "CSV: y from column 2, x from column 1" 14.569444444444443 "$d/xy.csv" --col=2 --x="$d/xy.csv" --x-col=1 --rule=simpson
value "standard input" 12 - --x="$d/x.txt" <"$d/y.txt"

# The test's own reference: 1001 uneven samples, trapezoid and simpson (odd
# n: plain panels) summed by awk in double, against --check's and ours.
awk 'BEGIN { for (i = 0; i <= 1000; i++) { x = (i / 1000) ^ 1.5 * 3; printf "%.17g,%.17g\n", x, sin(x) * exp(-x / 3) } }' >"$d/big.csv"
ref() { # RULE
  awk -F, -v rule="$1" '{ x[NR - 1] = $1; y[NR - 1] = $2 } END {
    n = NR; s = 0
    if (rule == "trapezoid") for (i = 0; i + 1 < n; i++) s += (x[i + 1] - x[i]) * (y[i] + y[i + 1]) / 2
    else for (i = 0; i + 2 < n; i += 2) {
      h0 = x[i + 1] - x[i]; h1 = x[i + 2] - x[i + 1]
      s += (h0 + h1) / 6 * (y[i] * (2 - h1 / h0) + y[i + 1] * (h0 + h1) * (h0 + h1) / (h0 * h1) + y[i + 2] * (2 - h0 / h1))
    }
    printf "%.17g\n", s }' "$d/big.csv"
}
for rule in trapezoid simpson; do
  want=$(ref $rule)
  run "$G" integrate "$d/big.csv" --col=2 --x="$d/big.csv" --x-col=1 --rule=$rule --device=cpu --json --check
  got=$(printf '%s\n' "$out" | sed -n 's/.*"integral": \([^,]*\),.*/\1/p')
  check "$rule of 1001 uneven samples: $got against awk's $want, --check passes" sh -c \
    '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "\"check\": \"passed\"" &&
     awk -v g="$3" -v w="$4" "BEGIN { d = g - w; exit !(d < 1e-13 && d > -1e-13) }"' _ "$rc" "$out" "$got" "$want"
done

# generated samples: linspace 0..1 over n points, spacing 1: both rules are
# exact on a line, so (n-1)/2 to the rounding of the samples i/(n-1)
for rule in trapezoid simpson; do
  for n in 1000001 1000000; do
    run "$G" integrate --gen=linspace --n=$n --rule=$rule --device=cpu --check --json
    got=$(printf '%s\n' "$out" | sed -n 's/.*"integral": \([^,]*\),.*/\1/p')
    check "--gen=linspace --n=$n --rule=$rule: $got = (n-1)/2, checked" sh -c \
      '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "\"check\": \"passed\"" &&
       awk -v g="$3" -v n="$4" "BEGIN { d = g - (n - 1) / 2; exit !(d < 1e-9 && d > -1e-9) }"' _ "$rc" "$out" "$got" "$n"
  done
done

run "$G" integrate "$d/y.txt" --device=cpu --json
check "--json: one object naming the command and the rule" sh -c \
  'printf "%s\n" "$1" | grep -q "^{\"command\": \"integrate-data\"" && printf "%s\n" "$1" | grep -q "\"rule\": \"trapezoid\""' _ "$out"
run "$G" integrate "$d/y.txt" --help
check "integrate DATA --help: the data usage, exit 0" sh -c \
  '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^Usage: gpuquad integrate DATA" && printf "%s\n" "$2" | grep -q -- "--x-col=K"' \
  _ "$rc" "$out"

# refusals: bad input exits 2, a y that is not finite 3
printf '1\n' >"$d/one.txt"
printf '1\n2\nnan\n4\ninf\n' >"$d/ynan.txt"
printf '0\n1\n2\ninf\n4\n' >"$d/xinf.txt"
expect_usage "--dx and --x together" "take one" integrate "$d/y.txt" --dx=1 --x="$d/x.txt" --device=cpu
expect_usage "x and y of different lengths" "has 5 samples but" integrate "$d/y.txt" --x="$d/x4.txt" --device=cpu
expect_usage "one sample" "at least 2 are needed" integrate "$d/one.txt" --device=cpu
expect_usage "an x_i that is not finite" "x\[3\] is Inf" integrate "$d/y.txt" --x="$d/xinf.txt" --device=cpu
expect_usage "--rule=boole" "take trapezoid or simpson" integrate "$d/y.txt" --rule=boole --device=cpu
expect_usage "--dx=inf" "--dx=inf" integrate "$d/y.txt" --dx=inf --device=cpu
expect_usage "--x-col without --x" "goes with --x" integrate "$d/y.txt" --x-col=1 --device=cpu
expect_usage "--gen and DATA" "replaces DATA" integrate "$d/y.txt" --gen=uniform --device=cpu
expect_usage "--nan is not an option here" "nan" integrate "$d/y.txt" --nan=omit --device=cpu
for rule in trapezoid simpson; do
  run "$G" integrate "$d/ynan.txt" --rule=$rule --device=cpu
  check "$rule: y[2] NaN fails the computation (exit 3), naming the first index" sh -c \
    '[ "$1" -eq 3 ] && [ -z "$2" ] && printf "%s\n" "$3" | grep -q "^gpuquad: .*ynan.txt: y\[2\] is NaN"' _ "$rc" "$out" "$err"
done
finish
