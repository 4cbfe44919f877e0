# man_examples.sh — every "$ gpuquad ..." line in gpuquad(1) runs, with the exit
# status the page gives for it ("exit status N" on the next line, else 0), so
# the documentation cannot drift from the program.
. "$TESTS_SRC/tap.sh"

examples=$(awk '
  /^\$ gpuquad / { if (cmd != "") print want "\t" cmd; cmd = substr($0, 3); want = 0; next }
  cmd != "" && /^exit status [0-9]/ { want = $3 }
  cmd != "" && !/^exit status/ { print want "\t" cmd; cmd = "" }
  END { if (cmd != "") print want "\t" cmd }' "$MAN_PAGE" | sed 's/\\-/-/g; s/\\(ha/^/g; s/\\(aq/'"'"'/g')
[ -n "$examples" ] || { not_ok "no examples found in $MAN_PAGE"; finish; exit; }
printf '%s\n' "$examples" | {
  while IFS="$(printf '\t')" read -r want cmd; do
    case $cmd in
      *\\*) not_ok "man example: $cmd: an escape the test does not translate"; continue ;;
    esac
    args=${cmd#gpuquad }
    # shellcheck disable=SC2086
    run sh -c "exec \"\$0\" $args" "$GPUQUAD"
    check "man example: $cmd (exit $want)" test "$rc" -eq "$want"
  done
  finish
}
