#!/bin/sh
# stdin.sh — the vector reader on standard input ("-"), TAP output.
# Compares reading a file by name with reading it from a redirected stdin
# (seekable) and from a pipe (not seekable: everything must stream), and
# checks error messages on stdin.  READVEC is the driver built from readvec.c.
READVEC=${READVEC:-./readvec}
if [ ! -x "$READVEC" ]; then
  echo "1..0 # SKIP readvec driver not built ($READVEC)"
  exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gq-io-stdin-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
result() { # status description
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
summary() { sed 's/ length=[-0-9]*//'; }
same() { # description, then expected and actual output in $want/$got
  [ -n "$want" ] && [ "$want" = "$got" ]
  st=$?
  result $st "$1"
  if [ $st -ne 0 ]; then echo "# want: $want"; echo "# got:  $got"; fi
}
error_is() { # description, expected stderr substring; stderr in $tmp/err, status in $rc
  grep -F -- "$2" "$tmp/err" >/dev/null && [ "$rc" -eq 1 ]
  st=$?
  result $st "$1"
  [ $st -eq 0 ] || sed 's/^/# stderr: /' "$tmp/err"
}

"$READVEC" --write-npy 100000 "$tmp/a.npy" &&
"$READVEC" --write-npy32 5000 "$tmp/b.npy" &&
"$READVEC" --write-raw 3000 "$tmp/a.bin" &&
"$READVEC" --write-text 3000 "$tmp/a.txt" || { echo "Bail out! cannot write fixtures"; exit 99; }

want=$("$READVEC" "$tmp/a.npy" | summary)
got=$("$READVEC" - < "$tmp/a.npy" | summary);                    same "npy: stdin redirected from a file"
got=$(cat "$tmp/a.npy" | "$READVEC" - | summary);                 same "npy: stdin from a pipe"
got=$(cat "$tmp/a.npy" | "$READVEC" --chunk=1 - | summary);       same "npy: pipe, chunk 1"
got=$(cat "$tmp/a.npy" | "$READVEC" --chunk=3 - | summary);       same "npy: pipe, chunk 3"
got=$(cat "$tmp/a.npy" | "$READVEC" --format=npy - | summary);    same "npy: pipe with --format=npy"
got=$(cat "$tmp/a.npy" | "$READVEC" - | sed -n 's/.*length=\([-0-9]*\).*/\1/p')
want=100000;                                                      same "npy: pipe knows the length from the header"

want=$("$READVEC" "$tmp/b.npy" | summary)
got=$(cat "$tmp/b.npy" | "$READVEC" --chunk=4096 - | summary);   same "npy f32: pipe, stays f32"

want=$("$READVEC" "$tmp/a.txt" | summary)
got=$(cat "$tmp/a.txt" | "$READVEC" - | summary);                 same "text: pipe, sniffed as text"
got=$(cat "$tmp/a.txt" | "$READVEC" --chunk=3 --format=text - | summary); same "text: pipe, chunk 3"

want=$("$READVEC" "$tmp/a.bin" | summary)
got=$(cat "$tmp/a.bin" | "$READVEC" --format=raw - | summary);    same "raw: pipe"
want=$("$READVEC" --offset=80 "$tmp/a.bin" | summary)
got=$(cat "$tmp/a.bin" | "$READVEC" --format=raw --offset=80 - | summary); same "raw: pipe with offset"
got=$(cat "$tmp/a.bin" | "$READVEC" --format=raw - | sed -n 's/.*length=\([-0-9]*\).*/\1/p')
want=-1;                                                          same "raw: pipe length unknown"

# A = [[1, 2, 3], [4, 5, 6]] as <f8 in C order (1 2 3 4 5 6) and in Fortran
# order (1 4 2 5 3 6): through a pipe the Fortran file must deliver the same
# bytes as the C-order one.  Header: 10 bytes, then the dict padded to 118.
npy_2x3() { # FORTRAN VALUE... (values 1..6 in file order)
  printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '<f8', 'fortran_order': $1, 'shape': (2, 3), }"
  shift
  for v in "$@"; do
    case $v in
      1) printf '\0\0\0\0\0\0\360\077' ;; 2) printf '\0\0\0\0\0\0\0\100' ;;
      3) printf '\0\0\0\0\0\0\010\100' ;; 4) printf '\0\0\0\0\0\0\020\100' ;;
      5) printf '\0\0\0\0\0\0\024\100' ;; 6) printf '\0\0\0\0\0\0\030\100' ;;
    esac
  done
}
npy_2x3 False 1 2 3 4 5 6 >"$tmp/c23.npy"
npy_2x3 True 1 4 2 5 3 6 >"$tmp/f23.npy"
want=$("$READVEC" "$tmp/c23.npy" | summary)
got=$(cat "$tmp/f23.npy" | "$READVEC" - | summary);               same "npy Fortran (2, 3): pipe delivers C order"
got=$(cat "$tmp/f23.npy" | "$READVEC" --chunk=1 - | summary);     same "npy Fortran (2, 3): pipe, chunk 1"
got=$("$READVEC" - <"$tmp/f23.npy" | summary);                   same "npy Fortran (2, 3): stdin redirected from a file"
head -c 160 "$tmp/f23.npy" | "$READVEC" - >/dev/null 2>"$tmp/err"; rc=$?
error_is "npy Fortran: truncated pipe" "<stdin>: truncated: header says 6 elements, file has 4"

head -c 1000 "$tmp/a.npy" | "$READVEC" - >/dev/null 2>"$tmp/err"; rc=$?
error_is "npy: truncated pipe" "<stdin>: truncated: header says 100000 elements, file has 109"
head -c 50 "$tmp/a.npy" | "$READVEC" - >/dev/null 2>"$tmp/err"; rc=$?
error_is "npy: header cut short in a pipe" "<stdin>: truncated npy header"
printf '1\n2\nabc\n' | "$READVEC" - >/dev/null 2>"$tmp/err"; rc=$?
error_is "text: bad number on stdin" "<stdin>: line 3: 'abc' is not a number"
"$READVEC" - </dev/null >/dev/null 2>"$tmp/err"; rc=$?
error_is "text: empty stdin" "<stdin>: no numbers"
printf 'abcdefghijk' | "$READVEC" --format=raw - >/dev/null 2>"$tmp/err"; rc=$?
error_is "raw: partial element on a pipe" "<stdin>: input ends inside an element (3 bytes of 8)"
printf 'abc' | "$READVEC" --format=raw --offset=8 - >/dev/null 2>"$tmp/err"; rc=$?
error_is "raw: offset past the end of a pipe" "<stdin>: offset 8 is past the end of the input (3 bytes)"
"$READVEC" "$tmp/missing.npy" >/dev/null 2>"$tmp/err"; rc=$?
error_is "missing file named in the message" "missing.npy: No such file or directory"

echo "1..$n"
exit $failed
