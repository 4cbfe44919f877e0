# mpi.sh — mpirun -np K gpuquad with CPU ranks (K = 1, 2, 3) against the
# single process: every command that divides its work, output from rank 0
# only, the ranks' times, one message and one exit status for an error on one
# rank.  Skipped when gpuquad was built without MPI.
#
# Compared bitwise: the data statistics whose accumulators are exact to the
# rounding whatever the order of the merges (stats' sum, mean, variance,
# min/max and their indices; dot), and the counts.  Compared to 1e-14: the
# rules' and Monte Carlo's compensated sums, which merge the ranks' partials
# in another order than one process's parts (the same terms: under
# --deterministic, with exact accumulators, they become bitwise too:
# tests/mpi_determ.sh), and the rms (within 8u of exact).  Adaptive cubature,
# VEGAS, Sobol, hist, scan, sampled data and --cumulative have their own
# mpi_*.sh.
. "$TESTS_SRC/mpi_tap.sh" # tap.sh, the skip without MPI, Open MPI's settings

ranks() { k=$1; shift; run timeout 120 "$MPIRUN" --oversubscribe -np "$k" "$GPUQUAD" "$@" --device=cpu; }
one() { run "$GPUQUAD" "$@" --device=cpu; }
# the value of a JSON number member
field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \(-\{0,1\}[0-9][^,}]*\).*/\1/p"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = a < 0 ? -a : a; exit !(a != "" && d <= 1e-14 * s) }'; }

# compare KEYS-EXACT KEYS-NEAR ARGS...: -np 1, 2, 3 against one process
compare() {
  exact=$1 close=$2
  shift 2
  one "$@" --json
  base=$out
  check "$*: one process, exit 0" test "$rc" -eq 0
  for k in 1 2 3; do
    ranks "$k" "$@" --json
    check "$* -np $k: exit 0" test "$rc" -eq 0
    check "$* -np $k: one JSON line" test "$(lines "$out")" -eq 1
    for key in $exact; do
      want=$(field "$base" "$key") got=$(field "$out" "$key")
      check "$* -np $k: $key bitwise ($got)" test -n "$want" -a "$got" = "$want"
    done
    for key in $close; do
      check "$* -np $k: $key within 1e-14" near "$(field "$out" "$key")" "$(field "$base" "$key")"
    done
    check "$* -np $k: the ranks' times" sh -c 'printf "%s\n" "$1" | grep -q "\"mpi\":{\"ranks\":$2,\"compute_ms\":\[[^]]*\],\"wait_ms\":\["' _ "$out" "$k"
  done
}

compare "n points" "estimate coarse_estimate" --f=circle --n=1000003
compare "n" "estimate" --f='exp(-x)' --a=0 --b=inf --n=100000 --rule=simpson
compare "points" "estimate coarse_estimate" --f='exp(-x1*x2)' --dim=2 --n=300 --rule=boole --no-check
compare "points" "estimate coarse_estimate" --f='cos(x1+x2+x3)' --dim=3 --n=7 --rule=gauss-legendre:5 --no-check
compare "points" "estimate coarse_estimate" --f='exp(-x)*sin(3*x)' --a=0 --b=inf --rule=gauss-legendre:7 --n=100000
compare "n seed" "mean sd integral" mc --f='exp(-(x1^2+x2^2))' --dim=2 --a=-3 --b=3 --n=1000001
compare "n" "mean sd" mc --f='x^2' --dist=normal --n=300002 --seed=7
compare "n" "mean" mc --f=x --n=1e8 --tol=1e-3 --no-check
compare "n sum mean var_sample min max argmin argmax" "" stats --gen=normal --n=1000003
compare "n sum mean var_sample min max argmin argmax" "" stats --gen=uniform --n=5 --dtype=f32
compare "n dot" "" dot --gen=uniform --n=999999
compare "n" "rms max_abs relative" rms --gen=normal --n=100001

# files: each rank reads its share (npy and raw, the header parsed by all)
one scan --gen=normal --n=100003 --out="$tap_tmp/x.npy"
one scan --gen=uniform --n=100003 --out="$tap_tmp/y.f64"
compare "n sum mean var_sample min max argmin argmax" "" stats "$tap_tmp/x.npy"
compare "n dot" "" dot "$tap_tmp/x.npy" "$tap_tmp/y.f64"

# --deterministic: the ranks' exact accumulators merged exactly, so every
# field is bitwise, the rms and the standard deviations included (issue 20)
compare "n rms max_abs relative" "" rms --gen=normal --n=100001 --deterministic
compare "n sum mean var_sample var_population sd_sample sd_population min max argmin argmax l1 l2" "" \
  stats "$tap_tmp/x.npy" --deterministic
compare "n sum mean var_sample sd_sample l2" "" stats --gen=uniform --n=1000003 --deterministic
compare "n dot" "" dot "$tap_tmp/x.npy" "$tap_tmp/y.f64" --deterministic

# the table: one copy, from rank 0, with the ranks' times last
ranks 2 --f=circle --n=1e5
check "table -np 2: exit 0" test "$rc" -eq 0
check "table -np 2: one estimate" test "$(printf '%s\n' "$out" | grep -c '^  estimate ')" -eq 1
check "table -np 2: the times last" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "^  mpi          2 ranks, compute ms: .*; wait ms: "' _ "$out"
ranks 2 --f=x --n=100 --quiet
check "--quiet -np 2: one number, no times" test "$rc" -eq 0 -a "$out" = "0.5"
# hist divides its elements (tests/mpi_mdata.sh compares it): one table, rank 0's
ranks 3 hist --gen=uniform --n=1000 --bins=4
check "hist -np 3: exit 0" test "$rc" -eq 0
check "hist -np 3: one table" test "$(printf '%s\n' "$out" | grep -c '^hist ')" -eq 1

# a check that fails fails on every rank: exit 1, rank 0's results still shown
ranks 3 mc --f=x --n=1e5 --exact=0.6
check "failed check -np 3: exit 1" test "$rc" -eq 1
check "failed check -np 3: the table, with the times" sh -c 'printf "%s\n" "$1" | grep -q "^  z-score .*FAILED" && printf "%s\n" "$1" | grep -q "^  mpi  "' _ "$out"
check "failed check -np 3: one line on stderr" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: check failed')" -eq 1

# integrate DATA and --cumulative divide too (compared by tests/mpi_mdata.sh and
# tests/mpi_cumulative.sh): here, that they run
ranks 3 --f=x --n=1000 --cumulative --out="$tap_tmp/F.npy"
check "--cumulative -np 3: exit 0, the file written" test "$rc" -eq 0 -a -s "$tap_tmp/F.npy"
ranks 2 integrate "$tap_tmp/x.npy" --dx=0.5
check "integrate DATA -np 2: exit 0, one integral" test "$rc" -eq 0 -a "$(printf '%s\n' "$out" | grep -c '^  integral ')" -eq 1
# text cannot be divided: it has no length before it is read
seq 1 100 >"$tap_tmp/t.txt"
ranks 2 stats "$tap_tmp/t.txt"
check "text -np 2: exit 2, says why" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | grep -q "^gpuquad: .*text input cannot be divided"' _ "$rc" "$err"
ranks 1 stats "$tap_tmp/t.txt"
check "text -np 1: exit 0 (one rank reads it all)" test "$rc" -eq 0

# an error on one rank: the truncated tail is the last rank's share alone
head -c 700000 "$tap_tmp/x.npy" >"$tap_tmp/cut.npy"
for k in 1 2 3; do
  ranks "$k" stats "$tap_tmp/cut.npy"
  check "truncated -np $k: exit 2" test "$rc" -eq 2
  check "truncated -np $k: nothing on stdout" test -z "$out"
  check "truncated -np $k: one gpuquad line, the cause" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: .*truncated')" -eq 1 -a \
    "$(printf '%s\n' "$err" | grep -c '^gpuquad: ')" -eq 1
done
ranks 2 stats --gen=normal --n=100 --check
check "--check -np 2: exit 2" test "$rc" -eq 2
check "--check -np 2: says why" sh -c 'printf "%s\n" "$1" | grep -q "^gpuquad: --check is made by one process"' _ "$err"
ranks 3 stats "$tap_tmp/nosuch.npy"
check "missing file -np 3: exit 2, one line" test "$rc" -eq 2 -a "$(printf '%s\n' "$err" | grep -c '^gpuquad: ')" -eq 1
ranks 2 --f='1/(x-0.75)' --n=1000
check "f not finite in one rank's share: exit 2 as one process" test "$rc" -eq 2
check "... the first point named" sh -c 'printf "%s\n" "$1" | grep -q "^gpuquad: .*x = 0.75"' _ "$err"
ranks 2 --f=x --n=0
check "bad input on all ranks: exit 2" test "$rc" -eq 2
run timeout 120 "$MPIRUN" --oversubscribe -np 2 "$GPUQUAD" --f=x --n=10 --device=cuda:7
check "no device cuda:7 on any rank: exit 2, one line" test "$rc" -eq 2 -a "$(printf '%s\n' "$err" | grep -c '^gpuquad: --device=cuda:7')" -eq 1

# the solver split across ranks: the same global convergence check on every rank, for any K
jacobi=$TOP_BUILDDIR/examples/jacobi_mpi
if [ -x "$jacobi" ]; then
  for k in 1 2 3; do
    run timeout 120 "$MPIRUN" --oversubscribe -np "$k" "$jacobi" 24 10 1e-11
    check "jacobi_mpi -np $k: $(printf '%s\n' "$out" | tail -1)" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q ": ok$"' _ "$rc" "$out"
    sweeps=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) iterations.*/\1/p')
    [ "$k" -eq 1 ] && sweeps1=$sweeps
    check "jacobi_mpi -np $k: stops after $sweeps sweeps, as one rank" test -n "$sweeps" -a "$sweeps" = "$sweeps1"
  done
fi

finish
