# link_deps.sh — a fast start (issue 14): gpuquad links neither NVRTC nor
# cuBLAS (NVRTC is opened on the first JIT compile, cuBLAS by gpuquad bench),
# and --version loads no CUDA library at run time (no context, no device query).
. "$TESTS_SRC/tap.sh"

if ! command -v readelf >/dev/null 2>&1; then
  echo "1..0 # SKIP readelf is not installed"
  exit 0
fi
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p'; }

for bin in "$GPUQUAD" "$TOP_BUILDDIR/examples/pi" "$TESTS_BIN/t_reduce_cpu"; do
  libs=$(needed "$bin")
  name=${bin#"$TOP_BUILDDIR"/}
  # the control: every program links the C library, so the list was read
  check "$name: readelf lists its libraries (libc among them)" sh -c 'printf "%s\n" "$1" | grep -q "^libc\.so"' _ "$libs"
  check "$name links no NVRTC and no cuBLAS: $(echo $libs)" sh -c '! printf "%s\n" "$1" | grep -Eq "^lib(nvrtc|cublas)"' _ "$libs"
done

# LD_DEBUG=files names every library the dynamic loader opens, dlopen() included.
loaded() { LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*dynamically loaded by.*/\1/p' | sort -u; }
libs=$(loaded "$GPUQUAD" --version)
check "--version opens no library at run time (no CUDA driver, no NVRTC): $(echo $libs)" test -z "$libs"
if grep -q '^#define HAVE_CUDA 1' "$TOP_BUILDDIR/config.h"; then
  # the control: the default device probes CUDA, so the runtime opens the driver
  libs=$(loaded "$GPUQUAD" --f=circle --n=100 --no-check)
  check "--f=circle probes the CUDA driver (the control): $(echo $libs)" sh -c 'printf "%s\n" "$1" | grep -q "^libcuda"' _ "$libs"
  run "$TESTS_BIN/t_nvrtc_loader"
  check "NVRTC loads on the first JIT compile" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
  missing="$tap_tmp/no-such-libnvrtc.so"
  run env GPUQUAD_NVRTC="$missing" "$TESTS_BIN/t_nvrtc_loader" "$missing"
  check "without NVRTC a JIT compile fails with one line naming it; the CPU backend works" test "$rc" -eq 0
  [ "$rc" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
fi
finish
