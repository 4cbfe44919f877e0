# scan_cli.sh — `gpuquad scan` and `gpuquad integrate --cumulative` end to
# end on the CPU backend: exact sums of small integers, inclusive and
# exclusive, the three output formats (the .npy header read back), f32 in
# and out, a file of more than one chunk (the carry passed on) checked
# against the host's scan, standard input and output, and the cumulative
# integral's values, --with-x and --every.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
G="$GPUQUAD"

seq 1 500 >"$d/seq.txt"
printf '1\n2\n3\n4\n' >"$d/four.txt"

run "$G" scan "$d/four.txt" --device=cpu --out="$d/incl.txt"
check "scan 1 2 3 4: exit 0" test "$rc" -eq 0
check "inclusive sums are 1 3 6 10" test "$(tr '\n' ' ' <"$d/incl.txt")" = "1 3 6 10 "
check "the summary names the total" sh -c 'printf "%s\n" "$1" | grep -q "^  total        10$"' _ "$out"
run "$G" scan "$d/four.txt" --device=cpu --exclusive --method=three-phase --out="$d/excl.txt"
check "exclusive sums are 0 1 3 6" test "$(tr '\n' ' ' <"$d/excl.txt")" = "0 1 3 6 "

run "$G" scan "$d/seq.txt" --device=cpu --out="$d/seq.npy"
check "scan to .npy: exit 0" test "$rc" -eq 0
check ".npy header: magic, <f8, shape (500,)" sh -c 'head -c 128 "$1" | grep -a -q "NUMPY.*<f8.*(500,)"' _ "$d/seq.npy"
check ".npy size: 128-byte header + 500 doubles" test "$(wc -c <"$d/seq.npy")" -eq $((128 + 500 * 8))
run "$G" stats "$d/seq.npy" --device=cpu --json
check "the .npy reads back: max 125250 = 500 * 501 / 2" sh -c 'printf "%s\n" "$1" | grep -q "\"max\": 125250"' _ "$out"
run "$G" scan "$d/seq.txt" --device=cpu --out="$d/seq.f64"
check "raw output: 500 doubles" test "$(wc -c <"$d/seq.f64")" -eq 4000
run "$G" scan "$d/seq.f64" --device=cpu --dtype=f64 --out="$d/seq2.bin"
check "raw input, raw output" test "$rc" -eq 0 -a "$(wc -c <"$d/seq2.bin")" -eq 4000

# f32 in, f32 out
head -c 2000 "$d/seq.f64" >/dev/null
run "$G" scan --gen=uniform --n=1000 --dtype=f32 --device=cpu --out="$d/u.f32" --check
check "f32 generated: 1000 floats written, checked" sh -c '[ "$1" -eq 0 ] && [ "$(wc -c <"$2")" -eq 4000 ]' _ "$rc" "$d/u.f32"
run "$G" scan "$d/u.f32" --device=cpu --out="$d/uu.npy"
check "f32 raw input: an <f4 .npy" sh -c 'head -c 128 "$1" | grep -a -q "<f4.*(1000,)"' _ "$d/uu.npy"

# more than one chunk (4 Mi elements each): the carry passes from chunk to chunk
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import array, sys
a = array.array("d", ((i % 1000) * 0.001 - 0.4 for i in range(5000003)))
a.tofile(open(sys.argv[1], "wb"))' "$d/big.f64"
  run "$G" scan "$d/big.f64" --device=cpu --check --out="$d/big.out.f64"
  check "5000003 doubles in two chunks, every sum checked: exit 0" test "$rc" -eq 0
  check "... the check ran" sh -c 'printf "%s\n" "$1" | grep -q "check .*: ok"' _ "$out"
  run "$G" scan "$d/big.f64" --device=cpu --check --exclusive --method=three-phase
  check "... exclusive, three phases: exit 0" test "$rc" -eq 0
else
  ok "more than one chunk # SKIP no python3 to write the file"
fi

# standard input and output
run sh -c 'printf "1\n2\n3\n" | "$1" scan - --device=cpu --out=-' _ "$G"
check "stdin to stdout: 1 3 6, the summary on stderr" sh -c '[ "$1" -eq 0 ] && [ "$(printf "%s\n" "$2" | tr "\n" " ")" = "1 3 6 " ] && printf "%s\n" "$3" | grep -q "^scan -"' _ "$rc" "$out" "$err"
run sh -c 'printf "1\n2\n" | "$1" scan - --device=cpu --out=- --out-format=npy | cat >/dev/null' _ "$G"
check "an .npy of unknown length to a pipe: refused at the end" sh -c 'printf "%s\n" "$1" | grep -q "cannot mend the .npy header"' _ "$err"

# --cumulative
run "$G" --f='2*x' --a=0 --b=2 --n=4 --device=cpu --cumulative --out="$d/F.txt" --with-x
check "cumulative of 2x on [0, 2]: exit 0" test "$rc" -eq 0
check "x and F: x^2 exactly (the trapezoid is exact for a line)" test "$(tr '\n' ' ' <"$d/F.txt")" = "0 0 0.5 0.25 1 1 1.5 2.25 2 4 "
run "$G" --f='2*x' --a=0 --b=2 --n=10 --device=cpu --cumulative --every=3 --out="$d/F3.npy"
check "--every=3 on 10 intervals: F_0, F_3, F_6, F_9 and F_10" sh -c 'head -c 128 "$1" | grep -a -q "(5,)"' _ "$d/F3.npy"
run "$G" --f='2*x' --a=0 --b=2 --n=10 --device=cpu --cumulative --every=3 --with-x --out="$d/F3x.npy"
check "--with-x: rows of two" sh -c 'head -c 128 "$1" | grep -a -q "(5, 2)"' _ "$d/F3x.npy"
run "$G" --f='3*x^2-2*x+1' --a=0 --b=2 --n=8 --rule=simpson --device=cpu --cumulative --out="$d/S.txt" --with-x
check "cumulative Simpson of a quadratic: x^3 - x^2 + x exactly at every point" \
  test "$(tr '\n' ' ' <"$d/S.txt")" = "0 0 0.25 0.203125 0.5 0.375 0.75 0.609375 1 1 1.25 1.640625 1.5 2.625 1.75 4.046875 2 6 "
run "$G" --f=circle --n=100000 --device=cpu --cumulative
check "summary: F(b) equals the plain rule and passes the check" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "reference .*: ok"' _ "$rc" "$out"
finish
