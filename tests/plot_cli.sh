# plot_cli.sh — --plot FILE.png|svg through gnuplot (skipped, a TAP plan of 0, where
# gnuplot is not installed): each figure is a PNG (its magic bytes, not
# empty) or an SVG that parses and holds the expected titles and axis labels;
# the printed results do not change with --plot; bad names, more than two
# dimensions, infinite limits, a missing gnuplot and ranks under mpirun are
# one line and exit 2.
. "$TESTS_SRC/tap.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "1..0 # SKIP gnuplot is not installed"; exit 0; }
d=$tap_tmp
G="$GPUQUAD"

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
# an SVG that parses (python3's XML parser where there is one) and holds every TEXT given
svg_has() {
  file=$1
  shift
  [ -s "$file" ] || return 1
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$file" || return 1
  fi
  for text in "$@"; do
    grep -F -q -- "$text" "$file" || { echo "# no '$text' in $file"; return 1; }
  done
}

run "$G" integrate --f='sin(5*x)*exp(-x)' --a=0 --b=6 --n=1e5 --rule=simpson --device=cpu --quiet --plot="$d/f.png"
check "integrate --plot f.png: exit 0, the estimate printed" sh -c '[ "$1" -eq 0 ] && [ -n "$2" ]' _ "$rc" "$out"
check "  a PNG" is_png "$d/f.png"
plain=$("$G" integrate --f='sin(5*x)*exp(-x)' --a=0 --b=6 --n=1e5 --rule=simpson --device=cpu --quiet)
check "  the same estimate without --plot: $plain" test "$out" = "$plain"
run "$G" integrate --f='sin(5*x)*exp(-x)' --a=0 --b=6 --n=1e5 --device=cpu --plot="$d/f.svg"
check "integrate --plot f.svg: the curve of f, its labels, the integral in the title" \
  svg_has "$d/f.svg" "f(x)" ">x<" "f = sin(5*x)*exp(-x) on [0, 6]: integral 0.19"
run "$G" integrate --f='exp(-x*x-y*y)*cos(3*x*y)' --dim=2 --a=-2 --b=2 --n=100 --device=cpu --plot="$d/f2.svg"
check "integrate --dim=2 --plot: a heat map over x1, x2" sh -c '[ "$1" -eq 0 ]' _ "$rc"
check "  its labels" svg_has "$d/f2.svg" "x1" "x2" "f(x1, x2)" "[-2, 2] x [-2, 2]"
run "$G" integrate --f='x1*x2' --dim=2 --n=50 --device=cpu --plot="$d/f2.png"
check "  and a PNG" is_png "$d/f2.png"
run "$G" integrate --f='1/sqrt(x1*x2+1e-3)' --dim=2 --a=0 --b=1 --rule=adaptive --device=cpu --plot="$d/ad.svg"
check "--rule=adaptive --plot: the heat map, the evaluations in the title" svg_has "$d/ad.svg" "f(x1, x2)" \
  "(adaptive, genz-malik 7-5, "
expect_usage "--rule=adaptive --dim=3 --plot" "1 or 2 dimensions, not 3" \
  integrate --f='x1*x2*x3' --dim=3 --rule=adaptive --device=cpu --plot="$d/ad3.png"
expect_usage "integrate --dim=3 --plot" "1 or 2 dimensions, not 3" \
  integrate --f='x1*x2*x3' --dim=3 --n=10 --device=cpu --plot="$d/f3.png"
check "  nothing written" test ! -e "$d/f3.png"
expect_usage "integrate --b=inf --plot" "finite limits" integrate --f='exp(-x)' --b=inf --device=cpu --plot="$d/i.png"
run "$G" integrate --f='sin(5*x)*exp(-x)' --a=0 --b=6 --n=1e5 --cumulative --device=cpu --plot="$d/F.svg"
check "integrate --cumulative --plot: F(x)" svg_has "$d/F.svg" "F(x)" "F(x) = integral of sin(5*x)*exp(-x) from 0 to x"

run "$G" integrate --f='exp(-x)*cos(5*x)' --a=0 --b=2 --study --n=4096 --device=cpu --plot="$d/study.svg"
check "integrate --study --plot: exit 0" test "$rc" -eq 0
check "  error against n on log axes, each rule with its order, the slopes, the floor" svg_has "$d/study.svg" \
  "n (intervals, or Gauss-Legendre panels)" ">error<" "trapezoid (order 2)" "simpson (order 4)" "boole (order 6)" \
  "gauss-legendre:4 (order 8)" "dashed: n^-order" "rounding: 64 ulps" "2^12"
run "$G" integrate --f='sqrt(x)' --study --rule=simpson --n=1024 --device=cpu --plot="$d/study.png"
check "  --rule=simpson, a PNG" is_png "$d/study.png"

# mc: the running estimate; the printed result is the run's, with or without --plot
run "$G" mc --f='exp(-x1*x1-x2*x2)' --dim=2 --a=-2 --b=2 --n=200000 --seed=4 --device=cpu --quiet --plot="$d/mc.svg"
plain=$("$G" mc --f='exp(-x1*x1-x2*x2)' --dim=2 --a=-2 --b=2 --n=200000 --seed=4 --device=cpu --quiet)
check "mc --plot: exit 0, the same estimate as without it: $plain" sh -c '[ "$1" -eq 0 ] && [ "$2" = "$3" ]' _ \
  "$rc" "$out" "$plain"
check "  the running estimate, its standard error, n on the x axis" svg_has "$d/mc.svg" "n (samples)" \
  "the estimate over the first n samples" "+/- 1 standard error" "the final estimate"
run "$G" mc --f='exp(-x1*x1-x2*x2)' --dim=2 --a=-2 --b=2 --n=300000 --method=vegas --device=cpu --plot="$d/vegas.png" \
  --exact=3.1122710296
check "mc --method=vegas --plot: exit 0 or 1 (the check's verdict)" test "$rc" -le 1
check "  a PNG" is_png "$d/vegas.png"
run "$G" mc --f='x1*x2' --dim=2 --n=65536 --sampler=sobol --device=cpu --plot="$d/sobol.svg" --exact=0.25
check "mc --sampler=sobol --plot: the scramblings' mean, the exact line" svg_has "$d/sobol.svg" \
  "the scramblings' mean so far" "exact"

# scan, a sweep, hist (as before)
run "$G" scan --gen=normal --n=100000 --device=cpu --plot="$d/scan.svg"
check "scan --plot: the sums against i" svg_has "$d/scan.svg" "y_i = x_0 + ... + x_i" "inclusive prefix sums of normal"
run "$G" integrate --f='sin(k*x)*c' --a=0 --b=1 --n=1000 --param k=1:5:1 --param c=1:2:1 --device=cpu \
  --plot="$d/sweep.svg"
check "a sweep over k and c: exit 0" test "$rc" -eq 0
check "  k on x, one curve per c, the expression as title" svg_has "$d/sweep.svg" ">k<" "c=1" "c=2" \
  "integrate sin(k*x)*c" "estimate +/- error estimate"
run "$G" mc --f='x1*k' --n=10000 --param k=1:3:1 --device=cpu --plot="$d/mcsweep.svg"
check "an mc sweep: its bars are standard errors" svg_has "$d/mcsweep.svg" "integral +/- standard error" "mc x1*k"
run "$G" hist --gen=normal --n=10000 --bins=20 --device=cpu --plot="$d/h.png"
check "hist --plot: a PNG still" is_png "$d/h.png"

# bad input, before any work
expect_usage "--plot=f.pdf" "expected a FILE.png or FILE.svg" integrate --f=sin --device=cpu --plot="$d/f.pdf"
expect_usage "mc --plot=f.jpg" "expected a FILE.png or FILE.svg" mc --f=x1 --device=cpu --plot="$d/f.jpg"
expect_usage "a quote in the name" "may not hold a quote" scan --gen=uniform --n=10 --device=cpu --plot="$d/it's.png"
mkdir "$d/bin"
ln -s "$G" "$d/bin/gq" 2>/dev/null || cp "$G" "$d/bin/gq"
for c in "integrate --f=sin" "mc --f=x1" "scan --gen=uniform --n=10" "hist --gen=uniform --n=10 --bins=2"; do
  run env PATH="$d/bin" gq $c --device=cpu --plot="$d/none.png"
  check "no gnuplot on PATH: $c --plot is one line, exit 2" sh -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] && printf "%s\n" "$2" | grep -q "gnuplot was not found on PATH"' _ "$rc" "$err"
done
check "  nothing written" test ! -e "$d/none.png"
if [ -n "${MPIRUN:-}" ]; then # several ranks would each start gnuplot on the one file
  export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_plm="${OMPI_MCA_plm:-isolated}"
  # Open MPI's own allocations are not ours to leak-check (as in mpi.sh)
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  run timeout 120 "$MPIRUN" --oversubscribe -np 2 "$G" integrate --f=sin --device=cpu --plot="$d/mpi.png"
  check "mpirun -np 2 ... --plot: exit 2, one process draws" sh -c '[ "$1" -eq 2 ] && printf "%s
" "$2" | grep -q "draw from one process, not 2 ranks"' _ "$rc" "$err"
fi
finish
