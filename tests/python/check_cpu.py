"""The Python module on the CPU backend (tests/python.sh): its results equal
the CLI's bit for bit, its errors carry the library's messages, its ctypes
structs have the header's layout, and it installs with pip."""
import ctypes
import importlib.util
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["TESTS_SRC"], "python"))
sys.path.insert(0, os.path.join(os.environ["TESTS_SRC"], "..", "python"))
from tap import cli, finish, not_ok, ok, same, skip, test  # noqa: E402

import numpy as np  # noqa: E402

import gpuquad  # noqa: E402
from gpuquad import _structs  # noqa: E402

tmp = tempfile.mkdtemp(prefix="gpuquad-py.")
CPU = ["--device=cpu", "--json"]


def raises(cls, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except cls as e:
        return e
    raise AssertionError(f"{fn.__name__}{args}{kw} raised nothing, wanted {cls.__name__}")


@test("struct layout: every mirrored struct's size and member offsets equal the compiler's")
def _():
    out = subprocess.run([os.path.join(os.environ["TESTS_BIN"], "py_layout")], capture_output=True, text=True,
                         check=True).stdout
    c = {}
    for line in out.splitlines():
        key, *rest = line.split()
        c[key] = int(rest[-1])
    bad = []
    for name, mirror in _structs.LAYOUT.items():
        if c.get(name) != ctypes.sizeof(mirror):
            bad.append(f"{name}: sizeof {c.get(name)} in C, {ctypes.sizeof(mirror)} in ctypes")
        members = [f for f, *_ in mirror._fields_]
        in_c = sorted(k.split(".", 1)[1] for k in c if k.startswith(name + "."))
        if sorted(members) != in_c:
            bad.append(f"{name}: members {sorted(members)} in ctypes, {in_c} in tests/py_layout.c")
        for f in members:
            if c.get(f"{name}.{f}") != getattr(mirror, f).offset:
                bad.append(f"{name}.{f}: offset {c.get(name + '.' + f)} in C, {getattr(mirror, f).offset} in ctypes")
    assert set(_structs.LAYOUT) == {k for k in c if "." not in k}, "tests/py_layout.c and LAYOUT list other structs"
    assert not bad, "\n".join(bad)


@test("version() is the build's, and python/pyproject.toml's")
def _():
    assert gpuquad.version() == os.environ["PACKAGE_VERSION"], gpuquad.version()
    with open(os.path.join(os.environ["TESTS_SRC"], "..", "python", "pyproject.toml")) as f:
        assert f'version = "{os.environ["PACKAGE_VERSION"]}"' in f.read(), "pyproject.toml's version"


# ---- integrate: the same options, the same bits ----------------------------
INTEGRALS = [
    ("sin(k*x), Simpson, a parameter", dict(f="sin(k*x)", a=0, b=1, n=10**5, params={"k": 3}, rule="simpson"),
     ["--f=sin(k*x)", "--a=0", "--b=1", "--n=1e5", "--param", "k=3", "--rule=simpson"]),
    ("a built-in with its default limits", dict(f="circle", n=1000),
     ["--f=circle", "--n=1000"]),
    ("exp(-x*x) on the whole line (a change of variables)", dict(f="exp(-x*x)", a=-math.inf, b=math.inf, n=4096,
                                                                  rule="boole"),
     ["--f=exp(-x*x)", "--a=-inf", "--b=inf", "--n=4096", "--rule=boole"]),
    ("float precision, b < a", dict(f="1/(1+x*x)", a=2, b=-1, n=999, precision="float"),
     ["--f=1/(1+x*x)", "--a=2", "--b=-1", "--n=999", "--precision=float"]),
    ("a 2-D box, Gauss-Legendre, per-axis lists", dict(f="exp(-x*y)", a=[0, 0], b=[1, 2], n=[20, 30],
                                                        rule="gauss-legendre:5"),
     ["--f=exp(-x*y)", "--dim=2", "--a=0,0", "--b=1,2", "--n=20,30", "--rule=gauss-legendre:5"]),
    ("a 3-D product of trapezoids", dict(f="x1*x2+x3", dims=3, a=0, b=1, n=40),
     ["--f=x1*x2+x3", "--dim=3", "--a=0", "--b=1", "--n=40"]),
    ("adaptive, 1-D", dict(f="exp(x)*cos(5*x)", a=0, b=2, rule="adaptive", epsrel=1e-9),
     ["--f=exp(x)*cos(5*x)", "--a=0", "--b=2", "--rule=adaptive", "--epsrel=1e-9"]),
    ("adaptive, 2-D, an absolute tolerance", dict(f="exp(-(x*x+y*y))", a=[-1, -1], b=[1, 1], rule="adaptive",
                                                   epsabs=1e-7),
     ["--f=exp(-(x*x+y*y))", "--dim=2", "--a=-1", "--b=1", "--rule=adaptive", "--epsabs=1e-7"]),
    ("unchecked", dict(f="x^3", n=10, check=False), ["--f=x^3", "--n=10", "--no-check"]),
]
for desc, kw, args in INTEGRALS:
    @test(f"integrate = gpuquad integrate --json: {desc}")
    def _():
        kw2 = dict(kw)
        r = gpuquad.integrate(kw2.pop("f"), device="cpu", **kw2)
        same(r, cli(*args, *CPU)[0])



@test("integrate(max_regions=2000) = gpuquad --max-regions=2000: the store fills first, said")
def _():
    f = "1/((x1-0.3)^2+(x2-0.6)^2+0.0001)"
    r = gpuquad.integrate(f, dims=2, rule="adaptive", epsrel=1e-13, max_regions=2000, check=False, device="cpu")
    assert r.stop == "max-regions" and not r.reached and 1024 < r.max_regions_held <= 2000, (r.stop, r.max_regions_held)
    same(r, cli(f"--f={f}", "--dim=2", "--rule=adaptive", "--epsrel=1e-13", "--max-regions=2000", "--no-check",
                *CPU, expect=1)[0])


# ---- mc --------------------------------------------------------------------
RUNS = [
    ("plain, 2-D box, a seed", dict(f="exp(-(x1^2+x2^2))", a=-1, b=1, dims=2, n=200000, seed=7),
     ["--f=exp(-(x1^2+x2^2))", "--a=-1", "--b=1", "--dim=2", "--n=200000", "--seed=7"]),
    ("per-dimension limits, float", dict(f="x1*x2*x3", a=[0, 1, 2], b=[1, 2, 4], n=100000, precision="float"),
     ["--f=x1*x2*x3", "--dim=3", "--a=0,1,2", "--b=1,2,4", "--n=1e5", "--precision=float"]),
    ("normal distribution", dict(f="x1^2", dist="normal", n=100000, seed=3),
     ["--f=x1^2", "--dist=normal", "--n=1e5", "--seed=3"]),
    ("VEGAS", dict(f="exp(-100*(x-0.5)^2)", method="vegas", n=200000, seed=2, iterations=6, warmup=2),
     ["--f=exp(-100*(x-0.5)^2)", "--method=vegas", "--n=2e5", "--seed=2", "--iterations=6", "--warmup=2"]),
    ("Sobol", dict(f="x1+x2", dims=2, sampler="sobol", n=65536, scramblings=8),
     ["--f=x1+x2", "--dim=2", "--sampler=sobol", "--n=65536", "--scramblings=8"]),
    ("an exact value, a tolerance", dict(f="x^2", n=10**6, tol=1e-3, exact=1 / 3),
     ["--f=x^2", "--n=1e6", "--tol=1e-3", "--exact=" + repr(1 / 3)]),
]
for desc, kw, args in RUNS:
    @test(f"mc = gpuquad mc --json: {desc}")
    def _():
        kw2 = dict(kw)
        r = gpuquad.mc(kw2.pop("f"), device="cpu", **kw2)
        same(r, cli("mc", *args, *CPU)[0])

# ---- dot, rms, stats on arrays, against the same data in .npy files ---------
rng = np.random.default_rng(24)
x64 = rng.normal(size=100003) * 10.0 ** rng.integers(-8, 8, size=100003)
y64 = rng.normal(size=100003)
x32, y32 = x64.astype(np.float32), y64.astype(np.float32)
z = x64.copy()
z[[5, 700, 9000]] = [np.nan, np.inf, -np.inf]


def npy(name, a):
    path = os.path.join(tmp, name + ".npy")
    np.save(path, a)
    return path


for desc, fn, arrays, args in [
    ("dot, float64", gpuquad.dot, (x64, y64), ["dot"]),
    ("dot, float32", gpuquad.dot, (x32, y32), ["dot"]),
    ("rms, float64", gpuquad.rms, (x64, y64), ["rms"]),
    ("stats, float64", gpuquad.stats, (x64,), ["stats"]),
    ("stats, float32", gpuquad.stats, (x32,), ["stats"]),
    ("stats, NaN and Inf omitted", gpuquad.stats, (z,), ["stats", "--nan=omit"]),
    ("dot, NaN and Inf propagated", gpuquad.dot, (z, y64), ["dot"]),
]:
    @test(f"{fn.__name__} = gpuquad {args[0]} --json: {desc}")
    def _():
        kw = {"nan": "omit"} if "--nan=omit" in args else {}
        r = fn(*arrays, device="cpu", **kw)
        paths = [npy(f"in{k}", a) for k, a in enumerate(arrays)]
        same(r, cli(*args, *paths, *CPU)[0], file_only=True)


def untimed(r):
    return {k: v for k, v in r.dict().items() if k not in ("reduce_ms", "wall_ms")}


@test("a deterministic Context gives gpuquad --deterministic's bits: integrate, mc, dot, rms, stats")
def _():
    with gpuquad.Context("cpu", deterministic=True) as c:
        assert c.deterministic
        same(gpuquad.integrate("sin(k*x)", n=10**5, params={"k": 3}, context=c),
             cli("--f=sin(k*x)", "--n=1e5", "--param", "k=3", "--deterministic", *CPU)[0])
        same(gpuquad.mc("x1*x2", dims=2, n=10**5, seed=9, context=c),
             cli("mc", "--f=x1*x2", "--dim=2", "--n=1e5", "--seed=9", "--deterministic", *CPU)[0])
        paths = [npy("dx", x64), npy("dy", y64), npy("dz", z)]
        for fn, args, arrays, kw in [(gpuquad.dot, ["dot"] + paths[:2], (x64, y64), {}),
                                     (gpuquad.rms, ["rms"] + paths[:2], (x64, y64), {}),
                                     (gpuquad.stats, ["stats", paths[0]], (x64,), {}),
                                     (gpuquad.stats, ["stats", paths[2], "--nan=omit"], (z,), {"nan": "omit"}),
                                     (gpuquad.dot, ["dot", paths[2], paths[1]], (z, y64), {})]:
            r = fn(*arrays, context=c, **kw)
            assert r.deterministic, r
            same(r, cli(*args, "--deterministic", *CPU)[0], file_only=True)
        raises(ValueError, gpuquad.mc, "x", method="vegas", n=1000, context=c)


@test("a non-contiguous array, and one of another shape, reduce as their contiguous copies")
def _():
    m = x64[: 2 * 40000].reshape(200, 400)
    r = gpuquad.stats(m[:, ::2], device="cpu")
    assert untimed(r) == untimed(gpuquad.stats(np.ascontiguousarray(m[:, ::2]).ravel(), device="cpu"))
    assert r.total == 200 * 200 and r.sum != 0


@test("integers and bools are converted exactly; the sum of 0..10^6-1 is exact")
def _():
    r = gpuquad.sum(np.arange(10**6, dtype=np.int64), device="cpu")
    assert r.sum == 10**6 * (10**6 - 1) / 2 and r.dtype == "f64", r
    assert gpuquad.sum(np.array([True, False, True]), device="cpu").sum == 2.0
    assert gpuquad.dot([1, 2, 3], [4, 5, 6], device="cpu").dot == 32.0


@test("float32 with a float64 partner is widened, as the CLI widens it")
def _():
    r = gpuquad.dot(x32, y64, device="cpu")
    assert r.dtype == "f64" and r.dot == gpuquad.dot(x32.astype(np.float64), y64, device="cpu").dot


# ---- errors -----------------------------------------------------------------
@test("a bad expression is a ValueError with the library's message (the CLI's), and its column")
def _():
    e = raises(ValueError, gpuquad.integrate, "sin(x", device="cpu")
    _, err = cli("--f=sin(x", *CPU, expect=2)
    first = err.splitlines()[0]
    assert first == "gpuquad: --f: " + str(e)[len("f: "):], f"module {e!r}, CLI {first!r}"
    assert isinstance(e, gpuquad.InputError) and e.column is not None and e.status == 8, (e.column, e.status)
    e = raises(ValueError, gpuquad.mc, "x1*k", params={"k": "1+"}, device="cpu")
    assert str(e).startswith("params['k']:"), e


@test("n=0 is a ValueError; a Simpson n that is odd names the nearest valid ones")
def _():
    e = raises(ValueError, gpuquad.integrate, "x", n=0, device="cpu")
    assert "n" in str(e), e
    e = raises(ValueError, gpuquad.integrate, "x", n=1001, rule="simpson", device="cpu")
    assert "1000 or 1002" in str(e), e
    raises(ValueError, gpuquad.mc, "x", n=1, device="cpu")
    raises(ValueError, gpuquad.integrate, "x", n=2.5, device="cpu")


@test("other bad input: rule, device, dims, lengths, dtypes, nan policy")
def _():
    assert "trapezoid" in str(raises(ValueError, gpuquad.integrate, "x", rule="midpoint", device="cpu"))
    raises(ValueError, gpuquad.integrate, "x", device="tpu")
    raises(ValueError, gpuquad.integrate, "x1+x2", dims=7, device="cpu")
    raises(ValueError, gpuquad.integrate, "x", a=[0, 0], b=[1, 1, 1], device="cpu")
    assert "lengths differ" in str(raises(ValueError, gpuquad.dot, x64, x64[:-1], device="cpu"))
    assert "complex128" in str(raises(ValueError, gpuquad.stats, np.ones(3, complex), device="cpu"))
    raises(ValueError, gpuquad.stats, np.array([2**60, 1], dtype=np.int64), device="cpu")
    raises(ValueError, gpuquad.stats, z, nan="error", device="cpu")
    raises(ValueError, gpuquad.stats, x64, nan="skip", device="cpu")
    raises(ValueError, gpuquad.mc, "x", method="vegas", scramblings=4, device="cpu")
    with gpuquad.Context("cpu") as c:
        assert "one or the other" in str(raises(ValueError, gpuquad.sum, x64, device="cuda", context=c))
    if gpuquad.cuda_device_count() == 0:
        e = raises(ValueError, gpuquad.Context, "cuda")
        assert e.status == 4, e  # GQ_ENODEV


@test("without the library: import works, and the first call says how to point at it")
def _():
    probe = ("import gpuquad\ntry:\n    gpuquad.version()\nexcept OSError as e:\n"
             "    print(type(e).__name__, e)\n")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       env=dict(os.environ, GPUQUAD_LIBRARY=os.path.join(tmp, "nonesuch.so"),
                                PYTHONPATH=os.pathsep.join(sys.path)))
    assert p.returncode == 0 and p.stdout.startswith("LibraryError ") and "GPUQUAD_LIBRARY" in p.stdout \
        and "nonesuch.so" in p.stdout, p.stdout + p.stderr


@test("a GPU array on a CPU context is refused, naming the fix")
def _():
    class FakeGpuArray:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f8", "data": (1 << 40, False), "version": 3}
    e = raises(ValueError, gpuquad.stats, FakeGpuArray(), device="cpu")
    assert "CPU context" in str(e), e


@test("a failed check is a CheckError with the CLI's message and the result")
def _():
    e = raises(gpuquad.CheckError, gpuquad.mc, "x^2", n=10**5, exact=0.5, device="cpu")
    js, err = cli("mc", "--f=x^2", "--n=1e5", "--exact=0.5", *CPU, expect=1)
    assert err.strip() == "gpuquad: " + str(e), f"module {e}, CLI {err}"
    assert isinstance(e, RuntimeError) and e.result.check == "failed"
    same(e.result, js)


@test("a Context is reused and closed; closed, it is refused")
def _():
    with gpuquad.Context("cpu") as c:
        assert c.backend == "cpu" and c.threads >= 1 and "CPU" in c.device_name
        r1 = gpuquad.integrate("x*x", n=100, context=c)
        r2 = gpuquad.integrate("x*x", n=100, device="cpu")
        assert r1.estimate == r2.estimate
    assert c.closed
    raises(ValueError, gpuquad.integrate, "x*x", context=c)
    raises(ValueError, c.set_stream, None)


@test("results: attributes, dict(), json(), float()")
def _():
    r = gpuquad.integrate("x", n=4, a=0, b=math.inf, check=False, device="cpu")
    assert r.b == math.inf and r.dict()["b"] == math.inf and '"b": "inf"' in r.json()
    assert float(r) == r.estimate and "estimate" in r and r["rule"] == "trapezoid"
    raises(AttributeError, getattr, r, "nonesuch")


@test("pydoc: every public function has its documentation")
def _():
    for name in gpuquad.__all__:
        assert getattr(gpuquad, name).__doc__, name
    text = subprocess.run([sys.executable, "-m", "pydoc", "gpuquad"], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout
    assert "integrate(f, a=None" in text and "Context" in text, text[:500]


def install_test():
    """pip install from a copy of python/ (the source tree stays clean; make
    distcheck's is read-only) into a venv that sees the system's numpy."""
    missing = [m for m in ("ensurepip", "venv", "setuptools", "wheel") if importlib.util.find_spec(m) is None]
    if missing:
        skip("pip install ./python into a venv", f"no {', '.join(missing)} (CI installs python3-venv, "
             "python3-setuptools and python3-wheel)")
        return
    src = shutil.copytree(os.path.join(os.environ["TESTS_SRC"], "..", "python"), os.path.join(tmp, "src"),
                          ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    for root, dirs, files in os.walk(src):  # pip builds in the copy, which a read-only tree's copy is not
        for name in dirs + files:
            path = os.path.join(root, name)
            os.chmod(path, os.stat(path).st_mode | 0o200)
    env_dir = os.path.join(tmp, "venv")
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    steps = [[sys.executable, "-m", "venv", "--system-site-packages", env_dir],
             [os.path.join(env_dir, "bin", "pip"), "install", "-q", "--no-index", "--no-build-isolation", src]]
    for k, step in enumerate(steps):
        if k == 1 and subprocess.run([os.path.join(env_dir, "bin", "python"), "-c", "import numpy"],
                                     capture_output=True, cwd=tmp, env=plain).returncode != 0:
            # numpy reached only through PYTHONPATH: no index to take it from
            skip("pip install ./python into a venv", "the venv sees no numpy among the system's site-packages")
            return
        p = subprocess.run(step, capture_output=True, text=True, cwd=tmp)
        if p.returncode != 0:
            not_ok("pip install ./python into a venv", f"{' '.join(step)}: exit {p.returncode}\n{p.stderr}")
            return
    probe = "import gpuquad; print(gpuquad.__file__); print(gpuquad.integrate('x', n=2, device='cpu').estimate)"
    p = subprocess.run([os.path.join(env_dir, "bin", "python"), "-c", probe], capture_output=True, text=True,
                       cwd=tmp, env=plain)
    lines = p.stdout.split()
    if p.returncode == 0 and lines[0].startswith(env_dir) and lines[1] == "0.5":
        ok("pip install ./python into a venv: imported from the venv, integrate('x') = 0.5")
    else:
        not_ok("pip install ./python into a venv", p.stdout + p.stderr)


install_test()
shutil.rmtree(tmp, ignore_errors=True)
finish()
