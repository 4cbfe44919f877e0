# mpi_vegas.sh — mpirun -np K gpuquad mc --method=vegas with CPU ranks (K =
# 1, 2, 3) against one process: each pass's hypercubes divided among the
# ranks by the CPU pass's parts (src/lib/vegas_share.c), every field bitwise
# one process's (a hypercube's samples are one rank's; the parts' training
# cells are summed in one process's order), the ranks' times in the JSON,
# and a failure on the ranks reaching all of them once.  Skipped when
# gpuquad was built without MPI.
. "$TESTS_SRC/mpi_tap.sh" # tap.sh, the skip without MPI, Open MPI's settings

field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \(-\{0,1\}[0-9][^,}]*\).*/\1/p"; }

# compare ARGS...: -np 1, 2, 3 against one process, every numeric field
compare() {
  run "$GPUQUAD" mc "$@" --method=vegas --device=cpu --json
  base=$out
  check "$*: one process, exit 0" test "$rc" -eq 0
  for k in 1 2 3; do
    run timeout 300 "$MPIRUN" --oversubscribe -np "$k" "$GPUQUAD" mc "$@" --method=vegas --device=cpu --json
    check "$* -np $k: exit 0" test "$rc" -eq 0
    for key in mean sd stderr integral integral_stderr n chi2_dof chi2_q; do
      want=$(field "$base" "$key") got=$(field "$out" "$key")
      check "$* -np $k: $key bitwise ($got)" test -n "$want" -a "$got" = "$want"
    done
    check "$* -np $k: the ranks' times" sh -c 'printf "%s\n" "$1" | grep -q "\"mpi\":{\"ranks\":$2,\"compute_ms\":\["' _ "$out" "$k"
  done
}

compare --f='exp(-100*(x-0.5)^2)' --n=200000 --no-check
compare --f='exp(-100*((x1-0.5)^2+(x2-0.5)^2+(x3-0.5)^2))' --dim=3 --n=1000000 --no-check
compare --f='1/(0.01+(x1-0.3)^2)*1/(0.01+(x2-0.6)^2)' --dim=2 --n=300000 --bins=64 --iterations=6 --warmup=2 --no-check
compare --f='cos(x1+2*x2+3*x3+4*x4+5*x5)' --dim=5 --n=500000 --a=-1 --b=2 --no-check
# a few hypercubes, more ranks than the CPU pass's parts need not be
compare --f='x1*x2' --dim=2 --n=200 --iterations=3 --warmup=1 --no-check

# the check against GSL's VEGAS: made by every rank, reported once
run timeout 300 "$MPIRUN" --oversubscribe -np 2 "$GPUQUAD" mc --f='exp(-50*((x1-0.5)^2+(x2-0.5)^2))' --dim=2 \
  --method=vegas --n=400000 --device=cpu
check "vegas -np 2 with its check: exit 0" test "$rc" -eq 0
check "vegas -np 2: one report (rank 0's)" test "$(printf '%s\n' "$out" | grep -c 'chi2/dof')" -eq 1

# f not finite at some samples (the input's fault: exit 2): every rank fails, one message
run timeout 300 "$MPIRUN" --oversubscribe -np 3 "$GPUQUAD" mc --f='log(x1-0.5)' --dim=2 --method=vegas --n=100000 \
  --device=cpu
check "non-finite f under -np 3: exit 2 ($rc)" test "$rc" -eq 2
check "non-finite f under -np 3: one message" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: ')" -eq 1
finish
