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
finish
