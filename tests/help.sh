# help.sh — --help and --version first: the program starts and describes itself.
. "$TESTS_SRC/tap.sh"

run "$GPUQUAD" --help
check "--help exits 0" test "$rc" -eq 0
check "--help prints usage to stdout" sh -c 'printf "%s\n" "$1" | head -1 | grep -q "^Usage: gpuquad"' _ "$out"
check "--help prints nothing on stderr" test -z "$err"
check "--help names every option" sh -c 'for o in --f= --a= --b= --n= --device= --precision= --check --no-check --json --quiet --list --version; do printf "%s\n" "$1" | grep -q -- "$o" || exit 1; done' _ "$out"

run "$GPUQUAD" --version
check "--version exits 0" test "$rc" -eq 0
check "--version in the GNU form" sh -c 'printf "%s\n" "$1" | head -1 | grep -Eq "^gpuquad [0-9]+\.[0-9]+\.[0-9]+$"' _ "$out"
check "--version names the licence terms" sh -c 'printf "%s\n" "$1" | grep -q "NO WARRANTY"' _ "$out"

# the short forms (GNU): -h and -V at the top, COMMAND -h for a command
run "$GPUQUAD" -h
check "-h is --help" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -q "^Usage: gpuquad"' _ "$rc" "$out"
run "$GPUQUAD" -V
check "-V is --version" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -Eq "^gpuquad [0-9]+\.[0-9]+\.[0-9]+$"' _ "$rc" "$out"
for c in mc stats hist scan batch; do
  run "$GPUQUAD" $c -h
  check "$c -h prints $c's usage" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -1 | grep -q "^Usage: gpuquad $3"' _ "$rc" "$out" "$c"
done
run "$GPUQUAD" mc -x
check "mc -x: exit 2, names the short form and mc's help" sh -c '[ "$1" -eq 2 ] && [ "$2" = "gpuquad: mc: unknown option '"'-x'"' (options are spelled --name=value; -h is short for --help; see '"'gpuquad help mc'"')" ]' _ "$rc" "$err"
run "$GPUQUAD" -x
check "-x: exit 2, names -h and -V" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | grep -q "^gpuquad: unknown option .-x..*-h and -V"' _ "$rc" "$err"

run "$GPUQUAD" integrate --help
check "integrate --help exits 0 with usage" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^Usage: gpuquad \[integrate\]"' _ "$rc" "$out"
run "$GPUQUAD" help
check "help command exits 0" test "$rc" -eq 0

run "$GPUQUAD" --list
check "--list exits 0" test "$rc" -eq 0
for f in circle atan gauss sin exp runge poly; do
  check "--list shows $f" sh -c 'printf "%s\n" "$1" | grep -q "^$2 "' _ "$out" "$f"
done
finish
