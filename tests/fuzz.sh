# fuzz.sh — the libFuzzer targets (built with --enable-fuzzing), each for a
# bounded number of inputs from its seed corpus: zero crashes, zero sanitizer
# reports.  GQ_FUZZ_RUNS sets the bound (default 100000); GQ_FUZZ_SECONDS, when
# set, bounds each target by time instead (CI: a minute each).
. "$TESTS_SRC/tap.sh"
runs=${GQ_FUZZ_RUNS:-100000}
bound="-runs=$runs" bound_words="$runs inputs"
if [ -n "${GQ_FUZZ_SECONDS:-}" ]; then
  bound="-max_total_time=$GQ_FUZZ_SECONDS" bound_words="$GQ_FUZZ_SECONDS s"
fi
fuzz() { # NAME CORPUS [EXTRA...]
  bin="$TESTS_BIN/$1" corpus=$2
  shift 2
  if [ ! -x "$bin" ]; then
    ok "$(basename "$bin") # SKIP not built"
    return
  fi
  mkdir -p "$tap_tmp/$(basename "$bin")"
  cp "$corpus"/* "$tap_tmp/$(basename "$bin")/" 2>/dev/null
  if "$bin" "$bound" -max_len=4096 -timeout=10 "$@" "$tap_tmp/$(basename "$bin")" >"$tap_tmp/log" 2>&1; then
    ok "$(basename "$bin"): $bound_words, no crash ($(grep -o 'Done [0-9]* runs.*' "$tap_tmp/log" | head -1))"
  else
    not_ok "$(basename "$bin") crashed or reported"
    tail -30 "$tap_tmp/log" | sed 's/^/# /'
  fi
}
fuzz fuzz_expr "$TESTS_SRC/expr/corpus" -dict="$TESTS_SRC/expr/expr.dict"
fuzz fuzz_npy "$TESTS_SRC/io/corpus"
fuzz fuzz_expr_diff "$TESTS_SRC/expr/corpus" -dict="$TESTS_SRC/expr/expr.dict"
fuzz fuzz_json_line "$TESTS_SRC/batch_corpus"
finish
