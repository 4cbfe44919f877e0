# install.sh — the installed package is usable: make install into a staging
# folder, then compile and run examples/pi.c and tests/install_client.c (the
# stream API, with the reader functions) against it through pkg-config only
# (no paths into the build tree; they load the staged libgpuquad.so.1).  The header must stand alone: a client
# compiles with -Werror=implicit-function-declaration (an error by default
# since GCC 14) and -Wall -Wextra -Werror in C99, and the header alone also
# compiles as C++.
. "$TESTS_SRC/tap.sh"
stage=$tap_tmp/stage
stage_install "$stage"
prefix=$(sed -n 's/^prefix=//p' "$TOP_BUILDDIR/gpuquad.pc")
libdir=$(find "$stage" -name gpuquad.pc -exec dirname {} \; | head -1)
check "installs libgpuquad.a and libgpuquad.so.1" test -f "$stage$prefix/lib/libgpuquad.a" -a -f "$stage$prefix/lib/libgpuquad.so.1"
check "installs gpuquad.h" test -f "$stage$prefix/include/gpuquad.h"
check "installs gpuquad.pc" test -n "$libdir"
check "installs the program" test -x "$stage$prefix/bin/gpuquad"
check "installs the bash completion (bash-completion/completions/gpuquad)" sh -c 'find "$1" -path "*/bash-completion/completions/gpuquad" | grep -q .' _ "$stage"
check "installs gpuquad(1) and gpuquad(3)" sh -c 'test -f "$1/share/man/man1/gpuquad.1" && test -f "$1/share/man/man3/gpuquad.3"' _ "$stage$prefix"
pc() { PKG_CONFIG_PATH=$libdir pkg-config --define-variable=prefix="$stage$prefix" "$@" gpuquad; }
check "pkg-config knows the version" test "$(pc --modversion)" = "$PACKAGE_VERSION"
cflags=$(pc --cflags) libs=$(pc --libs)
if ${CC:-cc} -std=c11 $cflags "$TESTS_SRC/../examples/pi.c" $libs -o "$tap_tmp/pi" 2>"$tap_tmp/cc.log"; then
  ok "examples/pi.c compiles against the installed tree: cc pi.c \$(pkg-config --cflags --libs gpuquad)"
  run env LD_LIBRARY_PATH="$stage$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tap_tmp/pi" 100000
  check "and runs: $out" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^pi ~ 3.14159"' _ "$rc" "$out"
else
  not_ok "examples/pi.c compiles against the installed tree"
  sed 's/^/# /' "$tap_tmp/cc.log" | tail -20
fi
strict="-std=c99 -pedantic -Wall -Wextra -Werror -Werror=implicit-function-declaration"
printf '#include <gpuquad.h>\nint main(void) { return gq_version() == 0; }\n' >"$tap_tmp/alone.c"
check "gpuquad.h compiles alone: cc $strict" sh -c '${CC:-cc} $1 $2 -c "$3" -o "$4" 2>"$4.log" || { sed "s/^/# /" "$4.log"; exit 1; }' _ \
  "$strict" "$cflags" "$tap_tmp/alone.c" "$tap_tmp/alone.o"
cxx=
for c in "${CXX:-}" c++ g++ clang++; do
  if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1; then cxx=$c; break; fi
done
if [ -n "$cxx" ]; then
  cp "$tap_tmp/alone.c" "$tap_tmp/alone.cc"
  check "gpuquad.h compiles as C++: $cxx -std=c++11 -pedantic -Wall -Wextra -Werror" sh -c \
    '$1 -std=c++11 -pedantic -Wall -Wextra -Werror $2 -c "$3" -o "$4" 2>"$4.log" || { sed "s/^/# /" "$4.log"; exit 1; }' _ \
    "$cxx" "$cflags" "$tap_tmp/alone.cc" "$tap_tmp/alone_cc.o"
else
  ok "gpuquad.h compiles as C++ # SKIP no C++ compiler"
fi
if ${CC:-cc} $strict $cflags "$TESTS_SRC/install_client.c" $libs -o "$tap_tmp/client" 2>"$tap_tmp/client.log"; then
  ok "tests/install_client.c (readers and gq_*_stream) compiles against the installed header: cc $strict"
  printf '1\n2\n3\n4\n' >"$tap_tmp/v.txt"
  run env LD_LIBRARY_PATH="$stage$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tap_tmp/client" "$tap_tmp/v.txt"
  check "and streams: exit $rc" test "$rc" -eq 0
  check "gq_stats_stream of a text file: n 4, sum 10, mean 2.5" sh -c 'printf "%s\n" "$1" | grep -q "^stats .*v.txt: n 4 sum 10 mean 2.5 format 3$"' _ "$out"
  check "gq_dot_stream of two raw buffers: 32 of 3 elements" sh -c 'printf "%s\n" "$1" | grep -q "^dot 32 of 3 elements$"' _ "$out"
  check "a NULL reader is GQ_EINVAL with a message" sh -c 'printf "%s\n" "$1" | grep -q "^null reader: invalid argument (.*NULL.*)$"' _ "$out"
else
  not_ok "tests/install_client.c compiles against the installed header: cc $strict"
  sed 's/^/# /' "$tap_tmp/client.log" | tail -20
fi
check "the installed header needs nothing from the build tree" sh -c '! grep -q "config.h\|internal.h" "$1"' _ "$stage$prefix/include/gpuquad.h"
finish
