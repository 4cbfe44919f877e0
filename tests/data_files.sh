# data_files.sh — real-world data files end to end (issue 24), written at run
# time by numpy and Python's csv and zipfile modules (tests/data/make_fixtures.py):
# .npy of every integer, bool and float16 dtype in both byte orders, raw
# files and standard input with --dtype, .npz members stored, deflated and
# zip64, hostile archives, and CSV/TSV with header lines, names, quotes, NA
# cells and a BOM.  Sums are compared exactly (float.hex) with the ones the
# generator computed from numpy's arrays.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
G="$GPUQUAD"
if ! python3 -c 'import numpy' 2>/dev/null; then
  echo "1..0 # SKIP python3 with numpy is needed to write the fixtures"
  exit 0
fi
python3 "$TESTS_SRC/data/make_fixtures.py" "$d" || { echo "Bail out! fixtures"; exit 99; }

# KEY of the JSON object in $out, as float.hex (or the text for strings)
jget() { printf '%s\n' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin).get(sys.argv[1])
print(float(v).hex() if isinstance(v, (int, float)) else v)' "$1"; }
want() { sed -n "s/^$1 //p" "$d/expected"; }

# stats_is DESC EXPECTED-NAME KEY ARGS...: the JSON's KEY is the expected value
stats_is() {
  desc=$1 name=$2 key=$3
  shift 3
  run "$G" stats --json --device=cpu "$@"
  got=$(jget "$key" 2>/dev/null) expect=$(want "$name")
  if [ "$rc" -eq 0 ] && [ -n "$expect" ] && [ "$got" = "$expect" ]; then
    ok "$desc: $key $got"
  else
    not_ok "$desc: exit $rc, $key '$got', want '$expect' ($err)"
  fi
}

# ---- npy: every integer, bool and float16 dtype, both byte orders -----------
for f in "$d"/le*.npy "$d"/be*.npy; do
  b=$(basename "$f" .npy)
  stats_is "npy $b: sum exact" "$b.sum" sum "$f"
  stats_is "npy $b: min" "$b.min" min "$f"
  stats_is "npy $b: max" "$b.max" max "$f"
done
stats_is "npy <f2 with inf and nan, --nan=omit" special_f2.sum sum "$d/special_f2.npy" --nan=omit
run "$G" stats --json --device=cpu "$d/lei4.npy"
check "JSON: dtype f64, stored_dtype int32" test "$(jget dtype) $(jget stored_dtype)" = "f64 int32"
check "JSON: no inexact key when every value is exact" sh -c '! printf "%s" "$1" | grep -q inexact' _ "$out"

# int64/uint64 beyond 2^53: rounded as numpy's astype(float64), counted once
stats_is "npy int64 beyond 2^53: the sum of the rounded values" big_i8.sum sum "$d/big_i8.npy"
check "int64: JSON inexact 3 (2^53 + 1, 2^62 + 1, -2^53 - 3)" test "$(jget inexact)" = "0x1.8000000000000p+1"
check "int64: one note on stderr says so" sh -c 'test "$(printf "%s\n" "$1" | grep -c "note: .*big_i8.npy: 3 int64 values beyond 2^53 rounded")" = 1' _ "$err"
stats_is "npy uint64 beyond 2^53" big_u8.sum sum "$d/big_u8.npy"
check "uint64: 2 inexact (2^64 - 1, 2^63 + 1)" test "$(jget inexact)" = "0x1.0000000000000p+1"

# ---- raw with --dtype, from files and standard input -----------------------
stats_is "raw --dtype=int16" r16.sum sum "$d/r16.raw" --dtype=int16
stats_is "raw --dtype=i2 (numpy's code)" r16.sum sum "$d/r16.raw" --dtype=i2
stats_is "raw --dtype=uint8 (.bin)" u8.sum sum "$d/u8.bin" --dtype=uint8
stats_is "raw --dtype=float16" h.sum sum "$d/h.raw" --dtype=float16
stats_is "stdin: - --dtype=int16 (redirected)" r16.sum sum - --dtype=int16 <"$d/r16.raw"
run sh -c 'cat "$1" | "$2" stats --json --device=cpu --dtype=int16 -' _ "$d/r16.raw" "$G"
check "stdin: - --dtype=int16 through a pipe" test "$(jget sum)" = "$(want r16.sum)"
run sh -c 'cat "$1" | "$2" stats --json --device=cpu --dtype=int16 -' _ "$d/lei2.npy" "$G"
check "stdin: npy content is still npy (--dtype refused for it)" test "$rc" -eq 2
expect_usage "an odd byte count for int16" "not a whole number of int16 elements" stats "$d/u8.bin" --dtype=int16 --device=cpu
expect_usage "unknown dtype lists the names" "unknown dtype 'int'.*int32" stats "$d/u8.bin" --dtype=int --device=cpu
expect_usage "--gen makes floats only" "--gen makes f64 or f32" stats --gen=uniform --n=10 --dtype=int32 --device=cpu

# ---- npz: stored, deflated, one array, zip64 -------------------------------
stats_is "npz stored member x" x.sum sum "$d/stored.npz:x"
stats_is "npz member named with .npy" n16.sum sum "$d/stored.npz:n16.npy"
stats_is "npz with one array, no name" x.sum sum "$d/one.npz"
stats_is "npz with zip64 local header (force_zip64)" x.sum sum "$d/force64.npz:x"
stats_is "npz in zip64 form throughout" n16.sum sum "$d/zip64.npz:n16"
run "$G" stats --json --device=cpu "$d/stored.npz:x"
check "npz: JSON format npz" test "$(jget format)" = npz
if "$G" --version | grep -q "^zlib: built in"; then
  stats_is "npz deflated member x" x.sum sum "$d/deflated.npz:x"
  stats_is "npz deflated int16 member" n16.sum sum "$d/deflated.npz:n16"
  run "$G" dot --check --device=cpu "$d/deflated.npz:x" "$d/stored.npz:y"
  check "dot of two npz members, --check passes" test "$rc" -eq 0
  run "$G" scan --device=cpu "$d/deflated.npz:n16"
  check "scan of a deflated int16 member" test "$rc" -eq 0
  expect_usage "npz deflated data corrupted" "corrupt deflated data in the archive" stats "$d/corrupt.npz:x" --device=cpu
  expect_usage "npz member whose CRC-32 differs" "CRC-32 mismatch" stats "$d/badcrc.npz:x" --device=cpu
  stats_is "npz: the other members of that archive still read" n16.sum sum "$d/badcrc.npz:n16"
else # built without zlib: deflated members are refused, saying so; stored ones work
  expect_usage "npz deflated member without zlib" \
    "deflated (numpy.savez_compressed) and this gpuquad was built without zlib" stats "$d/deflated.npz:x" --device=cpu
fi
expect_usage "npz of several arrays, no name: lists them" "holds 3 arrays (x, y, n16): name one as" stats "$d/stored.npz" --device=cpu
expect_usage "npz: no such member" "no array 'z' in the archive (it holds x, y, n16)" stats "$d/stored.npz:z" --device=cpu
run sh -c 'cat "$1" | "$2" stats --device=cpu --format=npz -' _ "$d/stored.npz" "$G"
check "npz from a pipe: refused, saying why" sh -c 'test "$1" -eq 2 && printf "%s" "$2" | grep -q "read from a file, not a pipe"' _ "$rc" "$err"
stats_is "npz on standard input redirected from the file" x.sum sum - --format=npz <"$d/one.npz"
expect_usage "npz truncated" "not a zip archive, or truncated" stats "$d/trunc.npz:x" --device=cpu
expect_usage "npz with its end cut" "not a zip archive, or truncated" stats "$d/tail_cut.npz:x" --device=cpu
expect_usage "npz member offset beyond the end" "corrupt zip archive (bad local header)" stats "$d/badoffset.npz:n16" --device=cpu
expect_usage "npz that is no zip" "not a zip archive" stats "$d/notzip.npz" --device=cpu
expect_usage "a missing npz" "nosuch.npz:x: No such file" stats "$d/nosuch.npz:x" --device=cpu

# ---- CSV and TSV with a header line ----------------------------------------
stats_is "csv: --col by a quoted name, NA and empty cells omitted" table.pressure.sum sum "$d/table.csv" --col="pressure, kPa" --nan=omit
stats_is "csv: count of kept values" table.pressure.n n "$d/table.csv" --col="pressure, kPa" --nan=omit
stats_is "csv: --col by number still works (header detected)" table.time.sum sum "$d/table.csv" --col=1
stats_is "tsv: empty cells are NaN" table.pressure.sum sum "$d/table.tsv" --col="pressure, kPa" --nan=omit
stats_is "csv: names from numpy.savetxt's commented header" savetxt.b.sum sum "$d/savetxt.csv" --col=b
stats_is "csv from standard input, by name" table.time.sum sum - --col=time <"$d/table.csv"
run "$G" stats --device=cpu "$d/table.csv" --col="pressure, kPa"
check "csv: NA cells propagate by default, with the note" sh -c 'printf "%s\n" "$1" | grep -q "note: .*NaN"' _ "$err"
expect_usage "csv: unknown name lists the names" "no column 'pressure' (the header names 'time', 'pressure, kPa', 'note')" stats "$d/table.csv" --col=pressure --device=cpu
expect_usage "csv: --no-header with a name" "--no-header says there is none" stats "$d/table.csv" --col=time --no-header --device=cpu
expect_usage "csv: --no-header reads the names as data" "line 1: .*is not a number" stats "$d/table.csv" --col=1 --no-header --device=cpu
expect_usage "csv: a name on npy" "column applies to text input only" stats "$d/lei4.npy" --col=x --device=cpu
printf '10,20\n1,2\n3,4\n' >"$d/num.csv"
run "$G" stats --json --device=cpu "$d/num.csv" --col=2 --header
check "--header takes a numeric first row as the header" test "$(jget sum)" = "0x1.8000000000000p+2"
run "$G" integrate "$d/line.csv" --col=y --x="$d/line.csv" --x-col=x --json --device=cpu
check "integrate DATA by names: trapezoid of y = 2x on [0, 3] is 9" test "$(jget integral)" = "0x1.2000000000000p+3"
run "$G" hist "$d/table.csv" --col=time --bins=4 --range=0:2 --csv --device=cpu
check "hist --col by name" sh -c 'printf "%s\n" "$1" | grep -q "^0,0,0.5,4"' _ "$out"
run "$G" hist "$d/big_i8.npy" --bins=2 --device=cpu --json
check "hist: the int64 note" sh -c 'printf "%s\n" "$1" | grep -q "note: .*3 int64 values beyond 2^53"' _ "$err"
check "hist: JSON inexact 3" test "$(jget inexact)" = "0x1.8000000000000p+1"
run "$G" integrate "$d/big_i8.npy" --json --device=cpu
check "integrate DATA: JSON inexact 3, and the note" sh -c 'test "$1" = 0x1.8000000000000p+1 && printf "%s" "$2" | grep -q "note: .*big_i8.npy: 3 int64"' _ "$(jget inexact)" "$err"
finish
