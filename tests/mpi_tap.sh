# mpi_tap.sh — sourced by the mpi_*.sh tests (after TESTS_SRC is set): tap.sh,
# a skip where gpuquad was built without MPI, and how they run Open MPI:
# one OpenMP thread per rank, as root in CI and on this host alone (plm
# isolated: without it mpirun needs ssh even for local ranks), its own
# allocations not ours to leak-check.
. "$TESTS_SRC/tap.sh"

if [ -z "${MPIRUN:-}" ]; then
  echo "1..0 # SKIP gpuquad built without MPI (./configure --with-mpi)"
  exit 0 # the TAP driver's skip (a plan of 0 with SKIP)
fi
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm="${OMPI_MCA_plm:-isolated}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
