# outside.sh — the installed library from outside projects (issue 24): make
# install into a staging folder, then
#   - libgpuquad.so.1 has its soname, exports exactly the functions gpuquad.h
#     declares (src/gpuquad.sym) and no internals, and needs the CUDA runtime
#     in a CUDA build (NVRTC and cuBLAS are opened with dlopen, never linked);
#   - tests/outside/cmake (find_package(gpuquad) and the imported targets
#     gpuquad::gpuquad, gpuquad::gpuquad_static, a C11 and a C++17 program) and
#     tests/outside/make (pkg-config; --static for libgpuquad.a) build with
#     -Wall -Wextra -Werror against the installed header only, and their
#     programs compute x^2 on [0, 1] and known dot products right on the CPU;
#   - the shared programs load the staged libgpuquad.so.1, the static ones none.
# The compilers get the flags in CC (CI's sanitizers) too.  Skipped only where
# cmake is not installed (CI installs it).
. "$TESTS_SRC/tap.sh"

if ! command -v cmake >/dev/null 2>&1; then
  echo "1..0 # SKIP cmake is not installed"
  exit 0
fi
stage=$tap_tmp/stage
stage_install "$stage"
prefix=$stage$(sed -n 's/^prefix=//p' "$TOP_BUILDDIR/gpuquad.pc")
pcdir=$(find "$stage" -name gpuquad.pc -exec dirname {} \; | head -1)
libdir=$(dirname "$pcdir")
so=$libdir/libgpuquad.so.1

# the shared library
check "installs libgpuquad.so.1, libgpuquad.so and libgpuquad.a in $libdir" \
  test -f "$so" -a -L "$libdir/libgpuquad.so" -a -f "$libdir/libgpuquad.a"
check "installs gpuquadConfig.cmake and gpuquadConfigVersion.cmake in LIBDIR/cmake/gpuquad" \
  test -f "$libdir/cmake/gpuquad/gpuquadConfig.cmake" -a -f "$libdir/cmake/gpuquad/gpuquadConfigVersion.cmake"
dynamic=$(readelf -d "$so" 2>&1)
check "its soname is libgpuquad.so.1" sh -c 'printf "%s\n" "$1" | grep -q "(SONAME).*\[libgpuquad\.so\.1\]"' _ "$dynamic"
needed=$(printf '%s\n' "$dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' ')
check "it needs GSL: $needed" sh -c 'printf "%s\n" "$1" | grep -q "libgsl\.so"' _ "$needed"
if grep -q '^#define HAVE_CUDA 1' "$TOP_BUILDDIR/config.h"; then
  check "it needs the CUDA runtime" sh -c 'printf "%s\n" "$1" | grep -q "libcudart\.so"' _ "$needed"
fi
check "it links no NVRTC and no cuBLAS (dlopen)" sh -c '! printf "%s\n" "$1" | grep -Eq "lib(nvrtc|cublas)"' _ "$needed"
nm -D --defined-only "$so" | awk '{ print $NF }' | LC_ALL=C sort >"$tap_tmp/exported"
public=$TOP_BUILDDIR/src/gpuquad.sym
check "it exports the $(wc -l <"$public" | tr -d ' ') functions gpuquad.h declares, nothing else" \
  sh -c 'diff "$1" "$2" | sed "s/^/# /"; cmp -s "$1" "$2"' _ "$public" "$tap_tmp/exported"
# internals are gq_ names too: the CPU backend's, the CUDA backend's, the checks'
check "the list holds gq_version, gq_dot, gq_integrate_rule and no internal gq_cpu_*, gq_cuda_* or gq_check_*" \
  sh -c 'grep -qx gq_version "$1" && grep -qx gq_dot "$1" && grep -qx gq_integrate_rule "$1" &&
         ! grep -v "^gq_cuda_device_count$" "$1" | grep -Eq "^gq_(cpu|cuda|check)_"' _ "$tap_tmp/exported"
missing=
for f in $(cat "$public"); do
  grep -q "\\b$f *(" "$prefix/include/gpuquad.h" || missing="$missing $f"
done
check "the installed header declares each exported function${missing:+; not:$missing}" test -z "$missing"

# the compilers, with the flags of CC (a sanitized library needs sanitized programs)
cc=${CC:-cc}
cc_flags=
case $cc in *' '*) cc_flags=${cc#* } ;; esac
cxx=
for c in "${CXX:-}" c++ g++ clang++; do
  if [ -n "$c" ] && command -v "${c%% *}" >/dev/null 2>&1; then cxx="$c $cc_flags"; break; fi
done
[ -n "$cxx" ] || cxx="c++ $cc_flags"
cp -R "$TESTS_SRC/outside" "$tap_tmp/outside"
chmod -R u+w "$tap_tmp/outside"

# runs DESC CMD...: CMD prints "...: right" and exits 0
runs() {
  desc=$1
  shift
  run "$@"
  check "$desc runs: $out" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q ": right$"' _ "$rc" "$out"
  [ "$rc" -eq 0 ] || printf '%s\n' "$err" | sed 's/^/# /'
}
# loads PROGRAM [ENV...]: the libgpuquad ldd shows PROGRAM loading, "" if none
loads() {
  prog=$1
  shift
  env "$@" ldd "$prog" 2>/dev/null | sed -n 's/^[[:space:]]*libgpuquad\.so[^ ]* => \([^ ]*\).*/\1/p'
}

# the CMake project
version=$(printf '%s\n' "$PACKAGE_VERSION" | cut -d. -f1-2)
b=$tap_tmp/cmake-build
if (cd "$tap_tmp" && CC=$cc CXX=$cxx cmake -S outside/cmake -B "$b" -DCMAKE_PREFIX_PATH="$prefix" \
      -DGPUQUAD_VERSION="$version" >"$tap_tmp/cmake.log" 2>&1 &&
    cmake --build "$b" >>"$tap_tmp/cmake.log" 2>&1); then
  ok "CMake: find_package(gpuquad $version) and gpuquad::gpuquad, gpuquad::gpuquad_static build app, app_static, app_cxx (-Wall -Wextra -Werror)"
  runs "CMake app (shared)" "$b/app"
  runs "CMake app_static" "$b/app_static"
  runs "CMake app_cxx (C++17, shared)" "$b/app_cxx"
  lib=$(loads "$b/app")
  check "CMake app loads the staged libgpuquad.so.1: $lib" test "$lib" = "$so"
  check "CMake app_static loads no libgpuquad" test -z "$(loads "$b/app_static")"
else
  not_ok "CMake: find_package(gpuquad $version) builds the outside project"
  sed 's/^/# /' "$tap_tmp/cmake.log" | tail -30
fi
# the version file: a newer major version is refused
next=$(( $(printf '%s\n' "$PACKAGE_VERSION" | cut -d. -f1) + 1 )).0
run cmake -S "$tap_tmp/outside/cmake" -B "$tap_tmp/cmake-next" -DCMAKE_PREFIX_PATH="$prefix" -DGPUQUAD_VERSION="$next"
check "CMake: find_package(gpuquad $next) is refused by gpuquadConfigVersion.cmake ($PACKAGE_VERSION)" \
  sh -c '[ "$1" -ne 0 ] && printf "%s\n" "$2" | grep -q "$3"' _ "$rc" "$err" "$PACKAGE_VERSION"

# the Makefile project (pkg-config, the staged prefix in place of the configured one)
m=$tap_tmp/outside/make
pkgc="pkg-config --define-variable=prefix=$prefix"
if (cd "$m" && PKG_CONFIG_PATH=$pcdir $MAKE CC="$cc" PKG_CONFIG="$pkgc" >"$tap_tmp/make.log" 2>&1); then
  ok "make + pkg-config: app (pkg-config --libs) and app_static (libgpuquad.a, pkg-config --static --libs)"
  runs "make app_static" "$m/app_static"
  check "make app_static loads no libgpuquad" test -z "$(loads "$m/app_static")"
  lib=$(loads "$m/app" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  check "make app loads the staged libgpuquad.so.1 (LD_LIBRARY_PATH): $lib" test "$lib" = "$so"
  runs "make app (shared)" env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$m/app"
else
  not_ok "make + pkg-config builds the outside project"
  sed 's/^/# /' "$tap_tmp/make.log" | tail -30
fi
finish
