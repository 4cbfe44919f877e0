# bench_cli.sh — `gpuquad bench` without a GPU: --help, --list, argument
# errors (one line "gpuquad bench: ..." on stderr, exit 2), gnuplot looked up
# at run time, and a clean exit 2 where there is no CUDA (device); --json and
# --quiet of bench --hist on the CPU backend (bench's own rows: bench_out.gpu).
. "$TESTS_SRC/tap.sh"

run "$GPUQUAD" bench --help
check "bench --help exits 0 with usage" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -q "^Usage: gpuquad bench"' _ "$rc" "$out"
check "bench --help names every option" sh -c 'for o in --method= --type= --op= --n= --reps= --device= --csv= --plot= --json --quiet --list --help; do printf "%s\n" "$1" | grep -q -- "$o" || exit 1; done' _ "$out"

run "$GPUQUAD" bench --list
check "bench --list exits 0, nothing on stderr" sh -c '[ "$1" -eq 0 ] && [ -z "$2" ]' _ "$rc" "$err"
check "bench --list shows 19 methods, one line each" test "$(lines "$out")" -eq 19
for m in "1 interleaved-divergent" "5 last-warp" "10 atomic-block" "13 spin-lock" "14 last-block" "15 cooperative" \
  "17 cub" "18 cublas" "19 production"; do
  check "bench --list shows $m" sh -c 'printf "%s\n" "$1" | grep -Eq "^ ?$2 +$3 +[a-z]"' _ "$out" "${m% *}" "${m#* }"
done
run "$GPUQUAD" --help
check "gpuquad --help names the bench command" sh -c 'printf "%s\n" "$1" | grep -q "^  bench "' _ "$out"

# expect_usage DESC MESSAGE-PATTERN ARGS...
# PREFIX: "gpuquad bench: " for bench's own messages, "gpuquad: bench: " for
# the shared option parser's, which end with where the help is.
expect_usage() {
  prefix=${prefix:-"gpuquad bench: "} desc=$1 pattern=$2
  shift 2
  run "$GPUQUAD" bench "$@"
  if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(lines "$err")" -eq 1 ] &&
     printf '%s\n' "$err" | grep -q "^$prefix" && printf '%s\n' "$err" | grep -q -- "$pattern"; then
    ok "$desc: $err"
  else
    not_ok "$desc: exit $rc, stdout '$out', stderr '$err' (wanted exit 2 and /$pattern/)"
  fi
}
expect_usage "unknown method" "--method: unknown 'nosuch'" --method=nosuch
expect_usage "method number 0" "--method: unknown '0'" --method=0
expect_usage "method number 20" "--method: unknown '20'" --method=1,20
expect_usage "unknown type" "--type: unknown 'int8'" --type=int8
expect_usage "unknown op" "--op: unknown 'mean'" --op=sum,mean
expect_usage "--n=0" "--n=0: must be positive" --n=0
expect_usage "--n with an empty item" "--n=: is empty" --n=1024,
expect_usage "--n above 2^30" "--n=2^31: is too large" --n=1024,2^31
expect_usage "--n=abc" "--n=abc: is not a number" --n=abc
expect_usage "--reps=-1" "--reps=-1: must not be negative" --reps=-1
expect_usage "--reps=x" "--reps=x: is not a number" --reps=x
expect_usage "--reps=0x10" "--reps=0x10: is not a number" --reps=0x10
expect_usage "--reps=' 5'" "--reps= 5: is not a number" "--reps= 5"
expect_usage "--reps=10001" "--reps=10001: is too large (at most 10000)" --reps=10001
expect_usage "--reps=2^64" "--reps=2^64: is too large" --reps=2^64
expect_usage "--n: 2^64 squared" "--n=18446744073709551616^2: is too large" --n=18446744073709551616^2
expect_usage "--n=0x400" "--n=0x400: is not a number" --n=1024,0x400
expect_usage "--n: 80 digits" "--n=99999999999999999999999999999999999999999999999999999999999999999999999999999999: is too large" \
  --n=1024,99999999999999999999999999999999999999999999999999999999999999999999999999999999
expect_usage "method number +3" "--method: unknown '+3x'" --method=+3x
expect_usage "method number 0x3" "--method: unknown '0x3'" --method=0x3
expect_usage "method number ' 3'" "--method: unknown ' 3'" "--method= 3"
expect_usage "--device=cpu" "--device=cpu: expected cuda or cuda:N" --device=cpu
expect_usage "--plot=chart.pdf" "--plot=chart.pdf: the file must end in .png or .svg" --plot=chart.pdf
prefix="gpuquad: bench: " expect_usage "unknown option" "unknown option '--bogus' (see 'gpuquad help bench')" --bogus
prefix="gpuquad: bench: " expect_usage "--csv without a value" "option '--csv' needs a value" --csv
prefix="gpuquad: bench: " expect_usage "extra argument" "unexpected argument 'extra'" extra
prefix="gpuquad: bench: " expect_usage "--hist: unknown option" "unknown option '--bogus'" --hist --bogus
# --json and --quiet: two outputs on stdout, refused together (--csv=FILE is a file beside either)
expect_usage "--json --quiet" "^gpuquad bench: --json and --quiet are two outputs: take one$" --json --quiet --n=1024
expect_usage "--qu --js (abbreviated)" "^gpuquad bench: --json and --quiet are two outputs: take one$" --qu --js
expect_usage "--hist --json --quiet" "^gpuquad bench: --json and --quiet are two outputs: take one$" \
  --hist --device=cpu --n=1000 --json --quiet

# gnuplot is found at run time: none on PATH is a one-line error ...
mkdir "$tap_tmp/empty" "$tap_tmp/fake"
run env PATH="$tap_tmp/empty" "$GPUQUAD" bench --plot=chart.png
check "--plot without gnuplot on PATH: one line, exit 2" sh -c '[ "$1" -eq 2 ] && [ -z "$2" ] &&
  [ "$3" = "gpuquad bench: --plot=chart.png: gnuplot is not on PATH" ]' _ "$rc" "$out" "$err"
# ... and one on PATH gets past that check, to the CUDA one below.
printf '#!/bin/sh\nexit 0\n' >"$tap_tmp/fake/gnuplot"
chmod +x "$tap_tmp/fake/gnuplot"
run env PATH="$tap_tmp/fake" CUDA_VISIBLE_DEVICES= "$GPUQUAD" bench --n=1024 --plot=chart.svg
check "--plot with gnuplot on PATH reaches the device (exit 2, not about gnuplot)" \
  sh -c '[ "$1" -eq 2 ] && ! printf "%s\n" "$2" | grep -q gnuplot' _ "$rc" "$err"

# No GPU: built without CUDA, or no device visible.
if "$GPUQUAD" --version | grep -q "CUDA backend: built in"; then
  reason="no CUDA device"
else
  reason="this gpuquad was built without CUDA"
fi
CUDA_VISIBLE_DEVICES= expect_usage "bench without a GPU" "^gpuquad bench: $reason" --n=1024 --reps=1
# --json and --quiet alone are taken, and print nothing before the device is open
CUDA_VISIBLE_DEVICES= expect_usage "bench --json without a GPU" "^gpuquad bench: $reason" --n=1024 --json
CUDA_VISIBLE_DEVICES= expect_usage "bench --quiet --csv=FILE without a GPU" "^gpuquad bench: $reason" --n=1024 --quiet \
  --csv="$tap_tmp/rows.csv"
# In a CUDA build the CSV file is opened before the device.
csv_error="--csv=/nonexistent/x.csv: cannot write"
[ "$reason" = "no CUDA device" ] || csv_error=$reason
CUDA_VISIBLE_DEVICES= expect_usage "--csv that cannot be written" "$csv_error" \
  --csv=/nonexistent/x.csv
# gpuquad bench --hist: the histogram methods; --device=cpu runs the same
# checks on the CPU backend (one method, every row).
run "$GPUQUAD" bench --hist --help
check "bench --hist --help exits 0 and names its options" sh -c '[ "$1" -eq 0 ] &&
  for o in --bins= --data= --method= --n= --reps= --device= --json --quiet --help uniform hot few equal; do
    printf "%s\n" "$2" | grep -q -- "$o" || exit 1; done' _ "$rc" "$out"
run "$GPUQUAD" bench --hist --device=cpu --n=10007 --reps=1 --bins=16,64
check "bench --hist on the CPU: 4 kinds x 2 bin counts x 6 methods, all verified" sh -c '[ "$1" -eq 0 ] &&
  [ "$(printf "%s\n" "$2" | grep -c "verified yes")" -eq 48 ] && ! printf "%s\n" "$2" | grep -q FAILED &&
  printf "%s\n" "$2" | head -1 | grep -q "^gpuquad bench --hist: CPU"' _ "$rc" "$out"
run "$GPUQUAD" bench --hist --device=cpu --n=1000 --reps=0 --bins=8 --data=hot,equal --method=shared
check "bench --hist --reps=0 verifies only: 2 rows, no times" sh -c '[ "$1" -eq 0 ] &&
  [ "$(printf "%s\n" "$2" | grep -c "verified yes")" -eq 2 ] && ! printf "%s\n" "$2" | grep -q " us "' _ "$rc" "$out"

# --json: an object per table row, in the table's order, with the documented
# keys (numbers as numbers); updates/s and GB/s are n over the median.
hist_args="--hist --device=cpu --n=10007 --reps=1 --bins=16,64 --data=hot,equal --method=all"
run "$GPUQUAD" bench $hist_args
table=$out
run "$GPUQUAD" bench $hist_args --json
num='-\{0,1\}[0-9][0-9.e+-]*'
check "bench --hist --json: exit 0, 24 lines (2 kinds x 2 bin counts x 6 methods), nothing on stderr" \
  sh -c '[ "$1" -eq 0 ] && [ -z "$2" ] && [ "$(printf "%s\n" "$3" | wc -l)" -eq 24 ]' _ "$rc" "$err" "$out"
check "bench --hist --json: every line has the keys and types of gpuquad(1)" sh -c '! printf "%s\n" "$1" | grep -v \
  "^{\"data\": \"\(hot\|equal\)\", \"bins\": \(16\|64\), \"n\": 10007, \"method\": \"[a-z]*\", \"method_ran\": \"[a-z]*\", \"median_us\": $2, \"g_updates_per_s\": $2, \"gb_per_s\": $2, \"verified\": \"yes\"}$"' \
  _ "$out" "$num"
check "bench --hist --json: the table's rows in its order (data, bins, method)" test \
  "$(printf '%s\n' "$out" | sed 's/^{"data": "\([a-z]*\)", "bins": \([0-9]*\), "n": [0-9]*, "method": "\([a-z]*\)".*/\1 \2 \3/')" = \
  "$(printf '%s\n' "$table" | sed -n 's/^\([a-z]*\) *\([0-9]*\) bins  \([a-z]*\) .*/\1 \2 \3/p')"
check "bench --hist --json: g_updates_per_s = n / median_us / 1000, gb_per_s = 8 of it" sh -c 'printf "%s\n" "$1" |
  sed "s/.*\"median_us\": \([^,]*\), \"g_updates_per_s\": \([^,]*\), \"gb_per_s\": \([^,]*\),.*/\1 \2 \3/" |
  awk "{ u = 10007 / (\$1 * 1e3); if (\$1 <= 0 || (\$2 - u) ^ 2 > (1e-12 * u) ^ 2 || (\$3 - 8 * u) ^ 2 > (8e-12 * u) ^ 2) bad = 1 }
       END { exit bad || NR != 24 }"' _ "$out"
run "$GPUQUAD" bench --hist --device=cpu --n=1000 --reps=0 --bins=8 --data=hot,equal --method=shared --json
check "bench --hist --reps=0 --json: null times, verified" test "$out" = '{"data": "hot", "bins": 8, "n": 1000, "method": "shared", "method_ran": "shared", "median_us": null, "g_updates_per_s": null, "gb_per_s": null, "verified": "yes"}
{"data": "equal", "bins": 8, "n": 1000, "method": "shared", "method_ran": "shared", "median_us": null, "g_updates_per_s": null, "gb_per_s": null, "verified": "yes"}'
# --quiet: a median a line, one per row
run "$GPUQUAD" bench $hist_args --quiet
check "bench --hist --quiet: 24 positive medians, one a line, nothing on stderr" sh -c '[ "$1" -eq 0 ] && [ -z "$2" ] &&
  printf "%s\n" "$3" | awk "/^[0-9][0-9.e+-]*\$/ && \$1 > 0 { good++ } END { exit !(good == 24 && NR == 24) }"' _ "$rc" "$err" "$out"
run "$GPUQUAD" bench --hist --device=cpu --n=1000 --reps=0 --bins=8 --data=hot,equal --method=shared --quiet
check "bench --hist --reps=0 --quiet: nan per row (nothing timed)" test "$out" = "nan
nan"
expect_usage "bench --hist --bins=0" "^gpuquad bench: --bins: '0' must be positive" --hist --bins=0
expect_usage "bench --hist --data=foo" "^gpuquad bench: --data: 'foo'" --hist --data=foo
expect_usage "bench --hist --method=bogus" "^gpuquad bench: --method: 'bogus'" --hist --method=bogus
expect_usage "bench --hist --n=2^29" "^gpuquad bench: --n=2^29: is too large" --hist --n=2^29
expect_usage "bench --hist --bins=16,,2" "^gpuquad bench: --bins=16,,2: expected a comma-separated list" --hist --bins=16,,2
expect_usage "bench --hist --device=auto" "^gpuquad bench: --device=auto: expected cuda, cuda:N or cpu" --hist --device=auto
CUDA_VISIBLE_DEVICES= expect_usage "bench --hist without a GPU" "^gpuquad bench: no CUDA device" --hist --n=1024
finish
