"""The Python module on a CUDA device (tests/python_gpu.gpu): integrals and Monte
Carlo against the CLI on the same device; data reductions of numpy arrays
(copied into device memory), CuPy arrays and PyTorch tensors (their device
pointers passed as they are: no gq_alloc, no copy), exact where the data make
the result exact and within explicit tolerances of numpy and torch otherwise;
a tensor still being written on a non-default stream is read after the write;
GPU arrays that cannot be read in place are refused."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.environ["TESTS_SRC"], "python"))
sys.path.insert(0, os.path.join(os.environ["TESTS_SRC"], "..", "python"))
from tap import VOLATILE, cli, finish, same, skip, test  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import gpuquad  # noqa: E402
from gpuquad import _lib  # noqa: E402

if gpuquad.cuda_device_count() == 0 or not torch.cuda.is_available():
    print("1..0 # SKIP no CUDA device (or a library built without CUDA)")
    sys.exit(77)
try:
    import cupy
except ImportError:
    cupy = None

GPU = ["--device=cuda", "--json"]
EPS = 2.0**-52


# A dot's sum |a_i b_i| is summed plainly (its order shows: n eps at most)
LOOSE = {"abs_sum": 1e-9}


def close(module_result, cli_json, rel=4 * EPS):
    """Every member the CLI has, the module has equal (floats within rel,
    relative, LOOSE's within theirs; the CLI's null a non-finite float), but
    the timings and the inputs' names."""
    a = {k: v for k, v in module_result.dict().items() if k not in VOLATILE}
    b = {k: v for k, v in cli_json.items() if k not in VOLATILE | {"a", "b", "input", "format"}}
    assert b.keys() <= a.keys(), f"CLI only: {sorted(b.keys() - a.keys())}"
    bad = []
    for k, v in b.items():
        m = a[k]
        if v is None:
            good = isinstance(m, float) and not math.isfinite(m)
        elif isinstance(m, float) and not isinstance(v, bool) and isinstance(v, (int, float)):
            good = m == v or abs(m - v) <= LOOSE.get(k, rel) * max(abs(m), abs(v))
        else:
            good = m == v
        if not good:
            bad.append(f"{k}: module {m!r}, CLI {v!r}")
    assert not bad, "\n".join(bad)


# ---- integrals and Monte Carlo on the GPU: the CLI's bits -------------------
# A deterministic context and --deterministic: the same bits for any launch
# shape, so the module and the program must agree exactly.
det = gpuquad.Context("cuda", deterministic=True)
for desc, call, args in [
    ("integrate, Simpson, a parameter (NVRTC)",
     lambda c: gpuquad.integrate("sin(k*x)", a=0, b=1, n=10**7, params={"k": 3}, rule="simpson", context=c),
     ["--f=sin(k*x)", "--a=0", "--b=1", "--n=1e7", "--param", "k=3", "--rule=simpson"]),
    ("integrate, a built-in, 10^9 points",
     lambda c: gpuquad.integrate("circle", n=10**9, context=c), ["--f=circle", "--n=1e9"]),
    ("integrate, a 2-D Gauss-Legendre box",
     lambda c: gpuquad.integrate("exp(-x*y)", a=[0, 0], b=[1, 2], n=[200, 300], rule="gauss-legendre", context=c),
     ["--f=exp(-x*y)", "--dim=2", "--a=0,0", "--b=1,2", "--n=200,300", "--rule=gauss-legendre"]),
    ("integrate, adaptive",
     lambda c: gpuquad.integrate("exp(x)*cos(5*x)", a=0, b=2, rule="adaptive", epsrel=1e-10, context=c),
     ["--f=exp(x)*cos(5*x)", "--a=0", "--b=2", "--rule=adaptive", "--epsrel=1e-10"]),
    ("mc, plain, 3-D",
     lambda c: gpuquad.mc("x1*x2*x3", a=0, b=[1, 2, 3], n=10**7, seed=5, context=c),
     ["mc", "--f=x1*x2*x3", "--dim=3", "--a=0", "--b=1,2,3", "--n=1e7", "--seed=5"]),
]:
    @test(f"{desc}: gpuquad --deterministic's bits on the GPU")
    def _():
        r = call(det)
        assert r.backend == "cuda", r.backend
        same(r, cli(*args, "--deterministic", *GPU)[0])


@test("integrate and VEGAS in the default mode: the CLI's estimates within their rounding (1e-14) and error")
def _():
    r = gpuquad.integrate("circle", n=10**9, device="cuda")
    js = cli("--f=circle", "--n=1e9", *GPU)[0]
    assert abs(r.estimate - js["estimate"]) <= 1e-14 * abs(js["estimate"]) and r.check == "passed", (r, js)
    v = gpuquad.mc("exp(-100*(x-0.5)^2)", method="vegas", n=10**6, seed=2, device="cuda")
    js = cli("mc", "--f=exp(-100*(x-0.5)^2)", "--method=vegas", "--n=1e6", "--seed=2", *GPU)[0]
    assert abs(v.integral - js["integral"]) <= v.integral_stderr and v.check == "passed", (v, js)


# ---- data: numpy (copied), CuPy and PyTorch (in place) ---------------------
N = 10**7 + 3
rng = np.random.default_rng(24)
x_np = rng.normal(size=N)
y_np = rng.normal(size=N)
ramp = np.arange(N, dtype=np.float64)  # sum and dot with ones exact: every partial below 2^53


class Calls:
    """Counts the library calls of the given names (and keeps their arguments)."""

    def __init__(self, *names):
        self.L, self.names, self.calls = _lib.lib(), names, {n: [] for n in names}

    def __enter__(self):
        self.saved = {n: getattr(self.L, n) for n in self.names}
        for n in self.names:
            fn = self.saved[n]
            setattr(self.L, n, lambda *a, _fn=fn, _n=n: (self.calls[_n].append(a), _fn(*a))[1])
        return self.calls

    def __exit__(self, *exc):
        for n, fn in self.saved.items():
            setattr(self.L, n, fn)


def ref_stats(x):
    x = np.asarray(x, dtype=np.float64)
    return {"sum": math.fsum(x), "mean": math.fsum(x) / len(x), "sd_sample": float(np.std(x, ddof=1)),
            "min": float(x.min()), "max": float(x.max()), "argmin": int(x.argmin()), "argmax": int(x.argmax())}


def check_stats(r, x, rel):
    ref = ref_stats(x)
    for k in ("min", "max", "argmin", "argmax"):
        assert r[k] == ref[k], f"{k}: {r[k]} vs numpy {ref[k]}"
    scale = math.fsum(np.abs(np.asarray(x, dtype=np.float64)))
    assert abs(r.sum - ref["sum"]) <= rel * scale, f"sum {r.sum} vs fsum {ref['sum']}"
    assert abs(r.sd_sample - ref["sd_sample"]) <= 1e-12 * ref["sd_sample"], (r.sd_sample, ref["sd_sample"])


@test("numpy arrays on the GPU: copied once each (gq_alloc), dot and stats as the CLI's (4 ulp) and numpy's")
def _():
    import tempfile
    d = tempfile.mkdtemp()
    np.save(os.path.join(d, "x.npy"), x_np)
    np.save(os.path.join(d, "y.npy"), y_np)
    with Calls("gq_alloc", "gq_copy_to") as calls:
        r = gpuquad.dot(x_np, y_np, device="cuda")
        s = gpuquad.stats(x_np, device="cuda")
    assert len(calls["gq_alloc"]) == 3 and len(calls["gq_copy_to"]) == 3, {k: len(v) for k, v in calls.items()}
    close(r, cli("dot", os.path.join(d, "x.npy"), os.path.join(d, "y.npy"), *GPU)[0])
    close(s, cli("stats", os.path.join(d, "x.npy"), *GPU)[0])
    assert abs(r.dot - math.fsum(x_np * y_np)) <= 1e-15 * r.abs_sum, (r.dot, math.fsum(x_np * y_np))
    check_stats(s, x_np, 2 * EPS)
    assert gpuquad.sum(ramp, device="cuda").sum == N * (N - 1) / 2


def in_place(make, name):
    """name's arrays: no gq_alloc, no copy, the array's own pointer passed; on a
    deterministic context the numpy path's bits, in the default mode within 2
    ulp of them; exact sums exact; numpy's statistics; float64 and float32."""
    x, y, r64 = make(x_np), make(y_np), make(ramp)
    with Calls("gq_alloc", "gq_copy_to", "gq_stats_accumulate", "gq_dot_accumulate") as calls:
        s = gpuquad.stats(x, device="cuda")
        d = gpuquad.dot(x, y, device="cuda")
    assert not calls["gq_alloc"] and not calls["gq_copy_to"], f"{name}: copied"
    ptr = x.data_ptr() if hasattr(x, "data_ptr") else x.data.ptr
    assert calls["gq_stats_accumulate"][0][3] == ptr, f"{name}: pointer {calls['gq_stats_accumulate'][0][3]} " \
                                                        f"is not the array's {ptr}"
    for fn, args, np_args in [(gpuquad.stats, (x,), (x_np,)), (gpuquad.dot, (x, y), (x_np, y_np))]:
        mine, theirs = fn(*args, context=det).dict(), fn(*np_args, context=det).dict()
        diff = [(k, mine[k], theirs[k]) for k in mine if k not in VOLATILE and mine[k] != theirs[k]]
        assert not diff, f"{name}, deterministic, against the numpy path: {diff}"
    numpy_path = gpuquad.stats(x_np, device="cuda")
    for k in ("min", "max", "argmin", "argmax", "n", "total"):
        assert s[k] == numpy_path[k], f"{name} {k}: {s[k]} vs the numpy path's {numpy_path[k]}"
    for k in ("sum", "mean", "var_sample", "l1", "l2"):
        assert abs(s[k] - numpy_path[k]) <= 4 * EPS * abs(numpy_path[k]), (name, k, s[k], numpy_path[k])
    assert abs(d.dot - gpuquad.dot(x_np, y_np, device="cuda").dot) <= 2 * EPS * d.abs_sum
    check_stats(s, x_np, 2 * EPS)
    ones = make(np.ones(N))
    assert gpuquad.dot(r64, ones, device="cuda").dot == N * (N - 1) / 2
    assert gpuquad.sum(r64, device="cuda").sum == N * (N - 1) / 2
    assert gpuquad.rms(r64, r64, device="cuda").rms == 0.0 and gpuquad.rms(ones, 0 * ones, device="cuda").rms == 1
    f32 = make(x_np.astype(np.float32))
    s32 = gpuquad.stats(f32, device="cuda")
    assert s32.dtype == "f32"
    check_stats(s32, x_np.astype(np.float32), 2 * EPS)


@test("deterministic: a tensor's dot, stats and rms on the GPU are the CPU's bits")
def _():
    t, u = torch.from_numpy(x_np).cuda(), torch.from_numpy(y_np).cuda()
    with gpuquad.Context("cpu", deterministic=True) as cpu:
        for fn, gpu_args, cpu_args in [(gpuquad.dot, (t, u), (x_np, y_np)), (gpuquad.stats, (t,), (x_np,)),
                                       (gpuquad.rms, (t, u), (x_np, y_np))]:
            g, c = fn(*gpu_args, context=det).dict(), fn(*cpu_args, context=cpu).dict()
            diff = [k for k in g if k not in VOLATILE | {"backend", "device"} and g[k] != c[k]
                    and not (g[k] != g[k] and c[k] != c[k])]
            assert not diff, [(k, g[k], c[k]) for k in diff]


@test("PyTorch tensors: read in place, exact sums, numpy's statistics")
def _():
    in_place(lambda a: torch.from_numpy(a).cuda(), "torch")


if cupy is not None:
    @test("CuPy arrays: read in place, exact sums, numpy's statistics")
    def _():
        in_place(cupy.asarray, "cupy")

    @test("CuPy: an array written on a non-default stream is read after the write")
    def _():
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            x = cupy.zeros(N)
            for _ in range(20):
                x += 1.0
            assert gpuquad.sum(x, device="cuda").sum == 20.0 * N
else:
    skip("CuPy arrays: read in place", "no cupy")
    skip("CuPy: an array written on a non-default stream", "no cupy")


@test("PyTorch: a tensor written on a non-default stream is read after the write, on that stream")
def _():
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.zeros(N, dtype=torch.float64, device="cuda")
        torch.cuda._sleep(200_000_000)  # ~0.1 s on the stream before the write: a read that does not wait sees 0
        x.fill_(2.0)
        r = gpuquad.sum(x, device="cuda")
    assert r.sum == 2.0 * N, f"sum {r.sum}: the reduction did not wait for the stream's write"


@test("PyTorch: Context.set_stream on a torch stream, then back to the context's own")
def _():
    with gpuquad.Context("cuda") as c:
        s = torch.cuda.Stream()
        c.set_stream(s)
        with torch.cuda.stream(s):
            x = torch.full((N,), 3.0, dtype=torch.float64, device="cuda")
        assert gpuquad.sum(x, context=c).sum == 3.0 * N
        c.set_stream(None)
        torch.cuda.synchronize()
        assert gpuquad.sum(x, context=c).sum == 3.0 * N


@test("GPU arrays that cannot be read in place are refused, naming the fix")
def _():
    x = torch.from_numpy(x_np[:1000]).cuda()
    for bad, words in [(lambda: gpuquad.stats(x, device="cpu"), "CPU context"),
                       (lambda: gpuquad.stats(x[::2], device="cuda"), "contiguous"),
                       (lambda: gpuquad.stats(x.to(torch.int32), device="cuda"), "<i4"),
                       (lambda: gpuquad.dot(x.float(), x, device="cuda"), "float32"),
                       (lambda: gpuquad.sum(x.clone().requires_grad_(), device="cuda"), "detach")]:
        try:
            bad()
        except ValueError as e:
            assert words in str(e), e
        else:
            raise AssertionError(f"accepted; wanted a ValueError naming {words!r}")
    if torch.cuda.device_count() > 1:
        try:
            gpuquad.stats(x.to("cuda:1"), device="cuda:0")
        except ValueError as e:
            assert "device 1" in str(e), e
        else:
            raise AssertionError("a tensor on cuda:1 was taken by a context on cuda:0")


finish()
