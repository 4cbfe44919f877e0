# hist_cli.sh — `gpuquad hist` end to end on the CPU backend: numpy's bins
# (0.3 in bin 2 of ten on [0, 1], hi in the last bin), under/over/NaN apart,
# the default range (the data's min and max; equal values widened by 0.5),
# --values sums and means, 2-D cells, --csv and --json, --check against GSL,
# and bad input (exit 2, one line).
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
G="$GPUQUAD"

printf '0\n0.1\n0.3\n0.5\n1\nnan\n2\n-inf\ninf\n' >"$d/x.txt"
printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n' >"$d/v.txt"
printf '3\n3\n3\n' >"$d/same.txt"
printf '0.1\n0.9\n0.5\n' >"$d/x2.txt"
printf '0.9\n0.1\n1\n' >"$d/y2.txt"
printf 'nan\ninf\n' >"$d/nofinite.txt"

run "$G" hist "$d/x.txt" --bins=10 --range=0:1 --csv --device=cpu
check "csv: 0.3 in bin 2 (numpy's edge 3 is 0.30000000000000004), 0.1 in bin 1" \
  sh -c 'printf "%s\n" "$0" | grep -q "^2,0.20000000000000001,0.30000000000000004,1$" &&
         printf "%s\n" "$0" | grep -q "^1,0.10000000000000001,0.20000000000000001,1$"' "$out"
check "csv: hi (1) in the last bin, closed" sh -c 'printf "%s\n" "$0" | grep -q "^9,0.90000000000000002,1,1$"' "$out"
check "csv: under 1 (-inf), over 2 (2, inf), nan 1" \
  sh -c 'printf "%s\n" "$0" | grep -q "^under,,,1$" && printf "%s\n" "$0" | grep -q "^over,,,2$" &&
         printf "%s\n" "$0" | grep -q "^nan,,,1$"' "$out"
check "csv: exit 0, nothing on stderr" test "$rc" -eq 0 -a -z "$err"

run "$G" hist "$d/x.txt" --bins=10 --range=0:1 --check --device=cpu
check "--check against GSL passes, exit 0" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$0" | grep -q "check .*counts equal"' "$out" "$rc"

run "$G" hist "$d/x.txt" --bins=4 --json --device=cpu
check "default range: the finite min and max [0, 2]" \
  sh -c 'printf "%s\n" "$0" | grep -q "\"lo\": 0, \"hi\": 2, \"counts\": \[3, 1, 1, 1\]"' "$out"

run "$G" hist "$d/same.txt" --bins=2 --json --device=cpu
check "equal values: the range widened by 0.5 ([2.5, 3.5]), both in the last bin" \
  sh -c 'printf "%s\n" "$0" | grep -q "\"lo\": 2.5, \"hi\": 3.5, \"counts\": \[0, 3\]"' "$out"

run "$G" hist "$d/x.txt" --bins=2 --range=0:1 --values="$d/v.txt" --sum=compensated --json --check --device=cpu
check "--values: sums per bin (1+2+3, 4+5), check passes" \
  sh -c 'printf "%s\n" "$0" | grep -q "\"counts\": \[3, 2\], \"sums\": \[6, 9\], \"sum\": \"compensated\"" &&
         printf "%s\n" "$0" | grep -q "\"check\": \"passed\""' "$out"
run "$G" hist "$d/x.txt" --bins=2 --range=0:1 --values="$d/v.txt" --csv --device=cpu
check "--values csv: count, sum and mean" sh -c 'printf "%s\n" "$0" | grep -q "^1,0.5,1,2,9,4.5$"' "$out"

run "$G" hist "$d/x2.txt" "$d/y2.txt" --bins=2,2 --range=0:1,0:1 --csv --check --device=cpu
check "2-D: cells (0,1), (1,0), (1,1)" \
  sh -c 'printf "%s\n" "$0" | grep -q "^0,1,0,0.5,0.5,1,1$" && printf "%s\n" "$0" | grep -q "^1,0,0.5,1,0,0.5,1$" &&
         printf "%s\n" "$0" | grep -q "^1,1,0.5,1,0.5,1,1$"' "$out"

run "$G" hist --gen=uniform --n=20000 --bins=256 --range=0:1 --check --device=cpu
check "--gen uniform, 256 bins, --check" test "$rc" -eq 0
run "$G" hist --gen=normal --n=20000 --bins=3,5 --check --device=cpu
check "--gen normal, 2-D, default ranges, --check" test "$rc" -eq 0

# --plot: gnuplot is found on PATH at run time; a stand-in records its script
mkdir "$d/bin" "$d/nobin"
printf '#!/bin/sh\ncat >"%s/script.gp"\n' "$d" >"$d/bin/gnuplot"
chmod +x "$d/bin/gnuplot"
run env PATH="$d/bin:$PATH" "$G" hist "$d/x.txt" --bins=2 --range=0:1 --plot="$d/h.svg" --device=cpu
check "--plot: gnuplot gets the svg terminal, the file and the two bars (centre, count, width)" \
  sh -c '[ "$1" -eq 0 ] && grep -q "^set terminal svg" "$0" && grep -q "^set output .*h.svg.$" "$0" &&
         grep -q "^0.25 3 0.5$" "$0" && grep -q "^0.75 2 0.5$" "$0" && grep -q "^e$" "$0"' "$d/script.gp" "$rc"
run env PATH="$d/bin:$PATH" "$G" hist "$d/x2.txt" "$d/y2.txt" --bins=2,2 --range=0:1,0:1 --plot="$d/h.png" --device=cpu
check "--plot 2-D: pngcairo, a heat map of the cells" \
  sh -c '[ "$1" -eq 0 ] && grep -q "^set terminal pngcairo" "$0" && grep -q "with image" "$0" && grep -q "^0.75 0.75 1$" "$0"' \
  "$d/script.gp" "$rc"
run env PATH="$d/nobin" "$G" hist "$d/x.txt" --bins=2 --plot="$d/h.svg" --device=cpu
check "--plot without gnuplot on PATH: exit 2, one line saying so" \
  sh -c '[ "$1" -eq 2 ] && [ -z "$2" ] && printf "%s\n" "$0" | grep -q "^gpuquad: --plot=.*gnuplot was not found on PATH"' "$err" "$rc" "$out"
expect_usage "--plot to another kind of file" "expected a FILE.png or FILE.svg" hist "$d/x.txt" --bins=2 --plot="$d/h.pdf" --device=cpu

# --f: an expression over integrate's grid (x_i = i/10 on [0, 1], 11 points)
run "$G" hist --f='x^2' --n=10 --bins=4 --range=0:1 --json --check --device=cpu
check "--f=x^2 on 11 grid points: counts 5, 3, 1, 2, check passes" \
  sh -c 'printf "%s\n" "$0" | grep -q "\"n\": 11, .*\"counts\": \[5, 3, 1, 2\]" && printf "%s\n" "$0" | grep -q "\"check\": \"passed\""' "$out"
run "$G" hist --f='1/x' --a=0 --b=1 --n=100 --bins=4 --range=0:10 --csv --device=cpu
check "--f=1/x: the infinity at 0 counts as over" sh -c 'printf "%s\n" "$0" | grep -q "^over,,,10$"' "$out"
run "$G" hist --f='x+' --bins=4 --device=cpu
check "--f that does not parse: exit 2, the message and a caret" \
  sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$0" | head -1 | grep -q "^gpuquad: --f: expected" && printf "%s\n" "$0" | grep -q "^ *^$"' "$err" "$rc"
expect_usage "--a without --f" "--a and --b go with --f" hist "$d/x.txt" --a=1 --bins=4 --device=cpu
expect_usage "--f with --gen" "choose one source" hist --f=x --gen=uniform --bins=4 --device=cpu

expect_usage "--bins=0" "--bins=0" hist "$d/x.txt" --bins=0 --device=cpu
expect_usage "--bins=-3" "--bins=-3" hist "$d/x.txt" --bins=-3 --device=cpu
expect_usage "no --bins" "--bins=K is required" hist "$d/x.txt" --device=cpu
expect_usage "LO = HI" "LO must be below HI" hist "$d/x.txt" --bins=4 --range=1:1 --device=cpu
expect_usage "LO > HI" "LO must be below HI" hist "$d/x.txt" --bins=4 --range=2:1 --device=cpu
expect_usage "malformed range" "expected LO:HI" hist "$d/x.txt" --bins=4 --range=0-1 --device=cpu
expect_usage "NaN range" "--range=nan:1" hist "$d/x.txt" --bins=4 --range=nan:1 --device=cpu
expect_usage "2-D range for 1-D bins" "expected LO:HI" hist "$d/x.txt" --bins=4 --range=0:1,0:1 --device=cpu
expect_usage "unknown method" "--method=fast" hist "$d/x.txt" --bins=4 --method=fast --device=cpu
expect_usage "no finite values for the range" "no finite values" hist "$d/nofinite.txt" --bins=4 --device=cpu
expect_usage "values of another length" "one per element" hist "$d/x.txt" --bins=4 --values="$d/same.txt" --device=cpu
expect_usage "two inputs, one --bins" "expected 1 input file" hist "$d/x.txt" "$d/x.txt" --bins=4 --device=cpu
finish
