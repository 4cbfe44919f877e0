# install.sh — the installed package is usable: make install into a staging
# folder, then compile and run examples/pi.c against it through pkg-config
# only (no paths into the build tree).
. "$TESTS_SRC/tap.sh"
stage=$tap_tmp/stage
if ! (cd "$TOP_BUILDDIR" && $MAKE install DESTDIR="$stage" >"$tap_tmp/install.log" 2>&1); then
  not_ok "make install DESTDIR=…"
  sed 's/^/# /' "$tap_tmp/install.log" | tail -20
  finish
  exit 1
fi
ok "make install DESTDIR=…"
prefix=$(sed -n 's/^prefix=//p' "$TOP_BUILDDIR/gpuquad.pc")
libdir=$(find "$stage" -name gpuquad.pc -exec dirname {} \; | head -1)
check "installs libgpuquad.a" test -f "$stage$prefix/lib/libgpuquad.a"
check "installs gpuquad.h" test -f "$stage$prefix/include/gpuquad.h"
check "installs gpuquad.pc" test -n "$libdir"
check "installs the program" test -x "$stage$prefix/bin/gpuquad"
check "installs gpuquad(1) and gpuquad(3)" sh -c 'test -f "$1/share/man/man1/gpuquad.1" && test -f "$1/share/man/man3/gpuquad.3"' _ "$stage$prefix"
pc() { PKG_CONFIG_PATH=$libdir pkg-config --define-variable=prefix="$stage$prefix" "$@" gpuquad; }
check "pkg-config knows the version" test "$(pc --modversion)" = "$PACKAGE_VERSION"
cflags=$(pc --cflags) libs=$(pc --libs)
if ${CC:-cc} -std=c11 $cflags "$TESTS_SRC/../examples/pi.c" $libs -o "$tap_tmp/pi" 2>"$tap_tmp/cc.log"; then
  ok "examples/pi.c compiles against the installed tree: cc pi.c \$(pkg-config --cflags --libs gpuquad)"
  run "$tap_tmp/pi" 100000
  check "and runs: $out" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^pi ~ 3.14159"' _ "$rc" "$out"
else
  not_ok "examples/pi.c compiles against the installed tree"
  sed 's/^/# /' "$tap_tmp/cc.log" | tail -20
fi
check "the installed header needs nothing from the build tree" sh -c '! grep -q "config.h\|internal.h" "$1"' _ "$stage$prefix/include/gpuquad.h"
finish
