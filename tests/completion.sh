# completion.sh — the bash completion (completion/gpuquad) sourced in bash
# offers commands, each command's options (read from the program's own
# tables: gpuquad --list-options), option values and file names; every
# value it offers is one the program accepts, and every option in the
# tables is in the command's --help (so in gpuquad(1): man_lint.sh).
. "$TESTS_SRC/tap.sh"
if ! command -v bash >/dev/null 2>&1; then
  echo "1..0 # SKIP bash is not installed"
  exit 0
fi
comp=$TESTS_SRC/../completion/gpuquad
d=$tap_tmp
printf '1\n2\n' >"$d/y.txt"

# offers WORD...: what the completion offers for the last word, one a line,
# sorted (the words as bash splits the line: "--device=c" is "--device" "=" "c")
offers() {
  bash -c '. "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && { _gpuquad; } ;
    printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$GPUQUAD" "$@" 2>&1 | sort
}
# expect DESC WANTED WORD...: the offers are exactly WANTED (blank-separated)
expect() {
  desc=$1 wanted=$(printf '%s\n' $2 | sort)
  shift 2
  got=$(offers "$@")
  if [ "$got" = "$wanted" ]; then ok "$desc"; else not_ok "$desc: offered '$(echo $got)', wanted '$(echo $wanted)'"; fi
}

expect "a command" "mc" m
expect "commands after help" "scan stats" help s
expect "an option of mc" "--device=" mc --dev
expect "a flag of dot" "--json" dot --js
expect "bench has --hist" "--hist" bench --hi
expect "bench --hist's own options too" "--bins=" bench --hist --bi
expect "--device=c" "cpu cuda cuda:0" mc --device = c
expect "--device c (the value as the next word)" "cpu cuda cuda:0" stats --device c
expect "--rule= on integrate" "adaptive boole gauss-legendre simpson trapezoid" --rule = ""
expect "--rule s after integrate" "simpson" integrate --rule s
expect "an abbreviated option's values: --meth=sh on hist" "shared" hist --meth = sh
expect "mc --method=" "plain vegas" mc --method = ""
expect "--f= offers the built-in integrands" "circle" --f = ci
expect "a file operand" "$d/y.txt" stats "$d/y"
expect "a file for --x" "$d/y.txt" integrate --x "$d/y"
expect "nothing offered for --n's value" "" mc --n ""

# each value offered is accepted
for r in $(offers --rule = ""); do
  run "$GPUQUAD" --rule="$r" --f=x --device=cpu --quiet
  check "--rule=$r is accepted" test "$rc" -eq 0
done
for m in $(offers mc --method = ""); do
  run "$GPUQUAD" mc --method="$m" --f=x --n=4000 --device=cpu --quiet
  check "mc --method=$m is accepted" test "$rc" -eq 0
done
for g in $(offers stats --gen = ""); do
  for t in $(offers stats --dtype = ""); do
    run "$GPUQUAD" stats --gen="$g" --dtype="$t" --n=10 --device=cpu --json
    check "stats --gen=$g --dtype=$t is accepted" test "$rc" -eq 0
  done
done
for p in $(offers stats --nan = ""); do
  run "$GPUQUAD" stats --nan="$p" --device=cpu --json "$d/y.txt"
  check "stats --nan=$p is accepted" test "$rc" -eq 0
done
for f in $(offers stats --format = ""); do
  run "$GPUQUAD" stats --format="$f" --device=cpu --json /dev/null
  check "stats --format=$f is known (not 'expected')" sh -c '! printf "%s\n" "$1" | grep -q "expected npy"' _ "$err"
done

# the tables and the help agree: every option the parser takes is in --help
for c in $("$GPUQUAD" --list-options); do
  [ "$c" = help ] && continue
  case $c in
    integrate) help=$("$GPUQUAD" integrate --help; "$GPUQUAD" integrate "$d/y.txt" --help) ;;
    bench) help=$("$GPUQUAD" bench --help; "$GPUQUAD" bench --hist --help) ;;
    *) help=$("$GPUQUAD" "$c" --help) ;;
  esac
  missing=
  for o in $("$GPUQUAD" --list-options "$c"); do
    o=${o%=}
    printf '%s\n' "$help" | grep -q -- "$o\\([^a-z-]\\|$\\)" || missing="$missing $o"
  done
  check "$c: every option of its tables is in its --help${missing:+ (missing:$missing)}" test -z "$missing"
done
finish
