# determ_cli.sh — `--deterministic` end to end (issue 20): dot, rms and
# stats of adversarial data (cancellation across 2^-1074 .. 2^1023, a few
# values near DBL_MAX, subnormals) give the same JSON numbers for
# OMP_NUM_THREADS = 1, 2, 3, 7, from a file and from standard input, and
# the dot, sum and mean equal the exact rational results (Python's
# fractions) rounded once; the sd is within an ulp; on random 64-bit
# patterns too (every exponent).  NaN follows
# --nan as without the flag; every command accepts the flag.
. "$TESTS_SRC/tap.sh"
d=$tap_tmp
G="$GPUQUAD"

python3 - "$d" <<'PY'
import random, struct, sys
random.seed(20)
xs, ys = [], []
for _ in range(30000):
    v = random.uniform(0.5, 1) * 2.0 ** random.randint(-1074, 1022)
    xs += [v, -v]
    w = random.uniform(-1, 1) * 2.0 ** random.randint(-600, -30)
    ys += [w, w * random.uniform(0.9, 1.1)]
xs += [3.0, 1e-310, 1.7e308, -1.7e308, 0.1]
ys += [0.7, 5e-324, 1e-300, 1e-300, 0.3]
idx = list(range(len(xs)))
random.shuffle(idx)
xs = [xs[i] for i in idx]; ys = [ys[i] for i in idx]
open(sys.argv[1] + "/x.f64", "wb").write(struct.pack("<%dd" % len(xs), *xs))
open(sys.argv[1] + "/y.f64", "wb").write(struct.pack("<%dd" % len(ys), *ys))
PY

for t in 1 2 3 7; do
  OMP_NUM_THREADS=$t "$G" stats "$d/x.f64" --deterministic --device=cpu --json >"$d/s$t.json"
  OMP_NUM_THREADS=$t "$G" dot "$d/x.f64" "$d/y.f64" --deterministic --device=cpu --json >"$d/d$t.json"
  OMP_NUM_THREADS=$t "$G" rms "$d/x.f64" "$d/y.f64" --deterministic --device=cpu --json >"$d/r$t.json"
done
"$G" stats - --format=raw --deterministic --device=cpu --json <"$d/x.f64" >"$d/stdin.json"
check "stats, dot, rms: the same numbers on 1, 2, 3 and 7 threads, and from stdin" python3 -c '
import json, sys
d = sys.argv[1]
def load(p): return json.load(open(d + "/" + p))
keys = {"s": ("sum", "mean", "var_sample", "var_population", "sd_sample", "min", "argmin", "max", "argmax", "l1", "l2"),
        "d": ("dot", "abs_sum"), "r": ("rms", "max_abs", "relative")}
for k, names in keys.items():
    runs = [load("%s%d.json" % (k, t)) for t in (1, 2, 3, 7)] + ([load("stdin.json")] if k == "s" else [])
    for o in runs:
        for n in names:
            assert o[n] == runs[0][n], (k, n, o[n], runs[0][n])
' "$d"
check "dot, sum and mean correctly rounded; sd within an ulp, the variance beyond DBL_MAX (fractions)" python3 -c '
import json, math, struct, sys
from fractions import Fraction as F
d = sys.argv[1]
raw = open(d + "/x.f64", "rb").read(); xs = struct.unpack("<%dd" % (len(raw) // 8), raw)
raw = open(d + "/y.f64", "rb").read(); ys = struct.unpack("<%dd" % (len(raw) // 8), raw)
s = json.load(open(d + "/s1.json")); o = json.load(open(d + "/d1.json"))
X = [F(x) for x in xs]
total = sum(X); n = len(X)
assert s["sum"] == float(total), (s["sum"], float(total))
assert s["mean"] == float(total / n), (s["mean"], float(total / n))
dot = sum(F(x) * F(y) for x, y in zip(xs, ys))
assert o["dot"] == float(dot), (o["dot"], float(dot))
mean = total / n
var = sum((x - mean) ** 2 for x in X) / (n - 1)
assert var > F(sys.float_info.max) and s["var_sample"] is None, s["var_sample"]
sd = F(s["sd_sample"])  # |sd^2 - var| <= 2 sd ulp(sd): sd within an ulp of sqrt(var)
assert abs(sd * sd - var) <= 2 * sd * F(math.ulp(s["sd_sample"])), s["sd_sample"]
' "$d"

# random 64-bit patterns: every exponent, subnormals, NaN and Inf
python3 -c '
import random, sys
random.seed(21)
for p in sys.argv[1:]:
    open(p, "wb").write(random.getrandbits(64 * 20000).to_bytes(8 * 20000, "little"))
' "$d/r1.f64" "$d/r2.f64"
"$G" stats "$d/r1.f64" --format=raw --nan=omit --deterministic --device=cpu --json >"$d/rs.json" 2>/dev/null
"$G" rms "$d/r1.f64" "$d/r2.f64" --format=raw --nan=omit --deterministic --device=cpu --json >"$d/rr.json" 2>/dev/null
check "random bits (--nan=omit): mean correctly rounded, sd and rms within an ulp, min and its index" python3 -c '
import json, math, struct, sys
from fractions import Fraction as F
d = sys.argv[1]
def load(p):
    raw = open(d + "/" + p, "rb").read(); return struct.unpack("<%dd" % (len(raw) // 8), raw)
a, b = load("r1.f64"), load("r2.f64")
s, r = json.load(open(d + "/rs.json")), json.load(open(d + "/rr.json"))
X = [F(x) for x in a if math.isfinite(x)]
n = len(X); mean = sum(X) / n
assert s["n"] == n and s["mean"] == float(mean), (s["mean"], float(mean))
var = sum((x - mean) ** 2 for x in X) / (n - 1)
sd = F(s["sd_sample"])
assert abs(sd * sd - var) <= 2 * sd * F(math.ulp(s["sd_sample"])), s["sd_sample"]
m = min(x for x in a if math.isfinite(x))
assert s["min"] == m and s["argmin"] == a.index(m)
P = [(F(x), F(y)) for x, y in zip(a, b) if math.isfinite(x) and math.isfinite(y)]
ms = sum((x - y) ** 2 for x, y in P) / len(P)
rms = F(r["rms"])
assert abs(rms * rms - ms) <= 2 * rms * F(math.ulp(r["rms"])), r["rms"]
' "$d"

printf '1\nnan\n3\n' >"$d/nan.txt"
run "$G" stats "$d/nan.txt" --deterministic --device=cpu --nan=omit --json
check "--nan=omit: NaN left out, mean 2" sh -c 'printf "%s\n" "$1" | grep -q "\"mean\": 2,"' _ "$out"
run "$G" stats "$d/nan.txt" --deterministic --device=cpu --nan=error
check "--nan=error: exit 2" test "$rc" -eq 2
run "$G" stats "$d/nan.txt" --deterministic --device=cpu --check
check "propagate with --check: as without the flag (exit 2, --check needs omit)" test "$rc" -eq 2
run "$G" stats --gen=uniform --n=1e5 --deterministic --device=cpu --check
check "--gen data, checked: exit 0" test "$rc" -eq 0

# integrate and mc on the CPU: fixed parts merged in order, so the same bits
# for any thread count (what gpuquad(1) promises for them)
for c in "integrate --f=exp(-x*x)*cos(3*x) --n=3000001" "integrate --f=atan --n=1001 --rule=gauss-legendre" \
  "integrate --f=x*y*exp(x) --dim=2 --n=300 --rule=simpson" "mc --f=sin --n=1000003"; do
  for t in 1 2 3 7; do
    OMP_NUM_THREADS=$t "$G" $c --deterministic --device=cpu --quiet >"$d/i$t.txt" 2>/dev/null
  done
  check "$c: the same bits on 1, 2, 3 and 7 threads" sh -c 'test -s "$1/i1.txt" && cmp -s "$1/i1.txt" "$1/i2.txt" &&
    cmp -s "$1/i1.txt" "$1/i3.txt" && cmp -s "$1/i1.txt" "$1/i7.txt"' _ "$d"
done

for cmd in "integrate --f=sin --n=1000" "mc --f=sin --n=1000" "scan --gen=uniform --n=100" \
  "hist --gen=uniform --n=100 --bins=4"; do
  run sh -c "\"$G\" $cmd --deterministic --device=cpu >/dev/null"
  check "gpuquad $cmd --deterministic: accepted (exit 0)" test "$rc" -eq 0
done
finish
