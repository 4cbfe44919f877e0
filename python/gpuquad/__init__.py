"""gpuquad: integrals, Monte Carlo and compensated reductions on the GPU (or the CPU).

A Python module over libgpuquad (through ctypes: nothing to compile):

    import gpuquad
    r = gpuquad.integrate("sin(k*x)", a=0, b=1, n=10**6, params={"k": 3}, rule="simpson")
    r.estimate, r.error_estimate, r.check
    gpuquad.mc("exp(-(x1^2+x2^2))", a=-1, b=1, dims=2, n=10**7, seed=1).integral
    gpuquad.dot(a, b).dot, gpuquad.stats(x).sd_sample     # numpy, CuPy or PyTorch arrays

Functions: integrate, mc, sum, dot, rms, stats, version, cuda_device_count;
Context(device=...) holds a device across calls (each function also takes
device="auto"|"cpu"|"cuda"|"cuda:N", with one default context per device).
Results have attributes and .dict()/.json() with the keys of `gpuquad ... --json`;
the same options give the same bits as the command on the same device.
Errors: ValueError (InputError) for bad input, RuntimeError (ComputationError)
for a failed computation, CheckError for a check that failed or could not be made.

The shared library is found at first use: $GPUQUAD_LIBRARY (its path), else
the system's libgpuquad.so.1.  gpuquad(1) documents the expression grammar,
the rules, the checks and the numerics.
"""
from ._context import Context
from ._data import dot, rms, stats, sum
from ._errors import CheckError, ComputationError, Error, InputError, LibraryError
from ._integrate import integrate
from ._lib import lib as _lib_handle, text as _text
from ._mc import mc
from ._result import DotResult, IntegrateResult, MCResult, Result, RMSResult, StatsResult, SumResult

# the public classes under the name users import them by (tracebacks, pydoc)
for _cls in (Context, Error, InputError, ComputationError, CheckError, LibraryError, Result, IntegrateResult,
             MCResult, SumResult, DotResult, RMSResult, StatsResult):
    _cls.__module__ = __name__
del _cls

__all__ = ["integrate", "mc", "sum", "dot", "rms", "stats", "version", "cuda_device_count", "Context",
           "Error", "InputError", "ComputationError", "CheckError", "LibraryError", "Result", "IntegrateResult",
           "MCResult", "SumResult", "DotResult", "RMSResult", "StatsResult"]


def version():
    """The library's version, "MAJOR.MINOR.PATCH" (gq_version)."""
    return _text(_lib_handle().gq_version())


def cuda_device_count():
    """Usable CUDA devices (0 without a GPU, a driver, or a CUDA build of the library)."""
    return _lib_handle().gq_cuda_device_count()
