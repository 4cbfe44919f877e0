# hostile.sh — the hostile-input table: every file tests/hostile/*.cases is a
# list of cases, one gpuquad run each, with the exit status it must give and
# the start of its message.  The rules every case is held to:
#   - the status is exactly the expected one (a signal or a crash never is);
#   - exit 2 (bad input) and 3 (failed computation): stdout is empty and the
#     first line of stderr starts "gpuquad: " followed by MESSAGE-START;
#   - exit 1 (check failed): the first line of stderr starts likewise;
#   - exit 0: no line of stderr mentions nan or a crash, and MESSAGE-START,
#     where not empty, appears somewhere in stdout or stderr.
# The case functions (a case file may create fixtures under "$fix" first and
# may add `check` lines that read $out, $err and $rc after a case):
#   hostile     EXIT MESSAGE-START ARGS...            stdin from /dev/null
#   hostile_in  FILE EXIT MESSAGE-START ARGS...       stdin from FILE
#   hostile_env ASSIGNMENT EXIT MESSAGE-START ARGS... with one variable set
#   hostile_cuda EXIT MESSAGE-START ARGS...           skipped without a GPU
. "$TESTS_SRC/tap.sh"
fix="$tap_tmp/fix"
mkdir -p "$fix"
hostile_file=

hostile_judge() { # EXIT MESSAGE-START DESCRIPTION
  want=$1 msg=$2 desc="$hostile_file: $3"
  first=$(printf '%s\n' "$err" | head -n 1)
  why=
  if [ "$rc" -ne "$want" ]; then
    why="exit $rc, wanted $want"
  elif [ "$want" -ge 2 ] && [ -n "$out" ]; then
    why="stdout not empty: $(printf '%s' "$out" | head -c 200)"
  elif [ "$want" -ge 1 ]; then
    case $first in
      "gpuquad: $msg"*) ;;
      *) why="stderr starts '$first', wanted 'gpuquad: $msg'" ;;
    esac
  else
    if printf '%s\n' "$err" | grep -qiE '(^|[^a-z])nan([^a-z]|$)|sanitizer|segmentation|core dumped|runtime error'; then
      why="stderr: $(printf '%s' "$err" | head -c 300)"
    elif [ -n "$msg" ] && ! printf '%s\n%s\n' "$out" "$err" | grep -qF -- "$msg"; then
      why="output lacks '$msg'"
    fi
  fi
  if [ -z "$why" ]; then ok "$desc: exit $rc${first:+ ($first)}"; else not_ok "$desc: $why"; fi
}
hostile_words() { printf '%s ' "$@" | cut -c1-160; }

hostile() {
  want=$1 msg=$2
  shift 2
  run "$GPUQUAD" "$@" </dev/null
  hostile_judge "$want" "$msg" "$(hostile_words "$@")"
}
hostile_in() {
  input=$1 want=$2 msg=$3
  shift 3
  run "$GPUQUAD" "$@" <"$input"
  hostile_judge "$want" "$msg" "< $(basename "$input") $(hostile_words "$@")"
}
hostile_env() {
  assignment=$1 want=$2 msg=$3
  shift 3
  run env "$assignment" "$GPUQUAD" "$@" </dev/null
  hostile_judge "$want" "$msg" "$assignment $(hostile_words "$@")"
}
hostile_have_gpu=
hostile_cuda() {
  if [ -z "$hostile_have_gpu" ]; then
    "$GPUQUAD" --device=cuda --n=10 --no-check >/dev/null 2>&1 && hostile_have_gpu=yes || hostile_have_gpu=no
  fi
  if [ "$hostile_have_gpu" = no ]; then
    shift 2
    ok "$hostile_file: $(hostile_words "$@") # SKIP no CUDA device"
    return
  fi
  hostile "$@"
}

for hostile_path in "$TESTS_SRC"/hostile/*.cases; do
  [ -f "$hostile_path" ] || continue
  hostile_file=$(basename "$hostile_path" .cases)
  . "$hostile_path"
done
finish
