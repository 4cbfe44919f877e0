"""TAP for the Python module's tests, and the comparison with the CLI.

The tests import the module from the source tree ($TESTS_SRC/../python) and
load the library from $GPUQUAD_LIBRARY; $GPUQUAD is the program they compare
with.
"""
import json
import math
import os
import subprocess
import sys
import traceback

_n = 0
_failed = 0

# Members that differ between two runs or between the program and the module
# by nature: timings, how a GPU kernel was had (compiled, or from the cache
# the other filled), and what only a file has (names, format, streaming).
VOLATILE = {"kernel_ms", "wall_ms", "points_per_second", "samples_per_second", "jit", "jit_ms", "reduce_ms",
            "gb_per_s", "read_ms", "copy_ms", "compute_ms", "bound"}
FILE_ONLY = {"a", "b", "input", "format"}


def ok(desc):
    global _n
    _n += 1
    print(f"ok {_n} - {desc}", flush=True)


def not_ok(desc, detail=""):
    global _n, _failed
    _n += 1
    _failed += 1
    print(f"not ok {_n} - {desc}", flush=True)
    for line in str(detail).splitlines():
        print(f"# {line}", flush=True)


def skip(desc, why):
    global _n
    _n += 1
    print(f"ok {_n} - {desc} # SKIP {why}", flush=True)


def test(desc):
    """Decorator: run the function now; an exception or an AssertionError is not ok."""
    def run(fn):
        try:
            fn()
        except AssertionError as e:
            not_ok(desc, e)
        except Exception:
            not_ok(desc, traceback.format_exc())
        else:
            ok(desc)
        return fn
    return run


def finish():
    print(f"1..{_n}", flush=True)
    sys.exit(1 if _failed else 0)


def cli(*args, expect=0):
    """gpuquad ARGS --json: (parsed JSON or None, stderr)."""
    p = subprocess.run([os.environ["GPUQUAD"], *args], capture_output=True, text=True)
    assert p.returncode == expect, f"gpuquad {' '.join(args)}: exit {p.returncode}, wanted {expect}\n{p.stderr}"
    return (json.loads(p.stdout) if p.stdout.strip().startswith("{") else None), p.stderr


def same(module_result, cli_json, file_only=False):
    """The module's JSON equals the CLI's, bit for bit, on every member both
    have but the timings (and the file names and format for data commands);
    both must have the same members otherwise."""
    mine = json.loads(module_result.json())
    ignore = VOLATILE | (FILE_ONLY if file_only else set())
    a = {k: v for k, v in mine.items() if k not in ignore}
    b = {k: v for k, v in cli_json.items() if k not in ignore}
    assert a.keys() == b.keys(), f"members differ: module only {sorted(a.keys() - b.keys())}, " \
                                 f"CLI only {sorted(b.keys() - a.keys())}"
    diff = [f"{k}: module {a[k]!r}, CLI {b[k]!r}" for k in a if not _equal(a[k], b[k])]
    assert not diff, "\n".join(diff)


def _equal(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return isinstance(x, (int, float)) and isinstance(y, (int, float)) and \
            (float(x) == float(y) and math.copysign(1, float(x)) == math.copysign(1, float(y)))
    return x == y
