"""Finding and loading libgpuquad, and the prototypes of the functions used.

The library is found at first use, not at import, so that ``import gpuquad``
and ``help(gpuquad)`` work anywhere: $GPUQUAD_LIBRARY if set (a path), else
the linker's search (ctypes.util.find_library, which reads ldconfig's cache),
else "libgpuquad.so.1" through the dynamic loader's own path
(LD_LIBRARY_PATH, the installed lib directory).
"""
import ctypes
import ctypes.util
import os
import threading
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_uint64, c_void_p

from . import _structs as S
from ._errors import LibraryError

ENV = "GPUQUAD_LIBRARY"

_P = POINTER
_vp = c_void_p
_ctx = c_void_p  # gq_context *
_f = c_void_p    # gq_integrand *

# name: (restype, argtypes); status-returning functions are int.
_PROTOTYPES = {
    "gq_version": (c_char_p, []),
    "gq_strerror": (c_char_p, [c_int]),
    "gq_last_error": (c_char_p, []),
    "gq_cuda_device_count": (c_int, []),
    "gq_context_open": (c_int, [_P(_ctx), c_int]),
    "gq_context_free": (None, [_ctx]),
    "gq_context_set_stream": (c_int, [_ctx, _vp]),
    "gq_context_backend": (c_int, [_ctx]),
    "gq_context_device_name": (c_char_p, [_ctx]),
    "gq_context_threads": (c_int, [_ctx]),
    "gq_context_set_jit_cache": (None, [_ctx, c_int]),
    "gq_context_set_deterministic": (c_int, [_ctx, c_int]),
    "gq_integrand_parse": (c_int, [c_char_p, _P(c_char_p), c_size_t, c_int, _P(_f), _P(S.ParseError)]),
    "gq_integrand_free": (None, [_f]),
    "gq_integrand_name": (c_char_p, [_f]),
    "gq_integrand_formula": (c_char_p, [_f]),
    "gq_integrand_limits": (None, [_f, _P(c_double), _P(c_double)]),
    "gq_rule_name": (c_char_p, [c_int]),
    "gq_rule_check_n": (c_int, [c_int, c_uint64]),
    "gq_rule_spec_parse": (c_int, [c_char_p, _P(S.RuleSpec)]),
    "gq_integrate_box": (c_int, [_ctx, _f, S.RuleSpec, _P(S.Box), c_int, _P(S.RuleResult)]),
    "gq_integrate_reference_box": (c_int, [_f, _P(S.Box), _P(S.Reference)]),
    "gq_trapezoid_check": (c_int, [_P(S.RuleResult), c_int, _P(S.Reference), _P(c_double)]),
    "gq_adaptive_options_init": (c_int, [_P(S.AdaptiveOptions)]),
    "gq_integrate_adaptive": (c_int, [_ctx, _f, _P(S.AdaptiveOptions), _P(S.AdaptiveResult)]),
    "gq_adaptive_stop_name": (c_char_p, [c_int]),
    "gq_mc_options_init": (c_int, [_P(S.MCOptions)]),
    "gq_mc_mean": (c_int, [_ctx, _f, _P(S.MCOptions), _P(S.MCResult)]),
    "gq_vegas_options_init": (c_int, [_P(S.VegasOptions)]),
    "gq_mc_vegas": (c_int, [_ctx, _f, _P(S.MCOptions), _P(S.VegasOptions), _P(S.VegasResult)]),
    "gq_mc_sobol": (c_int, [_ctx, _f, _P(S.MCOptions), c_int, _P(S.MCResult)]),
    "gq_mc_reference_gsl": (c_int, [_f, _P(S.MCOptions), _P(S.MCReference)]),
    "gq_mc_moments_exist": (c_int, [_f, _P(S.MCOptions)]),
    "gq_mc_check": (c_int, [_P(S.MCResult), _P(S.MCReference), _P(c_double)]),
    "gq_alloc": (c_int, [_ctx, c_size_t, _P(_vp)]),
    "gq_free": (None, [_ctx, _vp]),
    "gq_copy_to": (c_int, [_ctx, _vp, _vp, c_size_t]),
    "gq_sum_acc_init": (c_int, [_P(S.SumAcc)]),
    "gq_sum_accumulate": (c_int, [_ctx, _P(S.SumAcc), c_size_t, _vp]),
    "gq_sum_accumulate_f": (c_int, [_ctx, _P(S.SumAcc), c_size_t, _vp]),
    "gq_dot_accumulate": (c_int, [_ctx, _P(S.SumAcc), c_size_t, _vp, _vp]),
    "gq_dot_accumulate_f": (c_int, [_ctx, _P(S.SumAcc), c_size_t, _vp, _vp]),
    "gq_sum_finish": (c_int, [_P(S.SumAcc), c_int, _P(c_double)]),
    "gq_rms_acc_init": (c_int, [_P(S.RMSAcc)]),
    "gq_rms_accumulate": (c_int, [_ctx, _P(S.RMSAcc), c_size_t, _vp, _vp]),
    "gq_rms_accumulate_f": (c_int, [_ctx, _P(S.RMSAcc), c_size_t, _vp, _vp]),
    "gq_rms_finish": (c_int, [_P(S.RMSAcc), c_int, _P(S.RMSResult)]),
    "gq_stats_acc_init": (c_int, [_P(S.StatsAcc)]),
    "gq_stats_accumulate": (c_int, [_ctx, _P(S.StatsAcc), c_size_t, _vp]),
    "gq_stats_accumulate_f": (c_int, [_ctx, _P(S.StatsAcc), c_size_t, _vp]),
    "gq_stats_finish": (c_int, [_P(S.StatsAcc), c_int, _P(S.StatsResult)]),
    "gq_exact_acc_create": (c_int, [c_int, _P(_vp)]),
    "gq_exact_acc_free": (None, [_vp]),
    "gq_exact_accumulate": (c_int, [_ctx, _vp, c_size_t, _vp, _vp]),
    "gq_exact_accumulate_f": (c_int, [_ctx, _vp, c_size_t, _vp, _vp]),
    "gq_exact_sum_finish": (c_int, [_vp, c_int, _P(c_double), _P(c_double)]),
    "gq_exact_rms_finish": (c_int, [_vp, c_int, _P(S.RMSResult)]),
    "gq_exact_stats_finish": (c_int, [_vp, c_int, _P(S.StatsResult)]),
}

_lock = threading.Lock()
_lib = None


def _candidates():
    path = os.environ.get(ENV)
    if path:
        return [path]
    found = ctypes.util.find_library("gpuquad")
    return ([found] if found else []) + ["libgpuquad.so.1"]


def lib():
    """The loaded library, its prototypes set; LibraryError if none loads."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            tried = []
            for name in _candidates():
                try:
                    handle = ctypes.CDLL(name)
                except OSError as e:
                    tried.append(str(e))
                    continue
                for fn, (restype, argtypes) in _PROTOTYPES.items():
                    try:
                        proto = getattr(handle, fn)
                    except AttributeError:
                        raise LibraryError(f"{name}: no {fn}: the library is older than this module "
                                           f"(gpuquad {_version_of(handle)}); install a matching one") from None
                    proto.restype, proto.argtypes = restype, argtypes
                _lib = handle
                break
            else:
                raise LibraryError(
                    "gpuquad: cannot load the shared library libgpuquad (" + "; ".join(tried) + "). "
                    f"Set {ENV} to its path, e.g. {ENV}=/usr/local/lib/libgpuquad.so.1 or, in a build "
                    f"tree, {ENV}=$builddir/.libs/libgpuquad.so.1; or add its directory to LD_LIBRARY_PATH")
    return _lib


def _version_of(handle):
    try:
        handle.gq_version.restype = c_char_p
        return handle.gq_version().decode()
    except AttributeError:
        return "unknown"


def text(p):
    """A C string from the library as str (None as "")."""
    return p.decode("utf-8", "replace") if p else ""


def last_error():
    return text(lib().gq_last_error())
