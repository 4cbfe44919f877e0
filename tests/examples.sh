# examples.sh — the examples run as tests: pi (the GPU if there is one, else
# the CPU) and cg (a CPU context with host arrays, checked against GSL).
. "$TESTS_SRC/tap.sh"
run "$TOP_BUILDDIR/examples/pi" 1000000
check "examples/pi: $out" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^pi ~ 3.14159.*: success$"' _ "$rc" "$out"
run "$TOP_BUILDDIR/examples/cg"
check "examples/cg against GSL's Cholesky: $out" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q ": ok$"' _ "$rc" "$out"
run "$TOP_BUILDDIR/examples/cg" 1000
check "examples/cg n=1000: $out" test "$rc" -eq 0
run "$TOP_BUILDDIR/examples/cg" 1
check "examples/cg refuses n = 1 (exit 2)" test "$rc" -eq 2
run "$TOP_BUILDDIR/examples/mc_option" 1000000
check "examples/mc_option against Black-Scholes: $out" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q ": ok$"' _ "$rc" "$out"
finish
