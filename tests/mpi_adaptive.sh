# mpi_adaptive.sh — adaptive cubature under mpirun -np K with CPU ranks
# (K = 1, 2, 3) against the single process.  Every rank keeps the same
# region store and makes the same decisions; only each pass's new regions
# are evaluated in K slices (src/lib/adaptive_share.c), and a region's
# results do not depend on the rank that computed them, so everything is
# compared bitwise: estimate, error, evaluations, regions, passes, the most
# held, why it stopped.  In 1-D (Gauss-Kronrod) and 2-, 3-, 5-D (Genz-Malik),
# an infinite limit, a run stopped by --max-evals (exit 1 on every rank, one
# message) and f not finite in a region one rank evaluates (exit 2 on every
# rank, one process's message).  Skipped when built without MPI.
. "$TESTS_SRC/mpi_tap.sh" # tap.sh, the skip without MPI, Open MPI's settings

ranks() { k=$1; shift; run timeout 300 "$MPIRUN" --oversubscribe -np "$k" "$GPUQUAD" --rule=adaptive "$@" --device=cpu; }
one() { run "$GPUQUAD" --rule=adaptive "$@" --device=cpu; }
# the value of a JSON member (a number or a string)
field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \"\{0,1\}\([^,}\"]*\).*/\1/p"; }
KEYS="estimate error_estimate evaluations regions passes max_regions_held stop reached"

# compare ARGS...: -np 1, 2, 3 against one process, every key bitwise
compare() {
  one "$@" --json --no-check
  base=$out
  check "$*: one process, exit 0, more than one pass" test "$rc" -eq 0 -a "$(field "$base" passes)" -gt 1
  for k in 1 2 3; do
    ranks "$k" "$@" --json --no-check
    check "$* -np $k: exit 0, one JSON line" test "$rc" -eq 0 -a "$(lines "$out")" -eq 1
    for key in $KEYS; do
      want=$(field "$base" "$key") got=$(field "$out" "$key")
      check "$* -np $k: $key bitwise ($got)" test -n "$want" -a "$got" = "$want"
    done
    check "$* -np $k: the ranks' times" sh -c 'printf "%s\n" "$1" | grep -q "\"mpi\":{\"ranks\":$2,\"compute_ms\":\[[^]]*\],\"wait_ms\":\["' _ "$out" "$k"
  done
}

compare --f='log(x)*cos(20*x)' --epsrel=1e-12
compare --f='exp(-x)/sqrt(x)' --a=0 --b=inf --epsrel=1e-10
compare --f='1/((x1-0.3)^2+(x2-0.6)^2+0.0001)' --dim=2 --epsrel=1e-10
compare --f='1/((x1-0.3)^2+(x2-0.6)^2+(x3-0.5)^2+0.01)' --dim=3 --epsrel=1e-7
compare --f='exp(-10*((x1-0.4)^2+(x2-0.4)^2+(x3-0.4)^2+(x4-0.4)^2+(x5-0.4)^2))' --dim=5 --epsrel=1e-6

# the table: one copy, from rank 0, with the ranks' times last
ranks 2 --f='sqrt(x)' --epsrel=1e-11
check "table -np 2: exit 0, one estimate" test "$rc" -eq 0 -a "$(printf '%s\n' "$out" | grep -c '^  estimate ')" -eq 1
check "table -np 2: the times last" sh -c 'printf "%s\n" "$1" | tail -1 | grep -q "^  mpi          2 ranks, compute ms: .*; wait ms: "' _ "$out"

# stopped by --max-evals: exit 1 on every rank, the results and one message
stop="--f=1/((x1-0.3)^2+(x2-0.6)^2+(x3-0.5)^2+0.001) --dim=3 --epsrel=1e-9 --max-evals=2000000 --no-check"
one $stop --json
base=$out
for k in 2 3; do
  ranks "$k" $stop --json
  check "--max-evals -np $k: exit 1" test "$rc" -eq 1
  for key in $KEYS; do
    check "--max-evals -np $k: $key bitwise" test -n "$(field "$base" "$key")" -a "$(field "$out" "$key")" = "$(field "$base" "$key")"
  done
  check "--max-evals -np $k: one message" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: accuracy not reached (max-evals')" -eq 1
done

# f not finite at a rule point of a region that one rank evaluates: every
# rank stops at that pass with one process's message and status
pole="--f=1/(x1-0.123456) --dim=2"
one $pole
want_rc=$rc want_err=$err
check "pole, one process: exit 2, names the region" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | grep -q "^gpuquad: f is not finite at a point of the region "' _ "$rc" "$err"
for k in 2 3; do
  ranks "$k" $pole
  check "pole -np $k: exit $want_rc, nothing on stdout" test "$rc" -eq "$want_rc" -a -z "$out"
  check "pole -np $k: one process's message, once" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: ')" -eq 1 -a \
    "$(printf '%s\n' "$err" | grep '^gpuquad: ')" = "$want_err"
done
finish
