# cli_output.sh — the table, --quiet, --json, and the forms of the options.
. "$TESTS_SRC/tap.sh"

run "$GPUQUAD" --f=circle --n=1e6 --device=cpu
check "table: exit 0" test "$rc" -eq 0
for label in "estimate" "error est." "reference" "difference" "backend" "points" "kernel time" "wall time"; do
  check "table shows '$label'" sh -c 'printf "%s\n" "$1" | grep -q "^  $2 "' _ "$out" "$label"
done
check "table: check ok" sh -c 'printf "%s\n" "$1" | grep -q "difference .*: ok$"' _ "$out"
check "table: points = n + 1" sh -c 'printf "%s\n" "$1" | grep -q "points *1000001$"' _ "$out"
check "--device=cpu prints no fallback note" test -z "$err"

run "$GPUQUAD" --f=circle --n=1e6 --device=cpu --quiet
check "--quiet prints one number" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ]' _ "$out"
check "--quiet: pi to 1e-8" awk -v v="$out" 'BEGIN { d = v - 3.14159265358979; exit !(d < 1e-8 && d > -1e-8) }'
q1=$out

run "$GPUQUAD" integrate --f circle --n 1000000 --device cpu --quiet
check "'integrate' and space-separated values give the same" test "$out" = "$q1"
run "$GPUQUAD" --device=cpu --quiet --n=2^20
check "--n=2^20 accepted" test "$rc" -eq 0
run "$GPUQUAD" --device=cpu --quiet --n=1Mi
check "--n=1Mi is 2^20" test "$out" = "$(cd . && "$GPUQUAD" --device=cpu --quiet --n=1048576)"

run "$GPUQUAD" --f=gauss --a=2 --b=-1 --n=1e5 --device=cpu --quiet
neg=$out
run "$GPUQUAD" --f=gauss --a=-1 --b=2 --n=1e5 --device=cpu --quiet
check "b < a negates" awk -v x="$neg" -v y="$out" 'BEGIN { d = x + y; exit !(d < 1e-14 && d > -1e-14 && y > 1) }'

run "$GPUQUAD" --f=sin --a=0 --b=pi --n=1e5 --device=cpu --precision=float --quiet
check "--precision=float, --b=pi: 2 to 1e-6" awk -v v="$out" 'BEGIN { d = v - 2; exit !(d < 1e-6 && d > -1e-6) }'

run "$GPUQUAD" --f=exp --n=1000 --device=cpu --json
check "--json: exit 0" test "$rc" -eq 0
check "--json: one line" test "$(lines "$out")" -eq 1
for key in command integrand formula a b n points rule precision estimate coarse_estimate error_estimate \
           reference reference_error reference_method difference tolerance check backend device \
           kernel_ms wall_ms points_per_second; do
  check "--json has \"$key\"" sh -c 'printf "%s\n" "$1" | grep -q "\"$2\": "' _ "$out" "$key"
done
if command -v python3 >/dev/null 2>&1; then
  check "--json parses, with the right types and values" python3 -c '
import json, math, sys
o = json.loads(sys.argv[1])
assert o["command"] == "integrate" and o["integrand"] == "exp" and o["n"] == 1000 and o["points"] == 1001
assert o["check"] == "passed" and o["backend"] == "cpu" and o["reference_method"] == "exact"
assert abs(o["reference"] - (math.e - 1)) < 1e-15
assert abs(o["estimate"] - o["reference"]) <= o["tolerance"]
assert isinstance(o["kernel_ms"], float) and o["wall_ms"] >= o["kernel_ms"]
' "$out"
fi
run "$GPUQUAD" --f=exp --n=1000 --device=cpu --json --no-check
check "--json --no-check: check skipped, no reference" sh -c 'printf "%s\n" "$1" | grep -q "\"check\": \"skipped\"" && ! printf "%s\n" "$1" | grep -q "\"reference\""' _ "$out"

# Issue 13: an integral that does not exist is a check that cannot be made:
# the estimate is shown, unconfirmed, the reason on stderr, exit 1.
run "$GPUQUAD" --f='tan(x)' --a=0 --b=3 --n=1000 --device=cpu
check "no integral: exit 1" test "$rc" -eq 1
check "no integral: the table says there is no reference" sh -c 'printf "%s\n" "$1" | grep -q "^  reference    none: the check could not be made" && ! printf "%s\n" "$1" | grep -q ": ok$"' _ "$out"
check "no integral: one line on stderr, naming the integral of |f|" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s\n" "$1" | grep -q "^gpuquad: check could not be made: no reference: the integral of |f|"' _ "$err"
run "$GPUQUAD" --f='tan(x)' --a=0 --b=3 --n=1000 --device=cpu --json
if command -v python3 >/dev/null 2>&1; then
  check "no integral, --json: check \"not made\", a message, no reference" python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["check"] == "not made" and "does not converge" in o["check_message"] and "reference" not in o
' "$out"
fi

CUDA_VISIBLE_DEVICES= run "$GPUQUAD" --n=1000
check "auto without a GPU: runs on the CPU" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "backend *CPU"' _ "$rc" "$out"
check "auto without a GPU: one note on stderr" sh -c '[ "$1" = "gpuquad: no CUDA device found; using the CPU backend" ]' _ "$err"
CUDA_VISIBLE_DEVICES= run "$GPUQUAD" --n=1000 --quiet
check "--quiet silences the note" test -z "$err"
# Output that cannot be written is a failed run (issue 13, item 10): a full
# disk, a closed stdout, a reader gone.  One line "gpuquad: write error: ...",
# exit 3, for every command, never 0 and never a signal.
for args in "--n=100 --device=cpu" "--n=100 --device=cpu --json" "--n=100 --device=cpu --quiet" "--help" \
  "--list" "--version" "help" "mc --f=x --n=100 --device=cpu" "mc --help" "stats --gen=uniform --n=100 --device=cpu" \
  "dot --gen=uniform --n=100 --device=cpu --json" "rms --gen=uniform --n=100 --device=cpu" "bench --help" \
  "bench --list"; do
  if [ -w /dev/full ]; then
    # shellcheck disable=SC2086
    run sh -c '"$0" "$@" >/dev/full' "$GPUQUAD" $args
    check "$args >/dev/full: exit 3, one line 'write error: No space left'" sh -c '[ "$1" -eq 3 ] &&
      [ "$2" = "gpuquad: write error: No space left on device" ]' _ "$rc" "$err"
  fi
  # shellcheck disable=SC2086
  run sh -c '"$0" "$@" >&-' "$GPUQUAD" $args
  check "$args >&-: exit 3, one line 'write error'" sh -c '[ "$1" -eq 3 ] &&
    [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] && printf "%s\n" "$2" | grep -q "^gpuquad: write error: "' _ "$rc" "$err"
done
# A failed check whose output is lost: the run failed (3), and says both.
if [ -w /dev/full ]; then
  run sh -c '"$0" "$@" >/dev/full' "$GPUQUAD" --f=sin --a=0 --b=311.01767270538954 --n=99 --device=cpu
  check "check failed into /dev/full: exit 3, both messages" sh -c '[ "$1" -eq 3 ] &&
    printf "%s\n" "$2" | grep -q "^gpuquad: check failed" && printf "%s\n" "$2" | grep -q "^gpuquad: write error"' _ "$rc" "$err"
fi
# A closed stdout is not handed to the next file opened: the output of
# stats must not land in the input it reads (it would be read as data).
printf '1\n2\n3\n' >"$tap_tmp/three.txt"
run sh -c '"$0" stats "$1" --device=cpu >&-' "$GPUQUAD" "$tap_tmp/three.txt"
check "stats with stdout closed: exit 3, the input untouched" sh -c '[ "$1" -eq 3 ] &&
  [ "$(cat "$2")" = "$(printf "1\n2\n3")" ]' _ "$rc" "$tap_tmp/three.txt"
# stderr holds only messages: a note lost there (no GPU: the CPU fallback)
# does not fail a run whose result was written.
CUDA_VISIBLE_DEVICES= run sh -c '"$0" --n=100 2>&-' "$GPUQUAD"
check "stderr closed: the table still written, exit 0" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^  estimate "' _ "$rc" "$out"
run sh -c '"$0" stats - --device=cpu <&-' "$GPUQUAD"
check "stdin closed: 'stats -' is bad input (exit 2), one line" sh -c '[ "$1" -eq 2 ] && [ -z "$2" ] &&
  [ "$(printf "%s\n" "$3" | wc -l)" -eq 1 ] && printf "%s\n" "$3" | grep -q "^gpuquad: <stdin>: "' _ "$rc" "$out" "$err"
# An output nobody reads: SIGPIPE is ignored, so EPIPE is a write error (3).
# The sleep lets the reader exit before gpuquad writes.
{ sleep 1; "$GPUQUAD" --n=100 --device=cpu; echo $? >"$tap_tmp/pipe_rc"; } 2>"$tap_tmp/pipe_err" | true
check "a reader gone: exit 3, 'write error: Broken pipe'" sh -c '[ "$(cat "$1")" -eq 3 ] &&
  [ "$(cat "$2")" = "gpuquad: write error: Broken pipe" ]' _ "$tap_tmp/pipe_rc" "$tap_tmp/pipe_err"
# A reader that takes one byte: all that was written went into the pipe
# (exit 0), or the reader was gone first (3 with the message); never a signal.
{ "$GPUQUAD" --help; echo $? >"$tap_tmp/head_rc"; } 2>"$tap_tmp/head_err" | head -c1 >/dev/null
check "| head -c1: exit 0, or 3 with 'write error' (no SIGPIPE death)" sh -c 'r=$(cat "$1"); [ "$r" -eq 0 ] ||
  { [ "$r" -eq 3 ] && grep -q "^gpuquad: write error: Broken pipe" "$2"; }' _ "$tap_tmp/head_rc" "$tap_tmp/head_err"

# --json is valid JSON (UTF-8) whatever a file name holds (issue 13, item
# 14): controls as \u00XX, each byte that is no UTF-8 as U+FFFD.
odd=$(printf 'a\tb\001c\377\300\257d\342\202e\355\240\200f\303\251.txt')
printf '1\n2\n3\n' >"$tap_tmp/$odd"
run "$GPUQUAD" stats "$tap_tmp/$odd" --device=cpu --json
check "stats --json of an odd name: exit 0, one line" sh -c '[ "$1" -eq 0 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ]' _ "$rc" "$out"
check "the name is escaped: \\u0009, \\u0001, \\ufffd, and valid UTF-8 kept" sh -c 'printf "%s\n" "$1" |
  grep -qF "a\\u0009b\\u0001c\\ufffd\\ufffd\\ufffdd\\ufffd\\ufffde\\ufffd\\ufffd\\ufffdf$(printf "\303\251").txt\""' _ "$out"
if command -v python3 >/dev/null 2>&1; then
  check "stats --json of an odd name parses as strict UTF-8 JSON" python3 -c '
import json, sys
o = json.loads(sys.stdin.buffer.read().decode("utf-8"))
assert o["input"].endswith("a\tb\x01c\ufffd\ufffd\ufffdd\ufffd\ufffde\ufffd\ufffd\ufffdf\u00e9.txt"), o["input"]
assert o["sum"] == 6' <"$tap_tmp/out"
fi

# A message is one line whatever a name holds (issue 13, item 14): control
# characters and bytes that are no UTF-8 are escaped.
run "$GPUQUAD" stats "$tap_tmp/$(printf 'no\nsuch\033[31m\377')" --device=cpu
check "a newline in a file name: one line, escaped" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] &&
  printf "%s\n" "$2" | grep -qF "no\\nsuch\\x1b[31m\\xff"' _ "$rc" "$err"
run "$GPUQUAD" --f="$(printf 'x+\n+y')" --device=cpu
check "a newline in --f: the message, the escaped text and the caret, 3 lines" sh -c '[ "$1" -eq 2 ] &&
  [ "$(printf "%s\n" "$2" | wc -l)" -eq 3 ] && [ "$(printf "%s\n" "$2" | sed -n 2p)" = "  x+\\n+y" ] &&
  [ "$(printf "%s\n" "$2" | sed -n 3p)" = "       ^" ]' _ "$rc" "$err"
run "$GPUQUAD" --f="$(printf 'sin(k*x)')" --param "$(printf 'k=1\n2')" --device=cpu
check "a newline in --param: one line" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] &&
  printf "%s\n" "$2" | grep -qF "k=1\\n2"' _ "$rc" "$err"
run "$GPUQUAD" "$(printf 'frob\nnicate')"
check "a newline in a command name: one line" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ]' _ "$rc" "$err"
run "$GPUQUAD" bench "$(printf -- '--n=1\n2')"
check "a newline in a bench option: one line" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] &&
  printf "%s\n" "$2" | grep -qF "gpuquad bench: --n=1\\n2"' _ "$rc" "$err"
finish
