#!/bin/sh
# python.sh — the Python module (python/gpuquad) on the CPU backend:
# tests/python/check_cpu.py compares it with the CLI bit for bit, checks its
# errors and its structs' layout (tests/py_layout), and installs it with pip.
# Skipped only where python3 or numpy is missing (a TAP plan of 0 with SKIP:
# the TAP driver takes exit 77 for an error); the shared library is
# $GQ_PY_LIBRARY (the Makefile's GQ_PY_LIBRARY).
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "1..0 # SKIP no $PYTHON"
  exit 0
fi
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
  echo "1..0 # SKIP $PYTHON has no numpy"
  exit 0
fi
if [ ! -f "$GQ_PY_LIBRARY" ]; then
  if [ -n "$GQ_PY_LIBRARY_OPTIONAL" ]; then
    echo "1..0 # SKIP no shared library at $GQ_PY_LIBRARY ($GQ_PY_LIBRARY_OPTIONAL)"
    exit 0
  fi
  echo "Bail out! no shared library at '$GQ_PY_LIBRARY'"
  exit 99
fi
GPUQUAD_LIBRARY=$GQ_PY_LIBRARY PYTHONDONTWRITEBYTECODE=1
export GPUQUAD_LIBRARY PYTHONDONTWRITEBYTECODE
# A library built with AddressSanitizer needs its runtime loaded first
# (Python is not built with it), and Python's own allocations are not ours to
# report as leaks.
asan=$(ldd "$GQ_PY_LIBRARY" 2>/dev/null | sed -n 's/.*\(libasan\.so[^ ]*\) => \([^ ]*\).*/\2/p')
if [ -n "$asan" ]; then
  ubsan=$(ldd "$GQ_PY_LIBRARY" 2>/dev/null | sed -n 's/.*\(libubsan\.so[^ ]*\) => \([^ ]*\).*/\2/p')
  LD_PRELOAD="$asan${ubsan:+ $ubsan}"
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export LD_PRELOAD ASAN_OPTIONS
fi
exec "$PYTHON" "$TESTS_SRC/python/check_cpu.py"
