# options_cli.sh — GNU option conventions on every command (getopt_long
# under the shared parser): abbreviations, an ambiguous one refused naming
# the candidates, "--", options after operands, --name value, -h, and the
# words read before the parse (integrate DATA, --rule=adaptive, bench
# --hist) read the same way; each usage error names the command's help, and
# `gpuquad help CMD` is `gpuquad CMD --help` for every command.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
printf '1\n2\n3\n4\n5\n' >"$d/y.txt"
cp "$d/y.txt" "$d/-v.txt"

# same DESC "ARGS1" "ARGS2": both exit 0 with the same stdout, times left
# out (the words split at blanks, no globbing)
set -f
untimed() { printf '%s\n' "$1" | sed -E 's/"[a-z_]*(_ms|_per_s|_per_second)": [0-9.e+-]+//g'; }
same() {
  run "$GPUQUAD" $2
  first_out=$(untimed "$out") first_rc=$rc
  run "$GPUQUAD" $3
  out=$(untimed "$out")
  if [ "$first_rc" -eq 0 ] && [ "$rc" -eq 0 ] && [ -n "$out" ] && [ "$out" = "$first_out" ]; then
    ok "$1"
  else
    not_ok "$1: exit $first_rc and $rc, '$first_out' against '$out'"
  fi
}

run "$GPUQUAD" --ver
check "--ver is --version" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -Eq "^gpuquad [0-9]+\.[0-9]+\.[0-9]+$"' _ "$rc" "$out"
run "$GPUQUAD" --hel
check "--hel is --help" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -q "^Usage: gpuquad \[COMMAND\]"' _ "$rc" "$out"
same "--dev=cpu --qu is --device=cpu --quiet" \
  "--f=x --n=1000 --dev=cpu --qu" \
  "--f=x --n=1000 --device=cpu --quiet"
same "--name value is --name=value" \
  "--f x --n 1000 --device cpu --quiet" \
  "--f=x --n=1000 --device=cpu --quiet"
same "a value may begin with '-': --a -1" \
  "--f=x^2 --a -1 --b=1 --n=1000 --device=cpu --quiet" \
  "--f=x^2 --a=-1 --b=1 --n=1000 --device=cpu --quiet"
run "$GPUQUAD" --f=x^2 --a -1 --b=1 --n=1000 --device=cpu --quiet
check "--a -1: the integral of x^2 over [-1, 1] (trapezoid, n = 1000)" awk -v v="$out" \
  'BEGIN { e = 2 / 3 + 2 * 0.002 * 0.002 / 6; exit !(v - e < 1e-13 && e - v < 1e-13) }'
same "options after the operand" \
  "stats $d/y.txt --json --device=cpu" \
  "stats --json $d/y.txt --device=cpu"
export POSIXLY_CORRECT=1
same "options after the operand under POSIXLY_CORRECT" \
  "stats $d/y.txt --dev=cpu --json" \
  "stats --device=cpu --json $d/y.txt"
unset POSIXLY_CORRECT
run sh -c 'cd "$1" && exec "$2" stats --device=cpu --json -- -v.txt' _ "$d" "$GPUQUAD"
check "-- ends the options: a file named -v.txt" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "\"input\": \"-v.txt\".*\"sum\": 15,"' _ "$rc" "$out"
run "$GPUQUAD" --f=x --n=100 --device=cpu --quiet --param k=1 --param j=2 --f='k*x+j*x^2'
check "--param repeated: both definitions kept (k*x + j*x^2 on [0, 1])" awk -v v="$out" 'BEGIN { e = 0.5 + 2 * (1 / 3.0 + 1 / 60000.0); exit !(v - e < 1e-13 && e - v < 1e-13) }'

# the words read before the parse
same "--rul=adaptive is --rule=adaptive" \
  "--f=x^2 --rul=adaptive --dev=cpu --quiet" \
  "--f=x^2 --rule=adaptive --device=cpu --quiet"
same "--rule adaptive is --rule=adaptive" \
  "--f=x^2 --rule adaptive --device=cpu --quiet" \
  "--f=x^2 --rule=adaptive --device=cpu --quiet"
same "integrate DATA after options" \
  "integrate --rule simpson $d/y.txt --device cpu --json" \
  "integrate $d/y.txt --rule=simpson --device=cpu --json"
same "integrate --ge normal is --gen=normal" \
  "integrate --ge normal --n=100 --device=cpu --json" \
  "integrate --gen=normal --n=100 --device=cpu --json"
same "bench --his --help is bench --hist --help" \
  "bench --his --help" \
  "bench --hist --help"
same "mc --hel is mc --help" \
  "mc --hel" \
  "mc --help"

# refusals: one line naming the command's help
expect_usage "ambiguous --d names the candidates" \
  "^gpuquad: mc: option '--d' is ambiguous: --dim, --dist, --device, --deterministic (see 'gpuquad help mc')$" mc --d=cpu
expect_usage "unknown option names mc's help" "^gpuquad: mc: unknown option '--foo' (see 'gpuquad help mc')$" mc --foo
expect_usage "unknown option, abbreviated value" "^gpuquad: stats: unknown option '--bogus' (see 'gpuquad help stats')$" \
  stats --bogus=1 "$d/y.txt"
expect_usage "no command word: the top help" "^gpuquad: unknown option '--foo' (see 'gpuquad --help')$" --foo
expect_usage "a flag given a value, abbreviated" "^gpuquad: option '--json' takes no value (see 'gpuquad --help')$" --js=1
expect_usage "integrate DATA: unknown option" "^gpuquad: integrate: unknown option '--bogus' (see 'gpuquad help integrate')$" \
  integrate "$d/y.txt" --bogus
expect_usage "a value missing at the end" "^gpuquad: dot: option '--n' needs a value (see 'gpuquad help dot')$" dot --gen=normal --n
expect_usage "one operand too many" "^gpuquad: stats: unexpected argument 'extra' (see 'gpuquad help stats')$" \
  stats "$d/y.txt" extra
for c in integrate bench dot rms stats mc hist scan batch; do
  run "$GPUQUAD" help "$c"
  help_out=$out help_rc=$rc
  run "$GPUQUAD" "$c" --help
  check "help $c is $c --help" sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ] && [ "$3" = "$4" ] && printf "%s\n" "$3" | head -1 | grep -q "^Usage: gpuquad"' \
    _ "$help_rc" "$rc" "$help_out" "$out"
  run "$GPUQUAD" "$c" -h
  check "$c -h is $c --help" test "$out" = "$help_out"
done
finish
