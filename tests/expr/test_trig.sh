#!/bin/sh
# test_trig.sh — the functions of the GPU grid's rotation of sines,
# cosines and exponentials (gq_expr_emit_cuda_trig, kernels/engine/grid_rot_source.cuh),
# compiled for the host by the C++ compiler and checked against the plain
# emitted function (trig_tool.c says how).  Skips without a C++
# compiler (a plan of 0 with SKIP).  Needs TRIG_TOOL (default: ./trig_tool).
tool=${TRIG_TOOL:-./trig_tool}
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null 2>&1 || { echo "1..0 # SKIP no C++ compiler ($cxx)"; exit 0; }
[ -x "$tool" ] || { echo "Bail out! $tool not built"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# N:EXPR — N terms rotated; sN: with symbolic parameters k and w
"$tool" "$tmp/t.cpp" \
  '1:sin(3*x)/(1+x)' \
  '1:sin(3*x)*cos(3*x)' \
  '4:sin(3*x)*cos(3*x) + cos(-x/2 + 1) + sin(2*(x + 1)) - sin(x^2) + cos(x*2 - x/4)' \
  '4:sin(x)*sin(2*x)*sin(3*x)*sin(4*x)*sin(5*x)' \
  '3:if(x < 0.5, sin(x) / x, cos(sqrt(2)*x - 3)) + sin(exp(x))' \
  '1:sin(sin(x))' \
  '1:sin(x^2) + cos(exp(x)) + sin(1/x) + sin(x*x)' \
  '0:sin(2)*x + cos(pi)' \
  '1:exp(-x*x)*cos(k*x + w)' \
  's1:sin(k*x)/(1+x) + cos(k*x)*w' \
  's3:sin((x - w)/k) + cos(-(k*x)) + sin(k^2*x)' \
  '2:exp(-x)*sin(5*x)' \
  '2:exp(3*x - 2) + exp(x*x) + sin(3*x - 2)' \
  '4:exp(-x/2)*exp(x) + cos(x)*exp(2*(1 - x))' \
  's1:exp(-k*x)/(w + x^2)' \
  >"$tmp/log" 2>&1 || { echo "Bail out! trig_tool failed"; sed 's/^/# /' "$tmp/log"; exit 99; }
"$cxx" -O1 -ffp-contract=off -o "$tmp/t" "$tmp/t.cpp" -lm >"$tmp/log" 2>&1 ||
  { echo "Bail out! $cxx could not compile the emitted functions"; sed 's/^/# /' "$tmp/log"; exit 99; }
"$tmp/t"
