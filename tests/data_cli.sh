# data_cli.sh — `gpuquad dot|rms|stats` end to end on the CPU backend: every
# kind of bad input (exit 2, one line naming the file and the problem,
# nothing on stdout), the NaN/Inf policies, --gen, stdin, --check (in the
# same pass: pipes, FIFOs), exact statistics, overflow, the JSON shape and
# the exit statuses.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
G="$GPUQUAD"

json_has() { printf '%s\n' "$out" | grep -q "\"$1\": $2"; }

# ---- fixtures ------------------------------------------------------------
printf '1\n2\n3\n4\n' >"$d/a.txt"
printf '1\n2\n3\n5\n' >"$d/b.txt"
printf '1\n2\n3\n' >"$d/short.txt"
printf '1.5\n2.5\nabc\n4\n' >"$d/word.txt"
printf '1 10\n2 20\n3 30\n' >"$d/cols.txt"
printf '1\nnan\n3\ninf\n5\n' >"$d/nan.txt"
: >"$d/empty.txt"
: >"$d/empty.bin"
: >"$d/empty.npy"
mkdir "$d/dir.npy"
printf 'NOTNUMPY-at-all-and-some-more-bytes\n' >"$d/magic.npy"
tail -c +2 "$TESTS_SRC/io/corpus/npy_int" >"$d/int.npy"
LC_ALL=C sed 's/<i4/<c8/' "$d/int.npy" >"$d/complex.npy"
tail -c +2 "$TESTS_SRC/io/corpus/npy_truncated" >"$d/truncated.npy"
tail -c +2 "$TESTS_SRC/io/corpus/npy_empty" >"$d/zero.npy"
tail -c +2 "$TESTS_SRC/io/corpus/npy_v1_f8" >"$d/good.npy"
# a header whose dict does not parse: magic, version 1.0, length 16
printf '\223NUMPY\001\000\020\000{descr: junk!! \n' >"$d/header.npy"
# two f64 values, 1.0 and 2.0, raw
printf '\000\000\000\000\000\000\360\077\000\000\000\000\000\000\000\100' >"$d/two.bin"

# ---- bad input -------------------------------------------------------------
expect_usage "missing file" "nosuch.npy" stats "$d/nosuch.npy" --device=cpu
expect_usage "unreadable (a directory)" "dir.npy" stats "$d/dir.npy" --device=cpu
expect_usage "empty text file" "empty.txt" stats "$d/empty.txt" --device=cpu
expect_usage "empty raw file" "empty.bin: is empty" stats "$d/empty.bin" --device=cpu
expect_usage "empty .npy file" "empty.npy" stats "$d/empty.npy" --device=cpu
expect_usage "empty array in .npy" "zero.npy: is empty" stats "$d/zero.npy" --device=cpu
expect_usage "truncated .npy" "truncated.npy" stats "$d/truncated.npy" --device=cpu
expect_usage "bad magic" "magic.npy" stats "$d/magic.npy" --format=npy --device=cpu
expect_usage "unparseable header" "header.npy" stats "$d/header.npy" --device=cpu
expect_usage "unsupported dtype" "complex.npy.*<c8" stats "$d/complex.npy" --device=cpu
expect_usage "lengths differ (both named)" "a.txt has 4 elements, .*short.txt has 3" dot "$d/a.txt" "$d/short.txt" --device=cpu
expect_usage "lengths differ, rms" "lengths differ" rms "$d/short.txt" "$d/a.txt" --device=cpu
expect_usage "text with a non-number (the line)" "word.txt.*line 3" stats "$d/word.txt" --device=cpu
expect_usage "--offset past the end" "two.bin" stats "$d/two.bin" --format=raw --offset=100 --device=cpu
expect_usage "--col beyond the row" "cols.txt" stats "$d/cols.txt" --col=3 --device=cpu
expect_usage "--nan=error" "nan.txt: 1 NaN and 1 infinite" stats "$d/nan.txt" --nan=error --device=cpu
expect_usage "--nan=bogus" "--nan=bogus: expected propagate, omit or error" stats "$d/a.txt" --nan=bogus
expect_usage "--format=xml" "--format=xml" stats "$d/a.txt" --format=xml
expect_usage "--dtype=f128" "--dtype=f128: unknown dtype" stats "$d/two.bin" --dtype=f128
expect_usage "--gen=zipf" "--gen=zipf" stats --gen=zipf
expect_usage "--gen with a file" "--gen replaces the input files" stats "$d/a.txt" --gen=uniform
expect_usage "--n without --gen" "--n and --seed go with --gen" stats "$d/a.txt" --n=5
expect_usage "dot with one file" "expected 2 input files" dot "$d/a.txt" --device=cpu
expect_usage "both inputs on stdin" "only one input can be standard input" dot - -
expect_usage "three files" "unexpected argument" dot "$d/a.txt" "$d/a.txt" "$d/a.txt"
expect_usage "unknown option" "unknown option '--bogus'" rms --bogus

# ---- results ----------------------------------------------------------------
run "$G" dot "$d/a.txt" "$d/b.txt" --device=cpu --check --json
check "dot: 1+4+9+20 = 34, check passed" sh -c '[ "$1" -eq 0 ]' _ "$rc"
check "dot: value and check" sh -c 'printf "%s\n" "$1" | grep -q "\"dot\": 34," && printf "%s\n" "$1" | grep -q "\"check\": \"passed\""' _ "$out"
run "$G" rms "$d/a.txt" "$d/b.txt" --device=cpu --json
check "rms: sqrt(1/4) = 0.5, max 1, relative 1/sqrt(30)" python3 -c '
import json, math, sys
o = json.loads(sys.argv[1])
assert o["rms"] == 0.5 and o["max_abs"] == 1 and abs(o["relative"] - 1 / math.sqrt(30)) < 1e-16
' "$out"
run "$G" stats "$d/a.txt" --device=cpu --check --json
check "stats: exit 0 with --check" test "$rc" -eq 0
for key in command input format dtype total n sum mean var_sample var_population sd_sample sd_population \
           min argmin max argmax l1 l2 linf nan_count inf_count nan_policy check backend device reduce_ms \
           gb_per_s read_ms copy_ms compute_ms bound wall_ms; do
  check "stats --json has \"$key\"" json_has "$key" ""
done
check "stats: mean 2.5, var 5/3, min 1@0, max 4@3" python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["mean"] == 2.5 and abs(o["var_sample"] - 5 / 3) < 1e-15 and o["var_population"] == 1.25
assert (o["min"], o["argmin"], o["max"], o["argmax"], o["l1"], o["linf"]) == (1, 0, 4, 3, 10, 4)
assert o["total"] == 4 and o["check"] == "passed" and o["bound"] in ("disk", "CPU")
' "$out"
run "$G" stats "$d/two.bin" --device=cpu --json
check "raw f64 by extension: sum 3" json_has sum "3,"
run "$G" stats "$d/two.bin" --format=raw --offset=8 --device=cpu --json
check "--offset=8 skips the first value" json_has sum "2,"
run "$G" stats "$d/cols.txt" --col=2 --device=cpu --json
check "--col=2 takes the second column" json_has sum "60,"
run "$G" stats "$d/good.npy" --device=cpu --check
check "a .npy from the reader's corpus, checked" test "$rc" -eq 0
run "$G" stats - --device=cpu --json <"$d/a.txt"
check "stdin: redirected" json_has sum "10,"
out=$(cat "$d/cols.txt" | "$G" stats - --col=1 --device=cpu --json)
check "stdin: a pipe with --col" json_has sum "6,"

# ---- NaN / Inf ---------------------------------------------------------------
run "$G" stats "$d/nan.txt" --device=cpu --json
check "propagate (default): exit 0" test "$rc" -eq 0
check "propagate: sum null (NaN), min at the NaN" sh -c 'printf "%s\n" "$1" | grep -q "\"sum\": null" && printf "%s\n" "$1" | grep -q "\"argmin\": 1,"' _ "$out"
check "propagate: says so on stderr, one line" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s\n" "$1" | grep -q "1 NaN and 1 infinite terms propagate"' _ "$err"
run "$G" stats "$d/nan.txt" --device=cpu --nan=omit --check --json
check "omit: sum 9 over 3 values, checked" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"sum\": 9," && printf "%s\n" "$1" | grep -q "\"n\": 3,"' _ "$out" "$rc"
check "omit: no note" test -z "$err"
expect_usage "--check with NaN under propagate" "needs --nan=omit" stats "$d/nan.txt" --device=cpu --check
run "$G" dot "$d/nan.txt" "$d/nan.txt" --device=cpu --nan=omit --json
check "dot, omit: 1 + 9 + 25 = 35" json_has dot "35,"

# ---- generated data ------------------------------------------------------------
run "$G" stats --gen=linspace --n=1001 --device=cpu --json --check
check "--gen=linspace: mean 0.5, max 1 at 1000, checked" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"mean\": 0.5," && printf "%s\n" "$1" | grep -q "\"argmax\": 1000,"' _ "$out" "$rc"
run "$G" dot --gen=uniform --n=2^16 --seed=3 --device=cpu --check --json
check "--gen=uniform dot, checked" sh -c '[ "$1" -eq 0 ]' _ "$rc"
a=$out
run "$G" dot --gen=uniform --n=2^16 --seed=3 --device=cpu --json
check "--seed reproduces" sh -c '[ "$(printf "%s" "$1" | grep -o "\"dot\": [^,]*")" = "$(printf "%s" "$2" | grep -o "\"dot\": [^,]*")" ]' _ "$a" "$out"
run "$G" rms --gen=normal --n=1e5 --dtype=f32 --device=cpu --check
check "--gen=normal --dtype=f32 rms, checked" test "$rc" -eq 0
run "$G" stats --gen=normal --n=1e5 --device=cpu
for label in count sum mean variance sd min max norms backend "reduce time" "wall time"; do
  check "stats table shows '$label'" sh -c 'printf "%s\n" "$1" | grep -q "^  $2 "' _ "$out" "$label"
done

# ---- --check in the same pass (issue 13, item 11) -------------------------------
# The reference is fed the chunks as they are read: standard input, /dev/stdin,
# a FIFO and a process substitution are checked, never read twice.
seq 1 1000 >"$d/seq.txt"
run "$G" stats - --check --device=cpu --json <"$d/seq.txt"
check "--check on stdin: passed" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"check\": \"passed\""' _ "$out" "$rc"
out=$(cat "$d/seq.txt" | "$G" stats --check --device=cpu --json /dev/stdin); rc=$?
check "--check on /dev/stdin from a pipe: passed, n = 1000" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"n\": 1000,"' _ "$out" "$rc"
mkfifo "$d/fifo"
(cat "$d/seq.txt" >"$d/fifo" &)
out=$(timeout 20 "$G" stats "$d/fifo" --format=text --check --device=cpu --json); rc=$?
check "--check on a FIFO: no hang, passed" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"check\": \"passed\""' _ "$out" "$rc"
(cat "$d/a.txt" >"$d/fifo" &)
out=$(cat "$d/b.txt" | timeout 20 "$G" dot "$d/fifo" - --format=text --check --device=cpu --json); rc=$?
check "dot --check, a FIFO and a pipe: 34, passed" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"dot\": 34,"' _ "$out" "$rc"
(cat "$d/a.txt" >"$d/fifo" &)
out=$(cat "$d/b.txt" | timeout 20 "$G" rms "$d/fifo" - --format=text --check --device=cpu --json); rc=$?
check "rms --check, a FIFO and a pipe: passed" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"rms\": 0.5,"' _ "$out" "$rc"

# ---- undefined statistics and NaN under --check (item 7) -------------------------
run sh -c 'echo 5 | "$1" stats - --check --device=cpu' _ "$G"
check "one value, --check: exit 0, sample variance undefined" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "variance     undefined"' _ "$out" "$rc"
run sh -c 'printf "7.25\n" | "$1" stats - --check --device=cpu --json' _ "$G"
check "one value, --check --json: passed, var_sample null" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"var_sample\": null" && printf "%s\n" "$1" | grep -q "\"check\": \"passed\""' _ "$out" "$rc"
printf '1\nnan\n3\ninf\n-inf\n5\nnan\n' >"$d/nan2.txt"
run "$G" stats "$d/nan2.txt" --nan=omit --check --device=cpu --json
check "NaN and both infinities, omit, --check: passed, argmax 5" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"argmax\": 5,"' _ "$out" "$rc"
printf 'nan\n2\n' >"$d/nan1.txt"
run "$G" stats "$d/nan1.txt" --nan=omit --check --device=cpu
check "omit leaving one value, --check: exit 0" test "$rc" -eq 0

# ---- exact statistics (item 9) ----------------------------------------------------
run sh -c 'seq 0 9 | "$1" stats - --device=cpu --json' _ "$G"
check "seq 0 9: variance 9.166666666666666, population 8.25, exactly" python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["var_sample"] == 110 / 12 and o["var_population"] == 8.25 and o["mean"] == 4.5, o
' "$out"
python3 -c 'import random
random.seed(7)
print("\n".join(repr(1e7 + random.random()) for _ in range(200003)))' >"$d/big.txt"
for t in 1 2 3; do
  OMP_NUM_THREADS=$t "$G" stats "$d/big.txt" --device=cpu --json >"$d/t$t.json"
done
check "the statistics do not depend on the thread count (1, 2, 3)" python3 -c '
import json, sys
r = [json.load(open(p)) for p in sys.argv[1:]]
keys = ("sum", "mean", "var_sample", "var_population", "sd_sample", "l1", "l2")
assert all(o[k] == r[0][k] for o in r for k in keys), [[o[k] for k in keys] for o in r]
' "$d/t1.json" "$d/t2.json" "$d/t3.json"
check "1e7 + U(0,1): mean and variance within an ulp of exact" python3 -c '
import json, sys
from fractions import Fraction as F
xs = [F(float(l)) for l in open(sys.argv[2])]
n = len(xs); mean = sum(xs) / n; var = sum((x - mean) ** 2 for x in xs) / (n - 1)
o = json.load(open(sys.argv[1]))
import math
assert abs(F(o["mean"]) - mean) <= F(math.ulp(float(mean))), (o["mean"], float(mean))
assert abs(F(o["var_sample"]) - var) <= F(math.ulp(float(var))), (o["var_sample"], float(var))
' "$d/t1.json" "$d/big.txt"
printf '0.1\n0.2\n0.3\n' >"$d/pos.txt"
run "$G" dot "$d/pos.txt" "$d/pos.txt" --device=cpu --json
check "dot: sum |a*b| is never below |dot|" python3 -c '
import json, sys
o = json.loads(sys.argv[1]); assert o["abs_sum"] >= abs(o["dot"]), o
' "$out"

# ---- overflow (item 3) --------------------------------------------------------------
run sh -c 'printf "1e308\n-1e308\n1e308\n" | "$1" stats - --device=cpu --json' _ "$G"
check "1e308, -1e308, 1e308: variance inf (not 0), sd 1.1547e308, a note" sh -c '[ "$3" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"sd_sample\": 1.1547005383792515e+308" && printf "%s\n" "$1" | grep -q "\"var_sample\": null" && printf "%s\n" "$2" | grep -q "overflow: sample variance"' _ "$out" "$err" "$rc"
run sh -c 'printf "8e307\n8e307\n8e307\n" | "$1" stats - --device=cpu' _ "$G"
check "3 x 8e307: mean 8e307, sum overflows (said so)" sh -c 'printf "%s\n" "$1" | grep -q "mean         7.9999999999999999e+307" && printf "%s\n" "$1" | grep -q "overflow     sum"' _ "$out"
printf '1e200\n' >"$d/p200.txt"
printf -- '-1e200\n' >"$d/m200.txt"
run "$G" rms "$d/p200.txt" "$d/m200.txt" --device=cpu --check --json
check "rms of 1e200 against -1e200: 2e200, checked" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "\"rms\": 1.9999999999999999e+200,"' _ "$out" "$rc"
printf '1e308\n1e308\n' >"$d/p308.txt"
run "$G" stats "$d/p308.txt" --device=cpu --check
check "1e308, 1e308: sum inf (not nan), checked against the reference" sh -c '[ "$2" -eq 0 ] && printf "%s\n" "$1" | grep -q "sum          inf"' _ "$out" "$rc"

# ---- help ------------------------------------------------------------------------
for c in dot rms stats; do
  run "$G" $c --help
  check "$c --help: exit 0, usage on stdout" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -q "^Usage: gpuquad $3"' _ "$rc" "$out" "$c"
done
finish
