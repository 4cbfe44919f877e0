# mpi_cumulative.sh — mpirun -np K gpuquad --cumulative with CPU ranks (K = 1,
# 2, 3) against one process: each rank computes and writes its range of the
# values (gq_cumulative_share: whole chunks of the CPU's pass and whole steps
# of --every), from every chunk total before it merged in one process's
# order, so the --out files are byte for byte one process's and the summary
# is the same; text output and --plot refused; F(b) not finite fails every
# rank once.  Skipped when gpuquad was built without MPI.
. "$TESTS_SRC/mpi_tap.sh" # tap.sh, the skip without MPI, Open MPI's settings

# compare EXT ARGS...: the --out file and the summary of -np 1, 2, 3 against one process
compare() {
  ext=$1
  shift
  run "$GPUQUAD" "$@" --cumulative --out="$tap_tmp/one.$ext" --device=cpu
  base=$out
  check "$*: one process, exit 0" test "$rc" -eq 0
  for k in 1 2 3; do
    rm -f "$tap_tmp/ranks.$ext"
    run timeout 300 "$MPIRUN" --oversubscribe -np "$k" "$GPUQUAD" "$@" --cumulative --out="$tap_tmp/ranks.$ext" \
      --device=cpu
    check "$* -np $k: exit 0" test "$rc" -eq 0
    check "$* -np $k: the file byte for byte" cmp -s "$tap_tmp/one.$ext" "$tap_tmp/ranks.$ext"
    # the summary's lines but the times and the ranks' line
    check "$* -np $k: the same summary" test "$(printf '%s\n' "$out" | grep -v -e 'time' -e '^  mpi' -e '^  out ')" = \
      "$(printf '%s\n' "$base" | grep -v -e 'time' -e '^  mpi' -e '^  out ')"
  done
}

compare npy --f='exp(-x)*sin(3*x)' --a=0 --b=5 --n=300007
compare npy --f='exp(-x)*sin(3*x)' --a=0 --b=5 --n=300008 --rule=simpson
compare npy --f='1/(1+x^2)' --a=-3 --b=4 --n=1000001 --every=7 --with-x
compare f64 --f='sqrt(x)' --a=0 --b=2 --n=262144 --every=65536
compare npy --f='x^3' --a=0 --b=1 --n=1000 --rule=simpson --with-x
compare npy --f='cos(x)' --a=0 --b=1 --n=500000 --every=300000

run timeout 300 "$MPIRUN" --oversubscribe -np 2 "$GPUQUAD" --f='x' --n=1000 --cumulative --out="$tap_tmp/F.txt" \
  --device=cpu
check "text --out under -np 2: exit 2 ($rc)" test "$rc" -eq 2
check "text --out under -np 2: one message" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: ')" -eq 1
run timeout 300 "$MPIRUN" --oversubscribe -np 2 "$GPUQUAD" --f='x' --n=1000 --cumulative --plot="$tap_tmp/F.svg" \
  --device=cpu
check "--plot under -np 2: exit 2 ($rc)" test "$rc" -eq 2
# f not finite in the first rank's part: F(b) is NaN, every rank fails as one process does
run "$GPUQUAD" --f='log(x-0.25)' --a=0 --b=1 --n=300000 --cumulative --out="$tap_tmp/nan1.npy" --device=cpu
one=$rc
run timeout 300 "$MPIRUN" --oversubscribe -np 3 "$GPUQUAD" --f='log(x-0.25)' --a=0 --b=1 --n=300000 --cumulative \
  --out="$tap_tmp/nan3.npy" --device=cpu
check "F(b) not finite under -np 3: one process's exit ($rc, $one)" test "$rc" -eq "$one" -a "$one" -ne 0
check "F(b) not finite under -np 3: one message" test "$(printf '%s\n' "$err" | grep -c '^gpuquad: ')" -eq 1
check "F(b) not finite under -np 3: the values still written alike" cmp -s "$tap_tmp/nan1.npy" "$tap_tmp/nan3.npy"
finish
