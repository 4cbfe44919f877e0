"""gpuquad.integrate: a rule over an interval or a box, or adaptive cubature,
checked as `gpuquad integrate` checks it."""
import ctypes
import math
import time

from . import _errors as E
from . import _structs as S
from ._context import resolve
from ._integrand import Integrand, count, dims_of, per_axis, precision_of, real, verdict
from ._lib import last_error, lib, text
from ._result import IntegrateResult

RULE_GAUSS_LEGENDRE = 3
MAX_N = 2**53  # GQ_TRAPEZOID_MAX_N
CHECK_SAFETY = 4.0  # GQ_CHECK_SAFETY
# the names of GQ_REFERENCE_* (cli_reference_method)
REFERENCE_METHODS = ("exact", "gsl_integration_qags", "gsl_integration_qagi", "gsl_integration_qagiu",
                     "gsl_integration_qagil", "separable", "hcubature")
# cli_jit_name's names of GQ_JIT_*
JIT_NAMES = ("none", "compiled", "cache hit", "compiled, cache off", "loaded",
             "compiled, cache entry rejected and replaced", "compiled, cache folder not private: not used")


def integrate(f, a=None, b=None, n=None, *, params=None, rule="trapezoid", dims=None, precision="double",
              epsrel=None, epsabs=None, max_evals=None, max_regions=None, check=True, device="auto", context=None):
    """The integral of f over [a, b], or over a box in up to 6 dimensions.

    f       an expression in x (x1..xD in several dimensions; x, y, z for x1,
            x2, x3) or a built-in name ("circle", ...): gpuquad(1) has the grammar.
    a, b    limits: numbers (math.inf and -math.inf map an infinite range onto a
            finite one), one for every axis or a list, one per axis; default the
            built-in's, [0, 1] for an expression.  b < a negates.
    n       intervals (Gauss-Legendre: panels) per axis, an int or a whole
            float (1e9); default 10**6 in one dimension, 100 per axis in several.
    params  {"k": 3, ...}: values of the expression's parameters.
    rule    "trapezoid" (any n), "simpson" (n even), "boole" (n a multiple of 4),
            "gauss-legendre" or "gauss-legendre:K" (K nodes a panel, 2..64), or
            "adaptive": subdivide to max(epsabs, epsrel |I|) (epsrel default 1e-6;
            max_evals default 1e9; max_regions, the regions held at once, default
            2**20 on the CPU and 2**24 on a GPU), in up to 8 dimensions, with no n.
    dims    dimensions (default: the length of a list among a, b, n, else 1).
    precision  "double" or "float" (f evaluated in float, summed in double).
    check   compare with the exact or GSL integral (libcubature's in several
            dimensions), as the CLI's --check: CheckError (its .result the
            result) when they differ beyond the tolerance or no reference can be
            had; an adaptive run that misses its tolerance is a CheckError too.
    device  "auto" (the GPU if there is one), "cpu", "cuda", "cuda:N"; or give
            context=gpuquad.Context(...).

    Returns an IntegrateResult whose members are the keys of
    ``gpuquad integrate --json`` (estimate, error_estimate, reference, check, ...);
    the same options give the same bits as the command on the same device.
    ValueError (gpuquad.InputError) for bad input, with the library's message;
    RuntimeError (gpuquad.ComputationError) when the computation fails.
    """
    t0 = time.perf_counter()
    if rule == "adaptive":
        return _adaptive(f, a, b, n, params, dims, precision, epsrel, epsabs, max_evals, max_regions, check, device,
                         context, t0)
    for name, v in (("epsrel", epsrel), ("epsabs", epsabs), ("max_evals", max_evals), ("max_regions", max_regions)):
        if v is not None:
            raise E.InputError(f"{name}: applies to rule='adaptive' only", E.EINVAL)
    dims = dims_of(dims, a, b, n)
    if not 1 <= dims <= S.MAX_DIM:
        raise E.InputError(f"dims={dims}: expected 1 to {S.MAX_DIM} (8 with rule='adaptive')", E.EINVAL)
    spec = S.RuleSpec()
    if not isinstance(rule, str) or lib().gq_rule_spec_parse(rule.encode(), ctypes.byref(spec)) != E.SUCCESS:
        raise E.InputError(f"rule={rule!r}: {last_error()}", E.EINVAL)
    prec = precision_of(precision)
    with Integrand(f, params, dims) as g:
        box = _box(g, dims, a, b, n)
        if spec.rule != RULE_GAUSS_LEGENDRE:
            for d in range(dims):
                if lib().gq_rule_check_n(spec.rule, box.n[d]) != E.SUCCESS:
                    raise E.InputError(f"n={n!r}: {last_error()}", E.EINVAL)
        ctx = resolve(device, context)
        r = S.RuleResult()
        status = lib().gq_integrate_box(ctx.handle, g.handle, spec, ctypes.byref(box), prec, ctypes.byref(r))
        if status != E.SUCCESS:
            raise E.from_status(status, last_error())
        # the line's Newton-Cotes rules keep their one-dimensional report
        line = dims == 1 and spec.rule != RULE_GAUSS_LEGENDRE
        ref, tolerance, outcome = S.Reference(math.nan, math.nan, math.nan, 0, math.nan), math.nan, None
        if check:
            outcome, tolerance = _check_rule(g, box, line, r, prec, ref)
        m = {"command": "integrate", "integrand": g.name(), "formula": g.formula()}
        if not line:
            m["dims"] = dims
        m["a"] = box.a[0] if dims == 1 else list(box.a[:dims])
        m["b"] = box.b[0] if dims == 1 else list(box.b[:dims])
        m["n"] = box.n[0] if dims == 1 else list(box.n[:dims])
        m["points"] = r.points
        m["rule"] = _rule_name(spec, r)
        if spec.rule == RULE_GAUSS_LEGENDRE:
            m["nodes"] = r.nodes
        if r.change:
            m["change_of_variables"] = text(r.change)
        m.update(precision=precision, estimate=r.result, coarse_estimate=r.coarse, error_estimate=r.abserr,
                 error_formula=text(r.error_formula))
        return _finish(m, outcome, ref, tolerance, "tolerance", r.result, ctx, r, r.points, t0, "points_per_second")


def _check_rule(g, box, line, r, prec, ref):
    """check/integral.c's gq_check_box (gq_check_rule on a line) through the
    public calls: the reference, then gq_trapezoid_check's tolerance.
    Returns ((has reference, verdict, message), tolerance)."""
    checked = S.Box(1, (S.c_double * S.MAX_DIM)(box.a[0]), (S.c_double * S.MAX_DIM)(box.b[0])) if line else box
    tol = ctypes.c_double(math.nan)
    status = lib().gq_integrate_reference_box(g.handle, ctypes.byref(checked), ctypes.byref(ref))
    if status in (E.ENOMEM, E.ECUDA):
        raise E.ComputationError("reference: " + last_error(), status)
    has_reference = status == E.SUCCESS
    if has_reference:
        status = lib().gq_trapezoid_check(ctypes.byref(r), prec, ctypes.byref(ref), ctypes.byref(tol))
    return (has_reference,) + verdict(has_reference, status, tol.value), tol.value


def _rule_name(spec, r):
    if spec.rule == RULE_GAUSS_LEGENDRE:
        return f"gauss-legendre:{r.nodes}"
    return text(lib().gq_rule_name(spec.rule))


def _box(g, dims, a, b, n):
    a0, b0 = g.limits()
    box = S.Box()
    box.dims = dims
    box.a[:dims] = per_axis("a", a0 if a is None else a, dims, real)
    box.b[:dims] = per_axis("b", b0 if b is None else b, dims, real)
    box.n[:dims] = per_axis("n", (10**6 if dims == 1 else 100) if n is None else n, dims,
                            lambda name, v: count(name, v, MAX_N))
    for d in range(dims):
        if math.isinf(box.a[d]) and box.a[d] == box.b[d]:
            raise E.InputError(f"a, b: axis {d + 1}: the interval [{box.a[d]}, {box.b[d]}] is empty "
                               "(give a finite limit, or -inf and inf)", E.EINVAL)
    return box


def _finish(m, outcome, ref, tolerance, tolerance_key, estimate, ctx, r, work, t0, rate_key, miss=""):
    """The check's members, the backend's, the timings; CheckError if the check
    did not pass, or with the message miss (an accuracy not reached)."""
    checked = outcome is not None
    if checked and outcome[0]:
        m.update(reference=ref.value, reference_error=ref.abserr, reference_method=REFERENCE_METHODS[ref.method],
                 difference=estimate - ref.value)
        m[tolerance_key] = tolerance
    m["check"] = outcome[1] if checked else "skipped"
    if checked and outcome[1] != "passed":
        m["check_message"] = outcome[2]
    m.update(backend=ctx.backend, device=ctx.device_name, kernel_ms=r.kernel_ms,
             wall_ms=(time.perf_counter() - t0) * 1e3)
    if rate_key:
        m[rate_key] = work / (r.kernel_ms * 1e-3) if r.kernel_ms > 0 else math.nan
    m.update(jit=JIT_NAMES[r.jit] if 0 <= r.jit < len(JIT_NAMES) else str(r.jit), jit_ms=r.compile_ms)
    result = IntegrateResult(m)
    failures = [msg for msg in (miss, outcome[2] if checked else "") if msg]
    if failures:
        raise E.CheckError("; ".join(failures), result)
    return result


def _adaptive(f, a, b, n, params, dims, precision, epsrel, epsabs, max_evals, max_regions, check, device, context,
              t0):
    if n is not None:
        raise E.InputError(f"n={n!r}: adaptive cubature chooses its own points; give epsrel or max_evals", E.EINVAL)
    if precision != "double":
        raise E.InputError(f"precision={precision!r}: adaptive cubature evaluates f in double only", E.EINVAL)
    opt = S.AdaptiveOptions()
    lib().gq_adaptive_options_init(ctypes.byref(opt))
    dims = dims_of(dims, a, b)
    if not 1 <= dims <= S.ADAPTIVE_MAX_DIM:
        raise E.InputError(f"dims={dims}: adaptive: 1 to {S.ADAPTIVE_MAX_DIM}", E.EINVAL)
    opt.dims = dims
    for name, v in (("epsrel", epsrel), ("epsabs", epsabs)):
        if v is not None and not real(name, v) >= 0:
            raise E.InputError(f"{name}={v!r}: must be >= 0", E.EINVAL)
    if epsrel is not None:
        opt.epsrel = float(epsrel)
    elif epsabs is not None:  # an absolute tolerance alone
        opt.epsrel = 0.0
    if epsabs is not None:
        opt.epsabs = float(epsabs)
    if max_evals is not None:
        opt.max_evals = count("max_evals", max_evals)
    if max_regions is not None:
        opt.max_regions = count("max_regions", max_regions)
    with Integrand(f, params, dims) as g:
        a0, b0 = g.limits()
        opt.a[:dims] = per_axis("a", a0 if a is None else a, dims, real)
        opt.b[:dims] = per_axis("b", b0 if b is None else b, dims, real)
        ctx = resolve(device, context)
        r = S.AdaptiveResult()
        status = lib().gq_integrate_adaptive(ctx.handle, g.handle, ctypes.byref(opt), ctypes.byref(r))
        if status != E.SUCCESS:
            raise E.from_status(status, last_error())
        ref, tolerance, outcome = S.Reference(math.nan, math.nan, math.nan, 0, math.nan), math.nan, None
        if check:
            outcome, tolerance = _check_adaptive(g, opt, r, ref)
        m = {"command": "integrate", "integrand": g.name(), "formula": g.formula(), "dims": dims,
             "a": opt.a[0] if dims == 1 else list(opt.a[:dims]), "b": opt.b[0] if dims == 1 else list(opt.b[:dims]),
             "rule": "adaptive", "method": text(r.rule)}
        if r.change:
            m["change_of_variables"] = text(r.change)
        m.update(epsrel=opt.epsrel, epsabs=opt.epsabs, max_evals=opt.max_evals, estimate=r.estimate,
                 error_estimate=r.abserr, tolerance=r.tolerance, reached=bool(r.reached),
                 stop=text(lib().gq_adaptive_stop_name(r.stop)), evaluations=r.evaluations, regions=r.regions,
                 passes=r.passes, max_regions_held=r.max_held)
        miss = ""
        if check and not r.reached:
            miss = (f"accuracy not reached ({m['stop']} after {r.evaluations} evaluations): error estimate "
                    f"{r.abserr:.3g}, tolerance {r.tolerance:.3g}")
        return _finish(m, outcome, ref, tolerance, "check_tolerance", r.estimate, ctx, r, 0, t0, None, miss)


def _check_adaptive(g, opt, r, ref):
    """check/adaptive.c's gq_check_adaptive: the box reference, and a tolerance of
    GQ_CHECK_SAFETY times the error estimate plus the reference's error and 8 ulp
    of the integral's scale.  make check compares this with the CLI's, bit for bit."""
    if opt.dims > S.MAX_DIM:
        return (False, "not made", f"check could not be made: no reference for a box of {opt.dims} dimensions "
                f"(the box references go to {S.MAX_DIM})"), math.nan
    box = S.Box()
    box.dims = opt.dims
    box.a[:opt.dims], box.b[:opt.dims] = opt.a[:opt.dims], opt.b[:opt.dims]
    box.n[:opt.dims] = [1] * opt.dims
    status = lib().gq_integrate_reference_box(g.handle, ctypes.byref(box), ctypes.byref(ref))
    if status in (E.ENOMEM, E.ECUDA):
        raise E.ComputationError("reference: " + last_error(), status)
    if status != E.SUCCESS:
        return (False,) + verdict(False, status, math.nan), math.nan
    rounding = 8.0 * 2.0**-53 * max(abs(ref.value), ref.l1norm if math.isfinite(ref.l1norm) else 0.0)
    tolerance = CHECK_SAFETY * r.abserr + ref.abserr + rounding
    diff = abs(r.estimate - ref.value)
    if diff <= tolerance:
        return (True, "passed", ""), tolerance
    return (True, "failed", f"check failed: |estimate - reference| = {diff:.3g} is more than {tolerance:.3g} "
            f"({CHECK_SAFETY:g} times the error estimate {r.abserr:.3g}, plus the reference's "
            f"{ref.abserr:.3g})"), tolerance
