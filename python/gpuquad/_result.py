"""Results: small read-only records whose keys are the CLI's --json keys."""
import json
import math

# Members that the CLI writes as limits: an infinity as the string "inf" or
# "-inf" (JSON has none); every other non-finite number is null.
_LIMITS = ("a", "b")


def _json_value(key, v):
    if isinstance(v, float) and not math.isfinite(v):
        if key in _LIMITS and math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return None
    if isinstance(v, list):
        return [_json_value(key, x) for x in v]
    return v


class Result:
    """A result: its members are attributes (``r.estimate``) and, in the CLI's
    --json order and names, ``r.dict()`` and ``r.json()``."""

    _main = None  # the member float(r) gives

    def __init__(self, members):
        object.__setattr__(self, "_members", dict(members))

    def __getattr__(self, name):
        try:
            return self._members[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no member {name!r} "
                                 f"(it has: {', '.join(self._members)})") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __contains__(self, name):
        return name in self._members

    def __getitem__(self, name):
        return self._members[name]

    def __float__(self):
        return float(self._members[self._main])

    def __eq__(self, other):
        return type(self) is type(other) and self._members == other._members

    __hash__ = None

    def __dir__(self):
        return list(super().__dir__()) + list(self._members)

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self._members.items())
        return f"{type(self).__name__}({inner})"

    def dict(self):
        """The members as a new dict (floats as floats: inf and nan kept)."""
        return dict(self._members)

    def json(self):
        """One JSON object as ``gpuquad --json`` prints it: non-finite numbers
        null, infinite limits "inf"/"-inf"."""
        return json.dumps({k: _json_value(k, v) for k, v in self._members.items()}, allow_nan=False)


class IntegrateResult(Result):
    """An integral (gpuquad.integrate): estimate, error_estimate, the check's verdict."""
    _main = "estimate"


class MCResult(Result):
    """A Monte Carlo run (gpuquad.mc): mean, stderr, integral, integral_stderr, the check."""
    _main = "integral"


class DotResult(Result):
    """A dot product (gpuquad.dot): dot, abs_sum, counts of non-finite terms."""
    _main = "dot"


class SumResult(Result):
    """A sum (gpuquad.sum): sum, abs_sum, counts of non-finite terms."""
    _main = "sum"


class RMSResult(Result):
    """The rms of a difference (gpuquad.rms): rms, max_abs, relative."""
    _main = "rms"


class StatsResult(Result):
    """Statistics (gpuquad.stats): n, sum, mean, variances, sd, min/max, norms."""
    _main = "mean"
