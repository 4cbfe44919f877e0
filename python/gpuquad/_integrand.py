"""Integrands from text (gq_integrand_parse), and the checks' verdict."""
import ctypes
import math
import numbers

from . import _errors as E
from . import _structs as S
from ._lib import last_error, lib, text


class Integrand:
    """A parsed integrand, freed when the block ends (``with Integrand(...) as f``)."""

    def __init__(self, f, params, dims):
        if not isinstance(f, str):
            raise E.InputError(f"f={f!r}: expected an expression in x (x1..xD) or a built-in name, as text "
                               "(a Python function cannot run on the GPU)", E.EINVAL)
        params = dict(params or {})
        texts = [f"{name}={_param_text(name, value)}" for name, value in params.items()]
        array = (ctypes.c_char_p * max(len(texts), 1))(*[t.encode() for t in texts])
        err = S.ParseError()
        self._handle = ctypes.c_void_p()
        status = lib().gq_integrand_parse(f.encode(), array, len(texts), dims, ctypes.byref(self._handle),
                                          ctypes.byref(err))
        if status != E.SUCCESS:
            message = text(err.message) or last_error()
            if err.in_param:
                where, line = f"params[{list(params)[err.param_index]!r}]", texts[err.param_index]
            else:
                where, line = "f", f
            e = E.InputError(f"{where}: {message}", status)
            # where in that text it went wrong (None when no one place is to blame)
            e.text, e.column = line, (err.column if err.column <= len(line.encode()) else None)
            raise e
        self.handle = self._handle

    def name(self):
        return text(lib().gq_integrand_name(self.handle))

    def formula(self):
        return text(lib().gq_integrand_formula(self.handle))

    def limits(self):
        a, b = ctypes.c_double(), ctypes.c_double()
        lib().gq_integrand_limits(self.handle, ctypes.byref(a), ctypes.byref(b))
        return a.value, b.value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib().gq_integrand_free(self._handle)
        self._handle = None


def _param_text(name, value):
    # repr of a float is the shortest text that reads back as the same double,
    # so the library parses exactly the value given (and the CLI, given the
    # same text, the same one)
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise E.InputError(f"params[{name!r}]={value!r}: expected a number", E.EINVAL)
    return value if isinstance(value, str) else repr(float(value))


def per_axis(name, value, dims, convert):
    """One value for every axis, or a list of dims values -> a list of dims."""
    values = list(value) if isinstance(value, (list, tuple)) else [value] * dims
    if len(values) != dims:
        raise E.InputError(f"{name}={value!r}: {len(values)} values for {dims} dimensions "
                           f"(give one, or one per dimension)", E.EINVAL)
    return [convert(name, v) for v in values]


def real(name, v):
    if isinstance(v, bool):
        raise E.InputError(f"{name}={v!r}: expected a number", E.EINVAL)
    try:
        return float(v)
    except (TypeError, ValueError):
        raise E.InputError(f"{name}={v!r}: expected a number", E.EINVAL) from None


def count(name, v, maximum=2**64 - 1):
    """A whole number of intervals or samples: an int, or a float with no fraction (1e9)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or (isinstance(v, float) and not v.is_integer()):
        raise E.InputError(f"{name}={v!r}: expected a whole number", E.EINVAL)
    v = int(v)
    if not 0 <= v <= maximum:
        raise E.InputError(f"{name}={v}: out of range [0, {maximum}]", E.EINVAL)
    return v


def dims_of(dims, *lists):
    """dims as given, else the length of the first list among the per-axis arguments, else 1."""
    if dims is not None:
        return count("dims", dims)
    for v in lists:
        if isinstance(v, (list, tuple)):
            return len(v)
    return 1


def precision_of(precision):
    if precision == "double":
        return 0
    if precision == "float":
        return 1
    raise E.InputError(f"precision={precision!r}: expected 'double' or 'float'", E.EINVAL)


# check/verdict.c's rule: a comparison made (status GQ_SUCCESS) passes; one
# that fails with a finite measure fails; anything else was not made, which
# is no pass either.
def verdict(has_reference, status, measure):
    if status == E.SUCCESS:
        return "passed", ""
    if has_reference and math.isfinite(measure):
        return "failed", "check failed: " + last_error()
    return "not made", "check could not be made: " + last_error()
