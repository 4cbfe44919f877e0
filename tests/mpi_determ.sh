# mpi_determ.sh — --deterministic integrals and plain Monte Carlo (Philox
# and Sobol points) are bitwise the same for every rank count and every
# thread count (issues 20, 21): each rank's partial is exact (exact_sum.h),
# the partials merge exactly and the result is rounded once, after the
# merge (share.c).  Sobol without the flag: within a stated tolerance.
# Compared bitwise, never within a tolerance: mpirun -np 1, 2, 3 (CPU ranks,
# one OpenMP thread each) and OMP_NUM_THREADS = 1, 2, 3, 7 against one
# process.  Skipped when gpuquad was built without MPI.
. "$TESTS_SRC/mpi_tap.sh" # tap.sh, the skip without MPI, Open MPI's settings

ranks() { k=$1; shift; run env OMP_NUM_THREADS=1 timeout 120 "$MPIRUN" --oversubscribe -np "$k" "$GPUQUAD" "$@" --device=cpu; }
threads() { t=$1; shift; run env OMP_NUM_THREADS="$t" "$GPUQUAD" "$@" --device=cpu; }
# the value of a JSON number member
field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \(-\{0,1\}[0-9][^,}]*\).*/\1/p"; }

# same KEYS ARGS...: --deterministic, -np 1, 2, 3 and 1, 2, 3, 7 threads
# against one process with one thread, KEYS bitwise
same() {
  keys=$1
  shift
  threads 1 "$@" --deterministic --json
  base=$out
  check "$*: one process, exit 0" test "$rc" -eq 0
  for k in 1 2 3; do
    ranks "$k" "$@" --deterministic --json
    check "$* -np $k: exit 0" test "$rc" -eq 0
    for key in $keys; do
      want=$(field "$base" "$key") got=$(field "$out" "$key")
      check "$* -np $k: $key bitwise ($got)" test -n "$want" -a "$got" = "$want"
    done
  done
  for t in 2 3 7; do
    threads "$t" "$@" --deterministic --json
    for key in $keys; do
      want=$(field "$base" "$key") got=$(field "$out" "$key")
      check "$* OMP_NUM_THREADS=$t: $key bitwise ($got)" test -n "$want" -a "$got" = "$want"
    done
  done
}

# 1-D rules (the grid's index classes), a 3-D box, Gauss-Legendre panels in
# 1-D and on a split outermost axis, plain Monte Carlo (Philox, uniform and
# normal); large cancelling terms, so that a rounded partial would show
same "estimate coarse_estimate" --f=circle --n=1000003
same "estimate coarse_estimate" --f='1e300*(x-0.3)+x*x/(1+x)' --n=1000003 --no-check
same "estimate coarse_estimate" --f='x*x/(1+x)' --n=200002 --rule=simpson
same "estimate coarse_estimate" --f='sqrt(x)*x' --rule=gauss-legendre:7 --n=100000
same "estimate coarse_estimate" --f='1/(1+x1*x1+x2*x2+x3*x3)' --dim=3 --n=17 --rule=gauss-legendre:5 --no-check
same "estimate coarse_estimate" --f='1e300*(x1-x2)+x3/(1+x1)' --dim=3 --n=51 --rule=gauss-legendre:5 --no-check
same "estimate coarse_estimate" --f='exp(-x1*x2)*x3' --dim=3 --n=40 --rule=simpson --no-check
same "n mean sd" mc --f='x1*x2+x3' --dim=3 --n=1000001
same "n mean sd" mc --f='1e200*(x1-0.5)+x2' --dim=2 --n=300001 --no-check
same "n mean sd" mc --f='x^2' --dist=normal --n=300002 --seed=7
# --tol stops every rank at the same batch: the same n and bits
same "n mean sd" mc --f=x --n=1e7 --tol=1e-3 --no-check
# Sobol: each scrambling's point indices divided between the ranks, each
# rank's Gray-code walk starting at its first index
same "n mean sd stderr" mc --f='x1*x2+sqrt(x3)' --dim=3 --sampler=sobol --n=1e6 --no-check
same "n mean sd stderr" mc --f='1e100*(x1-0.5)+x2' --dim=2 --sampler=sobol --scramblings=5 --n=300001 --no-check

# without the flag Sobol's ranks evaluate the same points, their compensated
# moments merged in rank order: within 1e-14 of one process (the spread of
# the scramblings' means, stderr, within 1e-9 of itself)
near() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; s = a < 0 ? -a : a; exit !(a != "" && d <= r * s) }'; }
threads 1 mc --f='x1*x2+sqrt(x3)' --dim=3 --sampler=sobol --n=1e6 --no-check --json
base=$out
for k in 2 3; do
  ranks "$k" mc --f='x1*x2+sqrt(x3)' --dim=3 --sampler=sobol --n=1e6 --no-check --json
  check "sobol -np $k: the same n" test -n "$(field "$out" n)" -a "$(field "$out" n)" = "$(field "$base" n)"
  for key in mean sd; do
    check "sobol -np $k: $key within 1e-14" near "$(field "$out" "$key")" "$(field "$base" "$key")" 1e-14
  done
  check "sobol -np $k: stderr within 1e-9" near "$(field "$out" stderr)" "$(field "$base" stderr)" 1e-9
  check "sobol -np $k: the ranks' times (divided)" sh -c 'printf "%s\n" "$1" | grep -q "\"mpi\":{\"ranks\":$2,"' _ "$out" "$k"
done

# the exact sum is the rounding of the same terms' exact sum: within a few
# ulps of the compensated one (the test's reference for "not nonsense")
threads 1 --f='x*x/(1+x)' --n=200002 --rule=simpson --json
fast=$(field "$out" estimate)
threads 1 --f='x*x/(1+x)' --n=200002 --rule=simpson --json --deterministic
exact=$(field "$out" estimate)
check "deterministic simpson $exact within 1e-15 of the fast $fast" \
  awk -v a="$exact" -v b="$fast" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-15 * b) }'

finish
