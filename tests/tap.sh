# tap.sh — TAP helpers for the shell tests (sourced).
#   run CMD...        runs CMD, sets $out, $err (text) and $rc
#   check DESC CMD... "ok" if CMD succeeds
#   finish            prints the plan, exits 1 if anything failed
#   stage_install DIR make install DESTDIR=DIR from the build tree; on failure
#                     the log's end, the plan and exit 1
#   expect_usage DESC PATTERN ARGS...  gpuquad ARGS exits 2 with one line matching
tap_n=0
tap_failed=0
tap_tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuquad-test.XXXXXX") || exit 99
trap 'rm -rf "$tap_tmp"' EXIT

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
check() {
  desc=$1
  shift
  if "$@"; then ok "$desc"; else
    not_ok "$desc"
    # what the last `run` left, as diagnostics (a failure in CI says why)
    if [ -n "${rc+x}" ]; then
      echo "# the last command run: exit $rc"
      [ -n "${err:-}" ] && printf '%s\n' "$err" | head -n 5 | sed 's/^/#   /'
    fi
  fi
  return 0
}
run() {
  "$@" >"$tap_tmp/out" 2>"$tap_tmp/err"
  rc=$?
  out=$(cat "$tap_tmp/out")
  err=$(cat "$tap_tmp/err")
}
lines() { if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l | tr -d ' '; fi; }
finish() {
  echo "1..$tap_n"
  [ "$tap_failed" -eq 0 ]
}

# expect_usage DESC MESSAGE-PATTERN ARGS...
expect_usage() {
  desc=$1 pattern=$2
  shift 2
  run "$GPUQUAD" "$@"
  if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(lines "$err")" -eq 1 ] &&
     printf '%s\n' "$err" | grep -q "^gpuquad: " && printf '%s\n' "$err" | grep -q -- "$pattern"; then
    ok "$desc: $err"
  else
    not_ok "$desc: exit $rc, stdout '$out', stderr '$err' (wanted exit 2 and /$pattern/)"
  fi
}

stage_install() {
  if ! (cd "$TOP_BUILDDIR" && $MAKE install DESTDIR="$1" >"$tap_tmp/install.log" 2>&1); then
    not_ok "make install DESTDIR=…"
    sed 's/^/# /' "$tap_tmp/install.log" | tail -20
    finish
    exit 1
  fi
  ok "make install DESTDIR=…"
}
