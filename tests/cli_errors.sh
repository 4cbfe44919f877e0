# cli_errors.sh — hostile input: one line "gpuquad: ..." on stderr, nothing on
# stdout, exit 2; a failed check exits 1.
. "$TESTS_SRC/tap.sh"

expect_usage "--n=abc" "--n=abc: is not a number" --n=abc
expect_usage "--n=0" "--n=0: must be positive" --n=0
expect_usage "--n=-5" "--n=-5: must be positive" --n=-5
expect_usage "--n=1e30" "--n=1e30: is too large" --n=1e30
expect_usage "--n=2^54" "is too large" --n=2^54
expect_usage "--n=1.5" "--n=1.5: is not a whole number" --n=1.5
expect_usage "--n=''" "--n=: is empty" --n=
expect_usage "unknown --f" "--f: unknown integrand 'nosuch': not a built-in" --f=nosuch
expect_usage "unknown option" "unknown option '--bogus'" --bogus
expect_usage "short option" "unknown option '-n'" -n 5
expect_usage "--a=nan" "--a=nan: is not a number (NaN" --a=nan
expect_usage "--a=inf --b=inf" "--a, --b: the interval .inf, inf. is empty" --f='exp(-x)' --a=inf --b=inf
expect_usage "--a=1e999" "--a=1e999: is too large" --a=1e999
expect_usage "--a=abc" "--a=abc: is not a number" --a=abc

# One strict grammar for every number (issue 13, item 12): overflow anywhere
# on the way is "too large", never a wrapped or clamped value.
expect_usage "--n: 2^99 squared" "--n=633825300114114700748620038144^2: is too large" --n=633825300114114700748620038144^2
expect_usage "--n: 2^64 squared" "--n=18446744073709551616^2: is too large" --n=18446744073709551616^2
expect_usage "--n=2^64" "--n=2^64: is too large" --n=2^64
expect_usage "--n=16384Pi" "--n=16384Pi: is too large" --n=16384Pi
expect_usage "--n=1e99999999999999999999" "is too large" --n=1e99999999999999999999
expect_usage "--n=-1e30" "--n=-1e30: must be positive" --n=-1e30
expect_usage "--n=0x10" "--n=0x10: is not a number" --n=0x10
expect_usage "--n=' 5'" "--n= 5: is not a number" "--n= 5"
# 1^(23 digits) once counted to its exponent: a hang.
run timeout 20 "$GPUQUAD" --f=x --n=1^99999999999999999999999 --device=cpu --no-check --quiet
check "--n=1^(23 digits) is n = 1, at once (T = 0.5)" sh -c '[ "$1" -eq 0 ] && [ "$2" = 0.5 ]' _ "$rc" "$out"
expect_usage "--a=0x10" "--a=0x10: is not a number" --a=0x10
expect_usage "--a=' 1'" "--a= 1: is not a number" "--a= 1"
expect_usage "--b=-Infinity --a=-inf" "--a, --b: the interval .-inf, -inf. is empty" --f='exp(x)' --a=-inf --b=-Infinity
expect_usage "--b=1e310" "--b=1e310: is too large" --b=1e310
expect_usage "--param k=0x10" "--param k=0x10: '0x10' is not a number" --f='sin(k*x)' --param k=0x10
expect_usage "--param k=1e999" "--param k=1e999: '1e999' is too large" --f='sin(k*x)' --param k=1e999
expect_usage "--param k=nan" "--param k=nan: 'nan' is not a number (NaN" --f='sin(k*x)' --param k=nan
expect_usage "--param k=" "--param k=: '' is empty" --f='sin(k*x)' --param k=
expect_usage "mc --seed=0x10" "--seed=0x10: is not a number" mc --f=x --seed=0x10
expect_usage "mc --seed=2^64" "--seed=2^64: is too large (at most 18446744073709551615)" mc --f=x --seed=2^64
expect_usage "mc --seed clamped once" "--seed=99999999999999999999999: is too large" mc --f=x --seed=99999999999999999999999
expect_usage "mc --seed=-1" "--seed=-1: must not be negative" mc --f=x --seed=-1
expect_usage "mc --dim=17" "--dim=17: is too large (at most 16)" mc --f=x --dim=17
expect_usage "mc --dim=0" "--dim=0: must be positive" mc --f=x --dim=0
expect_usage "mc --dim=' 2'" "--dim= 2: is not a number" mc --f=x "--dim= 2"
expect_usage "mc --tol=0" "--tol=0: must be positive" mc --f=x --tol=0
expect_usage "mc --tol=inf" "--tol=inf: is not a finite number" mc --f=x --tol=inf
expect_usage "mc --exact=0x1p3" "--exact=0x1p3: is not a number" mc --f=x --exact=0x1p3
expect_usage "mc --a=1,0x10" "'0x10' is not a number" mc --f=x+y --dim=2 --a=1,0x10
expect_usage "stats --seed=2^64" "--seed=2^64: is too large" stats --gen=uniform --seed=2^64
expect_usage "stats --seed=0x10" "--seed=0x10: is not a number" stats --gen=uniform --seed=0x10
expect_usage "stats --n=2^41" "--n=2^41: is too large" stats --gen=uniform --n=2^41
expect_usage "stats --offset=2^64" "--offset=2^64: is too large" stats - --format=raw --offset=2^64
expect_usage "stats --offset=-8" "--offset=-8: must not be negative" stats - --format=raw --offset=-8
expect_usage "stats --col=0" "--col=0: must be positive" stats - --col=0
expect_usage "stats --col=1.5" "--col=1.5: is not a whole number" stats - --col=1.5
expect_usage "--device=cuda:0x1" "--device=cuda:0x1: expected auto" --device=cuda:0x1
expect_usage "--device=cuda:-1" "--device=cuda:-1: expected auto" --device=cuda:-1
expect_usage "--device='cuda: 1'" "expected auto" "--device=cuda: 1"

# The accepted forms give the same values as the plain ones.
run "$GPUQUAD" mc --f=x --n=100 --seed=010 --device=cpu --no-check --json
check "mc --seed=010 is seed 10 (decimal)" sh -c 'printf "%s\n" "$1" | grep -q "\"seed\": 10,"' _ "$out"
run "$GPUQUAD" mc --f=x --n=100 --seed=08 --device=cpu --no-check --json
check "mc --seed=08 is seed 8 (decimal, as 010 is 10)" sh -c 'printf "%s\n" "$1" | grep -q "\"seed\": 8,"' _ "$out"
run "$GPUQUAD" mc --f=x --n=100 --seed=1_0 --device=cpu --no-check --json
check "mc --seed=1_0 is seed 10" sh -c 'printf "%s\n" "$1" | grep -q "\"seed\": 10,"' _ "$out"
run "$GPUQUAD" mc --f=x --n=100 --seed=18446744073709551615 --device=cpu --no-check --json
check "mc --seed=2^64-1 accepted" sh -c 'printf "%s\n" "$1" | grep -q "\"seed\": 18446744073709551615,"' _ "$out"
run "$GPUQUAD" --f='sin(k*x)' --param k=pi --b=1 --n=1000 --device=cpu --quiet
pi_param=$out
run "$GPUQUAD" --f='sin(k*x)' --param k=3.141592653589793 --b=1 --n=1000 --device=cpu --quiet
check "--param k=pi is k=3.141592653589793 (the same double)" test -n "$out" -a "$out" = "$pi_param"
run "$GPUQUAD" --f='sin(k*x)' --param 'k = -e ' --b=1 --n=1000 --device=cpu --quiet
neg_e=$out
run "$GPUQUAD" --f='sin(k*x)' --param k=-2.718281828459045 --b=1 --n=1000 --device=cpu --quiet
check "--param 'k = -e ' is k=-2.718281828459045" test -n "$out" -a "$out" = "$neg_e"
run "$GPUQUAD" mc --f='k*x' --param k=pi --n=100 --device=cpu --no-check --quiet
check "mc --param k=pi: exit 0" test "$rc" -eq 0
run "$GPUQUAD" --f='sin(k*x)' --param k=pi --param k=e --device=cpu
check "a parameter defined twice still shows its own text" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | head -1 | grep -q "^gpuquad: --param k=e: "' _ "$rc" "$err"

expect_usage "missing value" "option '--n' needs a value" --n
expect_usage "flag with a value" "option '--json' takes no value" --json=1
expect_usage "--device=tpu" "--device=tpu: expected auto, cpu, cuda" --device=tpu
expect_usage "--precision=half" "--precision=half: expected double or float" --precision=half
expect_usage "unknown command" "unknown command 'frobnicate'" frobnicate
# a word after integrate is sampled data (issue 15): here a file that is not there
expect_usage "a word after integrate is DATA" "extra: No such file" integrate extra
expect_usage "limits outside the domain" "not finite" --f=circle --b=2 --n=1000 --device=cpu
expect_usage "b - a overflows" "overflows" --f=atan --a=-1e308 --b=1e308 --n=10 --device=cpu
expect_usage "interval too small" "too small" --f=atan --a=1 --b=1.0000000000000002 --n=1000 --device=cpu

# --device=cuda with no usable device: hide the GPUs where there are some.
CUDA_VISIBLE_DEVICES= expect_usage "--device=cuda without a GPU" "--device=cuda: \(no CUDA device\|this gpuquad was built without CUDA\)" --device=cuda --n=100
CUDA_VISIBLE_DEVICES= expect_usage "--device=cuda:3 without a GPU" "\(no CUDA device\|built without CUDA\)" --device=cuda:3 --n=100

# A check that fails: on [0, 99 pi] with h = pi every node is a zero of sin,
# so T = 0 while the integral is 2 (aliasing the error estimate cannot see).
run "$GPUQUAD" --f=sin --a=0 --b=311.01767270538954 --n=99 --device=cpu
check "aliased sin fails the check with exit 1" test "$rc" -eq 1
check "the failure is one line on stderr" sh -c '[ "$(printf "%s\n" "$1" | wc -l)" -eq 1 ] && printf "%s\n" "$1" | grep -q "^gpuquad: check failed"' _ "$err"
check "the table still shows the result" sh -c 'printf "%s\n" "$1" | grep -q "FAILED"' _ "$out"
run "$GPUQUAD" --f=sin --a=0 --b=311.01767270538954 --n=99 --device=cpu --no-check
check "--no-check: exit 0" test "$rc" -eq 0
# Out of memory anywhere, the check included, is a failed run (3), never
# "bad input" (2) or "check failed" (1); a library that exits on its own
# (libgomp without threads) is 3 as well.  Under a shrinking address-space
# limit each run must end 0 or 3 (127: the loader itself failed); skipped
# where the program cannot start under a limit at all (sanitizer builds).
# Limits below what `gpuquad --version` needs to start are not tried: there
# the kernel cannot even map the executable (its execve ends in SIGSEGV
# before any of gpuquad's code runs; a build with code for three GPU
# architectures is ~20 MB of text).
seq 1 2000000 >"$tap_tmp/big.txt"
# (ASan reserves terabytes of shadow memory: under a limit it cannot start and
# leaves a report CI counts, so a sanitized build, GQ_SANITIZED=1, skips.)
if [ -z "${GQ_SANITIZED:-}" ] &&
   (ulimit -v 400000 && "$GPUQUAD" stats --check --device=cpu "$tap_tmp/big.txt") >/dev/null 2>&1; then
  bad=
  floor=
  for limit in 20000 30000 40000 50000 60000 80000 100000 150000; do
    if [ -z "$floor" ]; then
      (ulimit -v $limit && exec "$GPUQUAD" --version) >/dev/null 2>&1 || continue
      floor=$limit
    fi
    for cmd in "stats" "dot $tap_tmp/big.txt" "rms $tap_tmp/big.txt"; do
      # shellcheck disable=SC2086
      (ulimit -v $limit && exec "$GPUQUAD" $cmd "$tap_tmp/big.txt" --check --device=cpu) >/dev/null 2>"$tap_tmp/oom_err"
      r=$?
      case $r in
        0 | 127) ;;
        3) grep -q "^gpuquad: " "$tap_tmp/oom_err" || bad="$bad $cmd@$limit: 3 without a gpuquad: line;" ;;
        *) bad="$bad ${cmd%% *}@$limit: exit $r ($(head -c 120 "$tap_tmp/oom_err"));" ;;
      esac
    done
  done
  check "out of memory under ulimit -v from ${floor:-?} KB (where the program starts): every run exits 0 or 3${bad:+ -$bad}" \
    test -n "$floor" -a -z "$bad"
else
  ok "out of memory under ulimit -v # SKIP cannot run under an address-space limit"
fi
finish
