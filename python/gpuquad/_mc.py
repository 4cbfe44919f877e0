"""gpuquad.mc: Monte Carlo means and integrals, checked as `gpuquad mc` checks them."""
import ctypes
import math
import time

from . import _errors as E
from . import _structs as S
from ._context import resolve
from ._integrand import Integrand, count, dims_of, per_axis, precision_of, real, verdict
from ._integrate import JIT_NAMES
from ._lib import last_error, lib
from ._result import MCResult

MC_UNIFORM, MC_NORMAL = 0, 1
MAX_N = 2**63                # GQ_MC_MAX_N
SOBOL_SCRAMBLINGS = 16       # GQ_SOBOL_SCRAMBLINGS
SOBOL_MAX_SCRAMBLINGS = 4096
VEGAS_MAX_ITERATIONS = 1000
VEGAS_MAX_BINS = 4096
VEGAS_CHI2_Q = 1e-5          # GQ_VEGAS_CHI2_Q
MC_CHECK_Z = 5.0             # GQ_MC_CHECK_Z
REFERENCE_METHODS = ("gsl_monte_vegas", "gsl_monte_plain_mt19937", "exact")  # GQ_MC_REFERENCE_*


def mc(f, a=0.0, b=1.0, n=None, *, dims=None, params=None, seed=0, dist="uniform", method="plain",
       sampler="philox", scramblings=None, iterations=None, warmup=None, bins=None, alpha=None, beta=None,
       tol=None, exact=None, precision="double", check=True, device="auto", context=None):
    """Monte Carlo: the mean of f over n random points, its standard deviation and
    standard error, a 95% interval, and the integral (volume x mean).

    f       an expression in x1..xD (x, y, z for x1, x2, x3), or a built-in name.
    a, b    the box: one value for every dimension or a list, one per
            dimension (default [0, 1]); a <= b.
    n       samples, 2 .. 2^63 (default 10**6; with tol, the most to draw,
            default 2^30); an int or a whole float (1e8).
    dims    dimensions, 1..16 (default: the length of a list a or b, else 1).
    params  {"k": 3, ...}: the expression's parameters.
    seed    the Philox key: the same seed, n and device give the same result.
    dist    "uniform" (on the box) or "normal": E f(X) for X ~ N(0, I), no box.
    method  "plain" (n independent points) or "vegas" (VEGAS+: adaptive
            importance grids and stratification; iterations, warmup, bins,
            alpha, beta as gpuquad(1) says).
    sampler "philox" or "sobol" (Owen-scrambled Sobol points; scramblings).
    tol     stop once the standard error of the mean is below tol.
    exact   compare with this exact integral instead of GSL's estimate.
    check   compare with GSL (VEGAS for a box, plain Monte Carlo for normal):
            CheckError (its .result the result) when |z| > 5, when no check
            can be made, when VEGAS's iterations disagree, or when tol is not
            reached.
    device, context, precision: as for gpuquad.integrate.

    Returns an MCResult with the keys of ``gpuquad mc --json`` (mean, sd,
    stderr, ci95_low, ci95_high, integral, integral_stderr, z, check, ...).
    """
    t0 = time.perf_counter()
    dims = dims_of(dims, a, b)
    if not 1 <= dims <= S.MC_MAX_DIMS:
        raise E.InputError(f"dims={dims}: expected 1 to {S.MC_MAX_DIMS}", E.EINVAL)
    opt = S.MCOptions()
    lib().gq_mc_options_init(ctypes.byref(opt))
    opt.dims = dims
    if dist not in ("uniform", "normal"):
        raise E.InputError(f"dist={dist!r}: expected 'uniform' or 'normal'", E.EINVAL)
    opt.dist = MC_NORMAL if dist == "normal" else MC_UNIFORM
    if opt.dist == MC_NORMAL and (a != 0.0 or b != 1.0):
        raise E.InputError(f"{'a' if a != 0.0 else 'b'}: dist='normal' samples N(0, I) on the whole space, "
                           "with no limits", E.EINVAL)
    opt.a[:dims] = per_axis("a", a, dims, real)
    opt.b[:dims] = per_axis("b", b, dims, real)
    if opt.dist == MC_UNIFORM:
        for d in range(dims):
            if opt.a[d] > opt.b[d]:
                raise E.InputError(f"a > b in dimension {d + 1} (a = {opt.a[d]:g}, b = {opt.b[d]:g})", E.EINVAL)
    opt.n = count("n", (2**30 if tol is not None else 10**6) if n is None else n, MAX_N)
    if opt.n < 2:
        raise E.InputError(f"n={n!r}: a standard deviation needs at least 2 samples", E.EINVAL)
    opt.seed = count("seed", seed)
    if tol is not None:
        opt.tol = real("tol", tol)
        if not opt.tol > 0:
            raise E.InputError(f"tol={tol!r}: must be positive", E.EINVAL)
    opt.precision = precision_of(precision)
    if exact is not None:
        exact = real("exact", exact)
    vegas, sobol, v = _sampling(method, sampler, opt, tol, scramblings, iterations, warmup, bins, alpha, beta)
    with Integrand(f, params, dims) as g:
        ctx = resolve(device, context)
        if ctx.deterministic and (vegas or sobol):
            # their GPU passes add with atomics in whatever order the blocks run
            raise E.InputError(f"deterministic: {'method=vegas' if vegas else 'sampler=sobol'} is not covered yet "
                               "(plain Philox sampling is)", E.EINVAL)
        r, vr = S.MCResult(), S.VegasResult()
        if vegas:
            status = lib().gq_mc_vegas(ctx.handle, g.handle, ctypes.byref(opt), ctypes.byref(v), ctypes.byref(vr))
            r = vr.mc
        elif sobol:
            status = lib().gq_mc_sobol(ctx.handle, g.handle, ctypes.byref(opt), sobol, ctypes.byref(r))
        else:
            status = lib().gq_mc_mean(ctx.handle, g.handle, ctypes.byref(opt), ctypes.byref(r))
        if status != E.SUCCESS:
            raise E.from_status(status, last_error())
        checked = exact is not None or check
        ref, z, outcome = S.MCReference(math.nan, math.nan, math.nan, 0, 2), math.nan, None
        if checked:
            outcome, z = _check(g, opt, r, exact, ref)
        if checked and vegas and vr.chi2_q < VEGAS_CHI2_Q:
            # VEGAS's own check: iterations that disagree make its error a guess
            first = "" if outcome[1] == "passed" else outcome[2]
            outcome = (outcome[0], "failed",
                       f"vegas: the iterations disagree, chi2/dof = {vr.chi2_dof:.3g} over {vr.iterations} iterations "
                       f"(tail probability {vr.chi2_q:.2g} < {VEGAS_CHI2_Q:g}): the error estimate is not to be "
                       "trusted (more samples, more warmup, or a smaller alpha)" + ("; " + first if first else ""))
        m = {"command": "mc", "integrand": g.name(), "formula": g.formula(), "dims": dims, "dist": dist}
        if opt.dist == MC_UNIFORM:
            # the CLI's spelling: a number in one dimension, else an array
            m["a"] = opt.a[0] if dims == 1 else [opt.a[d] for d in range(dims)]
            m["b"] = opt.b[0] if dims == 1 else [opt.b[d] for d in range(dims)]
        m.update(n=r.n, n_requested=opt.n, seed=r.seed, method="vegas" if vegas else "plain",
                 sampler="sobol" if sobol else "philox")
        if sobol:
            m["scramblings"] = sobol
        if vegas:
            m.update(chi2_dof=vr.chi2_dof, chi2_q=vr.chi2_q, iterations=vr.iterations, warmup=v.warmup,
                     strata=vr.strata, bins=vr.bins, alpha=v.alpha, beta=v.beta)
        m.update(precision=precision, mean=r.mean, sd=r.sd, stderr=r.se, ci95_low=r.ci_low, ci95_high=r.ci_high,
                 volume=r.volume, integral=r.integral, integral_stderr=r.integral_se,
                 stopped_by_tol=bool(r.stopped_by_tol))
        tol_missed = opt.tol > 0 and not r.stopped_by_tol
        if opt.tol > 0:
            m.update(tol=opt.tol, tol_reached=not tol_missed)
        if checked and outcome[0]:
            m.update(reference=ref.value, reference_stderr=ref.se, reference_method=REFERENCE_METHODS[ref.method],
                     z=z, z_threshold=MC_CHECK_Z)
        m["check"] = outcome[1] if checked else "skipped"
        if checked and outcome[1] != "passed":
            m["check_message"] = outcome[2]
        m.update(backend=ctx.backend, device=ctx.device_name, kernel_ms=r.kernel_ms,
                 wall_ms=(time.perf_counter() - t0) * 1e3,
                 samples_per_second=r.n / (r.kernel_ms * 1e-3) if r.kernel_ms > 0 else math.nan,
                 jit=JIT_NAMES[r.jit] if 0 <= r.jit < len(JIT_NAMES) else str(r.jit), jit_ms=r.compile_ms)
        result = MCResult(m)
        failures = []
        if tol_missed:
            failures.append(f"tol={opt.tol:g} not reached: the standard error is {r.se:.3g} after {r.n} samples, "
                            "the most allowed (raise n)")
        if checked and outcome[1] != "passed":
            failures.append(outcome[2])
        if failures:
            raise E.CheckError("; ".join(failures), result)
        return result


def _sampling(method, sampler, opt, tol, scramblings, iterations, warmup, bins, alpha, beta):
    """method, sampler and their options (cmd_mc.c's parse_sampling): an option of
    a method or sampler not chosen is an error rather than silently ignored.
    Returns (vegas?, scramblings or 0, gq_vegas_options)."""
    if method not in ("plain", "fused", "vegas"):
        raise E.InputError(f"method={method!r}: expected 'plain' or 'vegas'", E.EINVAL)
    if sampler not in ("philox", "sobol"):
        raise E.InputError(f"sampler={sampler!r}: expected 'philox' or 'sobol'", E.EINVAL)
    vegas, sobol = method == "vegas", sampler == "sobol"
    v = S.VegasOptions()
    lib().gq_vegas_options_init(ctypes.byref(v))
    given = {"iterations": iterations, "warmup": warmup, "bins": bins, "alpha": alpha, "beta": beta}
    for name, value in given.items():
        if value is not None and not vegas:
            raise E.InputError(f"{name}: applies to method='vegas' only", E.EINVAL)
    if scramblings is not None and not sobol:
        raise E.InputError("scramblings: applies to sampler='sobol' only", E.EINVAL)
    if vegas and sobol:
        raise E.InputError("sampler='sobol': VEGAS draws its own points (Philox); use one or the other", E.EINVAL)
    if (vegas or sobol) and opt.dist != MC_UNIFORM:
        raise E.InputError(f"{'method=vegas' if vegas else 'sampler=sobol'}: {'VEGAS' if vegas else 'Sobol'} "
                           "fills a box; dist='normal' is plain Philox sampling only", E.EINVAL)
    if (vegas or sobol) and tol is not None:
        raise E.InputError("tol: stopping early is plain Philox sampling only", E.EINVAL)
    for name, lo, hi in (("iterations", 1, VEGAS_MAX_ITERATIONS), ("warmup", 0, VEGAS_MAX_ITERATIONS),
                         ("bins", 2, VEGAS_MAX_BINS)):
        if given[name] is not None:
            value = count(name, given[name])
            if not lo <= value <= hi:
                raise E.InputError(f"{name}={value}: out of range [{lo}, {hi}]", E.EINVAL)
            setattr(v, name, value)
    for name, hi in (("alpha", 2.0), ("beta", 1.0)):
        if given[name] is not None:
            value = real(name, given[name])
            if not 0.0 <= value <= hi:
                raise E.InputError(f"{name}={value!r}: must be between 0 and {hi:g}", E.EINVAL)
            setattr(v, name, value)
    k = 0
    if sobol:
        k = SOBOL_SCRAMBLINGS if scramblings is None else count("scramblings", scramblings)
        if not 2 <= k <= SOBOL_MAX_SCRAMBLINGS:
            raise E.InputError(f"scramblings={k}: out of range [2, {SOBOL_MAX_SCRAMBLINGS}]", E.EINVAL)
    return vegas, k, v


def _check(g, opt, r, exact, ref):
    """check/vegas.c's gq_check_mc through the public calls: the exact value
    (where f has a mean and a variance) or GSL's, and the z-score."""
    z = ctypes.c_double(math.nan)
    if exact is not None:
        ref.value, ref.se = exact, 0.0
        status = lib().gq_mc_moments_exist(g.handle, ctypes.byref(opt))
    else:
        status = lib().gq_mc_reference_gsl(g.handle, ctypes.byref(opt), ctypes.byref(ref))
    if status in (E.ENOMEM, E.ECUDA):
        raise E.ComputationError("reference: " + last_error(), status)
    has_reference = status == E.SUCCESS
    if has_reference:
        status = lib().gq_mc_check(ctypes.byref(r), ctypes.byref(ref), ctypes.byref(z))
    return (has_reference,) + verdict(has_reference, status, z.value), z.value
