"""gpuquad.sum, dot, rms, stats: one-pass compensated reductions of arrays,
through the library's accumulators (as `gpuquad dot|rms|stats` reduce)."""
import ctypes
import math
import time

from . import _errors as E
from . import _structs as S
from ._arrays import vectors
from ._context import resolve
from ._lib import last_error, lib
from ._result import DotResult, RMSResult, StatsResult, SumResult

NAN_POLICIES = {"propagate": 0, "omit": 1, "error": 2}  # gq_nan_policy
NO_INDEX = 2**64 - 1                                   # GQ_NO_INDEX


def _policy(nan):
    try:
        return NAN_POLICIES[nan]
    except (KeyError, TypeError):
        raise E.InputError(f"nan={nan!r}: expected 'propagate', 'omit' or 'error'", E.EINVAL) from None


def _fmax(x, y):  # C's fmax: a NaN loses to a number
    return y if math.isnan(x) else x if math.isnan(y) else max(x, y)


EXACT_SUM, EXACT_DOT, EXACT_RMS, EXACT_STATS = range(4)  # gq_exact_kind


def _run(named, nan, device, context, acc, accumulate, exact_kind):
    """Reduce the inputs into acc; on a deterministic context also into an exact
    accumulator (as gpuquad --deterministic), whose results replace acc's while
    acc still gives the counts.  Returns (context, policy, dtype text, n, ms,
    the exact accumulator or None: the caller frees it with gq_exact_acc_free)."""
    policy = _policy(nan)
    ctx = resolve(device, context)
    L = lib()
    exact = None
    if ctx.deterministic:
        exact = ctypes.c_void_p()
        status = L.gq_exact_acc_create(exact_kind, ctypes.byref(exact))
        if status != E.SUCCESS:
            raise E.from_status(status, last_error())
    t0 = time.perf_counter()
    try:
        with vectors(ctx, named) as vecs:
            suffix = "_f" if vecs[0].is_float else ""
            n, ptrs = vecs[0].n, [v.ptr for v in vecs]
            if n:
                status = getattr(L, accumulate + suffix)(ctx.handle, ctypes.byref(acc), n, *ptrs)
                if status == E.SUCCESS and exact:
                    status = getattr(L, "gq_exact_accumulate" + suffix)(ctx.handle, exact, n, *(ptrs + [None])[:2])
                if status != E.SUCCESS:
                    raise E.from_status(status, last_error())
    except BaseException:
        if exact:
            L.gq_exact_acc_free(exact)
        raise
    return ctx, policy, ("f32" if vecs[0].is_float else "f64"), n, (time.perf_counter() - t0) * 1e3, exact


def _exact_sum(acc, exact):
    """cli's finish_exact for sums and dots: acc keeps its counts and takes the
    exact sum rounded once (gq_sum_finish then applies the policy to it)."""
    L = lib()
    total, abs_sum = ctypes.c_double(), ctypes.c_double()
    L.gq_exact_sum_finish(exact, NAN_POLICIES["omit"], ctypes.byref(total), ctypes.byref(abs_sum))
    L.gq_exact_acc_free(exact)
    acc.sum, acc.sum_err, acc.abs_sum, acc.scale = total.value, 0.0, abs_sum.value, 0


def _finish_exact(finish, exact, policy, out):
    try:
        return finish(exact, policy, ctypes.byref(out))
    finally:
        lib().gq_exact_acc_free(exact)


def _finished(status, what, policy, kept, nan_count, inf_count):
    """After gq_*_finish: the CLI's vec_nan_report, as exceptions."""
    if status == E.EDOM:
        raise E.InputError(f"{what}: {last_error()}; nan='omit' leaves them out", status)
    if status != E.SUCCESS:
        raise E.from_status(status, last_error())
    if policy == NAN_POLICIES["omit"] and kept == 0 and nan_count + inf_count > 0:
        raise E.InputError(f"{what}: no finite values: all {nan_count + inf_count} were NaN or Inf, and "
                           "nan='omit' leaves them out", E.EINVAL)


def _footer(m, ctx, reduce_ms, t0):
    m["check"] = "skipped"
    m.update(backend=ctx.backend, device=ctx.device_name)
    if ctx.deterministic:
        m["deterministic"] = True
    m.update(reduce_ms=reduce_ms, wall_ms=(time.perf_counter() - t0) * 1e3)


def sum(x, *, nan="propagate", device="auto", context=None):
    """The sum of the elements of x, compensated (correctly rounded or within an ulp).

    x       a numpy array (float64 or float32; integers, bools and float16
            converted; any shape, read in C order), or a GPU array (CuPy,
            PyTorch, ...; float64 or float32, contiguous) read in place.
    nan     "propagate" (NaN and Inf flow through, as IEEE arithmetic),
            "omit" (left out), or "error" (ValueError if any).
    device, context: as for gpuquad.integrate; a GPU array needs a CUDA context
            on its device.

    Returns a SumResult: sum, abs_sum (sum |x_i|, the rounding's scale), n,
    nan_count, inf_count, dtype, backend, device.
    """
    t0 = time.perf_counter()
    acc = S.SumAcc()
    lib().gq_sum_acc_init(ctypes.byref(acc))
    ctx, policy, dtype, n, ms, exact = _run([("x", x)], nan, device, context, acc, "gq_sum_accumulate", EXACT_SUM)
    if exact:
        _exact_sum(acc, exact)
    return SumResult(_sum_members("sum", acc, policy, nan, dtype, n, ctx, ms, t0, "x"))


def dot(a, b, *, nan="propagate", device="auto", context=None):
    """The dot product sum a_i b_i in one pass, compensated, each product's rounding
    error carried (TwoProd): correctly rounded or within an ulp.

    a, b    numpy or GPU arrays of one length, as for gpuquad.sum; a float32 and
            a float64 numpy array are reduced as float64.
    nan, device, context: as for gpuquad.sum.

    Returns a DotResult with the keys of ``gpuquad dot --json``: dot, abs_sum
    (sum |a_i b_i|: abs_sum / |dot| is the condition number), n, nan_count,
    inf_count, nan_policy, dtype, backend, device.
    """
    t0 = time.perf_counter()
    acc = S.SumAcc()
    lib().gq_sum_acc_init(ctypes.byref(acc))
    ctx, policy, dtype, n, ms, exact = _run([("a", a), ("b", b)], nan, device, context, acc, "gq_dot_accumulate",
                                            EXACT_DOT)
    if exact:
        _exact_sum(acc, exact)
    return DotResult(_sum_members("dot", acc, policy, nan, dtype, n, ctx, ms, t0, "the inputs"))


def _sum_members(key, acc, policy, nan, dtype, n, ctx, ms, t0, what):
    value = ctypes.c_double()
    status = lib().gq_sum_finish(ctypes.byref(acc), policy, ctypes.byref(value))
    infs = acc.posinf_count + acc.neginf_count
    _finished(status, what, policy, acc.n, acc.nan_count, infs)
    # sum |t_i| is summed plainly and can round below |result|, which it bounds
    abs_sum = _fmax(math.ldexp(acc.abs_sum, acc.scale), abs(value.value))
    m = {"command": key, "dtype": dtype, "n": n, key: value.value, "abs_sum": abs_sum}
    clean = policy == NAN_POLICIES["omit"] or acc.nan_count + infs == 0
    if clean and math.isinf(value.value):
        m["overflow"] = key
    m.update(nan_count=acc.nan_count, inf_count=infs, nan_policy=nan)
    _footer(m, ctx, ms, t0)
    return m


def rms(a, b, *, nan="propagate", device="auto", context=None):
    """The root mean square of the difference a - b, its largest |a_i - b_i|, and
    ||a - b||_2 / ||a||_2, in one pass (how far b is from the reference a).

    a, b, nan, device, context: as for gpuquad.dot.

    Returns an RMSResult with the keys of ``gpuquad rms --json``: rms, max_abs,
    relative, n, nan_count, inf_count, nan_policy, dtype, backend, device.
    """
    t0 = time.perf_counter()
    acc = S.RMSAcc()
    lib().gq_rms_acc_init(ctypes.byref(acc))
    ctx, policy, dtype, n, ms, exact = _run([("a", a), ("b", b)], nan, device, context, acc, "gq_rms_accumulate",
                                            EXACT_RMS)
    r = S.RMSResult()
    if exact:
        status = _finish_exact(lib().gq_exact_rms_finish, exact, policy, r)
    else:
        status = lib().gq_rms_finish(ctypes.byref(acc), policy, ctypes.byref(r))
    _finished(status, "the inputs", policy, r.n, r.nan_count, r.inf_count)
    m = {"command": "rms", "dtype": dtype, "n": n, "rms": r.rms, "max_abs": r.max_abs, "relative": r.relative,
         "nan_count": r.nan_count, "inf_count": r.inf_count, "nan_policy": nan}
    if policy == NAN_POLICIES["omit"] or r.nan_count + r.inf_count == 0:
        over = [name for name, v in (("rms", r.rms), ("max |a-b|", r.max_abs), ("relative", r.relative))
                if math.isinf(v)]
        if over:
            m["overflow"] = ", ".join(over)
    _footer(m, ctx, ms, t0)
    return RMSResult(m)


def stats(x, *, nan="propagate", device="auto", context=None):
    """Statistics of x in one pass: n, sum, mean, sample and population variance
    and sd, min and max with their first indices, L1/L2/Linf norms, and the
    counts of NaN and Inf.  The moments are double-double sums about one of the
    values, so the mean and the variances are within an ulp.

    x, nan, device, context: as for gpuquad.sum.

    Returns a StatsResult with the keys of ``gpuquad stats --json`` (argmin and
    argmax only where there is one).
    """
    t0 = time.perf_counter()
    acc = S.StatsAcc()
    lib().gq_stats_acc_init(ctypes.byref(acc))
    ctx, policy, dtype, n, ms, exact = _run([("x", x)], nan, device, context, acc, "gq_stats_accumulate",
                                            EXACT_STATS)
    s = S.StatsResult()
    if exact:
        status = _finish_exact(lib().gq_exact_stats_finish, exact, policy, s)
    else:
        status = lib().gq_stats_finish(ctypes.byref(acc), policy, ctypes.byref(s))
    _finished(status, "x", policy, s.n, s.nan_count, s.inf_count)
    m = {"command": "stats", "dtype": dtype, "total": s.total, "n": s.n, "sum": s.sum, "mean": s.mean,
         "var_sample": s.var_sample, "var_population": s.var_population, "sd_sample": s.sd_sample,
         "sd_population": s.sd_population, "min": s.min}
    if s.argmin != NO_INDEX:
        m["argmin"] = s.argmin
    m["max"] = s.max
    if s.argmax != NO_INDEX:
        m["argmax"] = s.argmax
    m.update(l1=s.l1, l2=s.l2, linf=s.linf, nan_count=s.nan_count, inf_count=s.inf_count, nan_policy=nan)
    if policy == NAN_POLICIES["omit"] or s.nan_count + s.inf_count == 0:
        over = [name for name, v in (("sum", s.sum), ("mean", s.mean), ("sample variance", s.var_sample),
                                     ("population variance", s.var_population), ("sample sd", s.sd_sample),
                                     ("population sd", s.sd_population), ("L1", s.l1), ("L2", s.l2))
                if math.isinf(v)]
        if over:
            m["overflow"] = ", ".join(over)
    _footer(m, ctx, ms, t0)
    return StatsResult(m)
