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
expect_usage "--b=inf" "--b=inf: is not a finite number" --b=inf
expect_usage "--a=1e999" "is not a finite number" --a=1e999
expect_usage "--a=abc" "--a=abc: is not a number" --a=abc
expect_usage "missing value" "option '--n' needs a value" --n
expect_usage "flag with a value" "option '--json' takes no value" --json=1
expect_usage "--device=tpu" "--device=tpu: expected auto, cpu, cuda" --device=tpu
expect_usage "--precision=half" "--precision=half: expected double or float" --precision=half
expect_usage "unknown command" "unknown command 'frobnicate'" frobnicate
expect_usage "extra argument" "unexpected argument 'extra'" integrate extra
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
finish
