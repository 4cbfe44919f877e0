# output_formats.sh — --json, --csv and --quiet on every command that
# computes a result, one schema style: per-dimension values as arrays in
# JSON (mc's a and b, hist's bins, lo, hi in 2-D), --csv the JSON record as a
# header and one row (arrays as key_1, key_2, ...), --quiet the documented
# values one a line; two outputs at once refused.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
printf '1\n2\n3\n4\n5\n' >"$d/y.txt"
printf '2\n4\n6\n8\n10\n' >"$d/z.txt"

# quiet DESC WANTED ARGS...: --quiet prints exactly WANTED (lines given as words)
quiet() {
  desc=$1 wanted=$(printf '%s\n' $2)
  shift 2
  run "$GPUQUAD" "$@" --quiet --device=cpu
  if [ "$rc" -eq 0 ] && [ "$out" = "$wanted" ] && [ -z "$err" ]; then
    ok "--quiet: $desc"
  else
    not_ok "--quiet: $desc: exit $rc, '$(echo $out)', stderr '$err' (wanted '$(echo $wanted)')"
  fi
}
quiet "dot: the dot product" "110" dot "$d/y.txt" "$d/z.txt"
quiet "rms: rms, max |a-b|, relative (||z-y|| / ||z|| = 1/2)" "3.3166247903553998 5 0.5" rms "$d/z.txt" "$d/y.txt"
quiet "stats: mean, sample sd, min, max" "3 1.5811388300841898 1 5" stats "$d/y.txt"
quiet "integrate DATA: the integral" "12" integrate "$d/y.txt"
quiet "integrate DATA, simpson" "12" integrate "$d/y.txt" --rule=simpson
quiet "scan: the total" "15" scan "$d/y.txt"
quiet "hist: the counts" "2 1 2" hist "$d/y.txt" --bins=3
quiet "--rule=adaptive: the estimate" "0.33333333333333331" --f=x^2 --rule=adaptive
printf '{"f": "x"}\n{"f": "x", "b": 2}\n' >"$d/p.jsonl"
quiet "batch: an estimate per problem" "0.5 2" batch "$d/p.jsonl"

# csv_json DESC ARGS...: --csv's header is --json's keys (arrays flattened)
# and its row the same values (times aside)
keys() { # the keys of a one-line JSON object, an array's as KEY_1, KEY_2...
  printf '%s\n' "$1" | sed 's/^{//; s/}$//' | awk '{
    n = split($0, ch, ""); depth = 0; str = 0; cur = ""
    for (i = 1; i <= n; i++) {
      c = ch[i]
      if (c == "\"" && ch[i - 1] != "\\") str = !str
      if (!str && c == "[") depth++
      if (!str && c == "]") depth--
      if (!str && depth == 0 && c == ",") { print cur; cur = ""; continue }
      cur = cur c
    }
    print cur }' | while IFS= read -r member; do
    key=$(printf '%s' "$member" | sed 's/^ *"\([^"]*\)".*/\1/')
    value=$(printf '%s' "$member" | sed 's/^ *"[^"]*": //')
    case $value in
      \[*) printf '%s' "$value" | tr -d '[] ' | tr ',' '\n' | awk -v k="$key" '{ print k "_" NR }' ;;
      *) echo "$key" ;;
    esac
  done | paste -sd, -
}
csv_json() {
  desc=$1
  shift
  run "$GPUQUAD" "$@" --json --device=cpu
  json=$out json_rc=$rc
  run "$GPUQUAD" "$@" --csv --device=cpu
  header=$(printf '%s\n' "$out" | head -1)
  lines=$(lines "$out")
  if [ "$json_rc" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$lines" -eq 2 ] && [ "$header" = "$(keys "$json")" ]; then
    ok "--csv is --json's record: $desc"
  else
    not_ok "--csv is --json's record: $desc: exit $json_rc/$rc, $lines lines, header '$header', keys '$(keys "$json")'"
  fi
}
csv_json "dot" dot "$d/y.txt" "$d/z.txt" --check
csv_json "rms" rms "$d/z.txt" "$d/y.txt"
csv_json "stats" stats "$d/y.txt"
csv_json "integrate DATA" integrate "$d/y.txt" --x="$d/z.txt"
csv_json "scan" scan "$d/y.txt" --check
csv_json "--rule=adaptive, 2-D: a_1, a_2, b_1, b_2" --f='x*y' --dim=2 --rule=adaptive

run "$GPUQUAD" stats "$d/y.txt" --csv --device=cpu
check "--csv: a cell with a comma is quoted (the device)" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q ",\"CPU, [0-9]* OpenMP threads\","' _ "$out"
check "--csv: the values (n 5, sum 15, mean 3)" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "^stats,.*,text,f64,5,5,15,3,2.5,2,"' _ "$out"
run "$GPUQUAD" --f=x^2 --dim=2 --a=0,1 --b=2,3 --rule=adaptive --csv --device=cpu
check "--csv: arrays as columns (a_1 0, a_2 1, b_1 2, b_2 3)" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "^integrate,expression,x^2,2,0,1,2,3,adaptive,"' _ "$out"

# per-dimension values as arrays
run "$GPUQUAD" mc --f='x1*x2*x3' --dim=3 --a=0,0,-1 --b=1,2,1 --n=1000 --json --device=cpu --no-check
check "mc --json: \"a\": [0,0,-1], \"b\": [1,2,1]" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "\"a\": \[0,0,-1\], \"b\": \[1,2,1\]"' _ "$rc" "$out"
check "mc --json: no a1, b1 keys" sh -c '! printf "%s\n" "$1" | grep -q "\"[ab][0-9]\""' _ "$out"
run "$GPUQUAD" mc --f=x --n=1000 --json --device=cpu --no-check
check "mc --json in 1-D: a and b numbers" sh -c 'printf "%s\n" "$1" | grep -q "\"a\": 0, \"b\": 1,"' _ "$out"
run "$GPUQUAD" hist "$d/y.txt" "$d/z.txt" --bins=2,3 --json --device=cpu
check "hist 2-D --json: bins, lo, hi arrays" sh -c 'printf "%s\n" "$1" | grep -q "\"bins\": \[2, 3\], \"lo\": \[1,2\], \"hi\": \[5,10\]"' _ "$out"
check "hist 2-D --json: no bins_y, lo_y, hi_y keys" sh -c '! printf "%s\n" "$1" | grep -q "\\(bins\\|lo\\|hi\\)_y"' _ "$out"

# one output at a time
expect_usage "stats --json --csv" "--json, --csv and --quiet are three outputs: take one" stats "$d/y.txt" --json --csv
expect_usage "scan --quiet --out=-" "--out=- writes the sums to standard output" scan "$d/y.txt" --quiet --out=-
expect_usage "batch --quiet --csv" "choose one" batch "$d/p.jsonl" --quiet --csv
finish
