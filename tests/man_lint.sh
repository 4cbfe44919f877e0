# man_lint.sh — both man pages format without a single diagnostic from groff
# (-ww: every warning) and from mandoc (-Tlint, down to its style messages),
# and keep to the markup rules a linter cannot see: no text line that starts
# with "." or "'" unless it is a request, no \u/\d (they vanish on a terminal,
# so 2\u30\d reads as 230), no \(if where an integral is meant.  Skipped
# only when neither groff nor mandoc is installed.
. "$TESTS_SRC/tap.sh"
man_dir=$(dirname "$MAN_PAGE")
pages="$man_dir/gpuquad.1 $man_dir/gpuquad.3"
have_groff=no have_mandoc=no
command -v groff >/dev/null 2>&1 && have_groff=yes
command -v mandoc >/dev/null 2>&1 && have_mandoc=yes
if [ "$have_groff" = no ] && [ "$have_mandoc" = no ]; then
  echo "1..0 # SKIP neither groff nor mandoc is installed"
  exit 0 # a TAP plan of 0 with SKIP is the skip (the TAP driver takes 77 for an error)
fi

lint() { # DESCRIPTION COMMAND...: passes when COMMAND prints nothing and exits 0
  desc=$1
  shift
  run "$@"
  report=$(printf '%s\n%s\n' "$out" "$err" | grep -v '^$')
  if [ "$rc" -eq 0 ] && [ -z "$report" ]; then
    ok "$desc"
  else
    not_ok "$desc"
    printf '%s\n' "$report" | head -40 | sed 's/^/# /'
  fi
}

for page in $pages; do
  name=$(basename "$page")
  if [ "$have_groff" = yes ]; then
    # -t: the pages' tables; -z: format but print nothing except diagnostics.
    lint "$name: groff -t -man -ww -z is silent" groff -t -man -ww -z "$page"
  else
    ok "$name: groff # SKIP groff is not installed"
  fi
  if [ "$have_mandoc" = yes ]; then
    # Every level down to STYLE, except lines longer than 80 bytes, which
    # render correctly and which the long signatures and commands need.
    run mandoc -Tlint -W style "$page"
    report=$(printf '%s\n%s\n' "$out" "$err" | grep -v '^$' | grep -v 'input text line longer than 80 bytes')
    if [ -z "$report" ]; then
      ok "$name: mandoc -Tlint -W style is silent"
    else
      not_ok "$name: mandoc -Tlint -W style is silent"
      printf '%s\n' "$report" | head -40 | sed 's/^/# /'
    fi
  else
    ok "$name: mandoc # SKIP mandoc is not installed"
  fi

  # A control character starts a request; anything else after it is eaten as
  # an unknown macro (".tsv" once swallowed a sentence).  Only known requests
  # and macros may start a line; text must be written \&.tsv.
  bad=$(awk '
    /^[.\x27]/ {
      word = $0; sub(/^[.\x27][ \t]*/, "", word); sub(/[ \t].*/, "", word)
      if (word !~ /^(\\"|TH|SH|SS|PP|LP|P|TP|IP|HP|RS|RE|B|I|R|BI|BR|IB|IR|RB|RI|SM|SB|EX|EE|TS|TE|nf|fi|br|sp|ad|na|ne|in|ti|ft|if|ie|el|UR|UE|MT|ME|TQ|OP|SY|YS|)$/)
        printf "%d: %s\n", NR, $0
    }' "$page")
  check "$name: every line starting with . or ' is a known request or macro${bad:+ (not: $(echo "$bad" | head -3 | tr '\n' ' '))}" test -z "$bad"

  # Blocks that are opened are closed: an .EX without .EE runs the example
  # font into the next section.
  bad=$(awk '
    /^\.EX/ { ex++ } /^\.EE/ { ex-- } /^\.RS/ { rs++ } /^\.RE/ { rs-- }
    /^\.nf/ { nf = 1 } /^\.fi/ { nf = 0 }
    /^\.S[HS]/ { if (ex || rs || nf) printf "%d: %s opens with %s\n", NR, $0, ex ? ".EX" : rs ? ".RS" : ".nf"; ex = rs = nf = 0 }
    END { if (ex || rs) print "end of page: an unclosed block" }' "$page")
  check "$name: .EX/.EE, .RS/.RE and .nf/.fi are closed before each heading${bad:+ ($(echo "$bad" | head -2 | tr '\n' ' '))}" test -z "$bad"

  # \u and \d move text half a line on a typesetter and not at all on a
  # terminal: 10\u9\d shows as 109.  Write 10^9 and x_i instead.
  bad=$(grep -n '\(^\|[^\\]\)\(\\\\\)*\\[ud]' "$page" | head -3)
  check "$name: no \\u or \\d escapes${bad:+ (line $bad)}" test -z "$bad"

  # \(if is infinity; the check's bound is an integral, \(is.
  bad=$(grep -n '\\(if|f|' "$page" | head -3)
  check "$name: the integral of |f| is written \\(is${bad:+ (line $bad)}" test -z "$bad"
done

# gpuquad(1) describes every command, and every option each command's --help
# lists, with the spelling the program accepts.
page="$man_dir/gpuquad.1"
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$page")
commands=$("$GPUQUAD" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF && !/^Commands:/ { print $1 }')
check "gpuquad --help lists commands" test -n "$commands"
for cmd in $commands; do
  check "SYNOPSIS shows $cmd" sh -c 'printf "%s\n" "$1" | grep -q "\\\\fB$2\\\\fR\\|^\\.B gpuquad $2\\|[|]\\\\fB$2\\\\fR"' _ "$synopsis" "$cmd"
  check "COMMANDS has an entry for $cmd" sh -c 'sed -n "/^\\.SH COMMANDS/,/^\\.SH /p" "$1" | awk -v c="$2" "prev == \".TP\" && (\$0 == \".B \" c || index(\$0, \".BI \" c \" \") == 1) { found = 1 } { prev = \$0 } END { exit !found }"' _ "$page" "$cmd"
  run "$GPUQUAD" "$cmd" --help
  if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
    not_ok "gpuquad $cmd --help exits 0 with text (exit $rc)"
    continue
  fi
  # The part of the page that documents the command's options: its own
  # section (or, for a command without a mapping here, the first heading
  # that names it), up to the next .SH.
  case $cmd in
    integrate) heading='^\.SH OPTIONS' ;;
    dot | rms | stats) heading='^\.SS "Data for dot, rms and stats"' ;;
    mc) heading='^\.SH MONTE CARLO' ;;
    bench) heading='^\.SH BENCH' ;;
    *) heading="^\\.S[HS] .*$cmd" ;;
  esac
  section=$(awk -v h="$heading" '$0 ~ h { on = 1; print; next } on && /^\.SH / { exit } on' "$page")
  check "gpuquad(1) has a section for $cmd's options" test -n "$section"
  options=$(printf '%s\n' "$out" | grep -o -- '--[a-z][a-z-]*' | sort -u)
  for option in $options; do
    escaped=$(printf '%s' "$option" | sed 's/-/\\\\-/g')
    check "gpuquad(1) documents $cmd's $option in its section" sh -c 'printf "%s\n" "$1" | grep -q -- "$2"' _ "$section" "$escaped"
  done
done
# Options the page names must exist: each \-\-word in the page is one that
# some command's --help (or bench --hist's) lists, or --help/--version
# themselves, or an abbreviation the parser takes (the prefix of one of
# them), or an option of configure (--with-*, --enable-*, --disable-*).
known=$( (for cmd in "" $commands; do "$GPUQUAD" $cmd --help; done; "$GPUQUAD" bench --hist --help) |
  grep -o -- '--[a-z][a-z-]*' | sort -u)
documented=$(grep -oE -- '\\-\\-[a-z]([a-z0-9]|\\-[a-z])*' "$page" | sed 's/\\-/-/g' | sort -u)
printf '%s\n' "$known" >"$tap_tmp/known"
unknown=$(printf '%s\n' "$documented" | grep -vxF -f "$tap_tmp/known" | grep -v -- '^--\(with\|enable\|disable\)-' |
  while read -r word; do
    [ "$(grep -c -- "^$word" "$tap_tmp/known")" -eq 1 ] || printf '%s ' "$word"
  done)
check "every option gpuquad(1) names is one the program lists${unknown:+ (unknown: $unknown)}" test -z "$unknown"
finish
