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
