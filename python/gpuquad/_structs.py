"""ctypes mirrors of the structs of gpuquad.h that the module passes.

Each mirror lists the header's members in the header's order with the
header's types.  tests/py_layout.c prints the compiler's sizeof and offsetof
for every one of them and tests/python.sh compares them with these (the
module's ``_structs.LAYOUT``), so a change to the header that these do not
follow fails make check instead of corrupting memory.
"""
import ctypes
from ctypes import c_char, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint, c_uint64, c_void_p

MAX_DIM = 6            # GQ_MAX_DIM
MC_MAX_DIMS = 16       # GQ_MC_MAX_DIMS
ADAPTIVE_MAX_DIM = 8   # GQ_ADAPTIVE_MAX_DIM
c_enum = c_int         # the C enums of the header are int-sized


class ParseError(ctypes.Structure):
    _fields_ = [("status", c_int), ("in_param", c_int), ("param_index", c_size_t), ("column", c_size_t),
                ("message", c_char * 192)]


class RuleResult(ctypes.Structure):
    _fields_ = [("result", c_double), ("coarse", c_double), ("abserr", c_double), ("difference", c_double),
                ("n", c_uint64), ("kernel_ms", c_double), ("backend", c_int), ("jit", c_int),
                ("compile_ms", c_double), ("nonfinite_count", c_uint64), ("nonfinite_x", c_double),
                ("rule", c_int), ("error_formula", c_char_p), ("change", c_char_p), ("dims", c_int),
                ("nodes", c_int), ("points", c_double)]


class RuleSpec(ctypes.Structure):
    _fields_ = [("rule", c_enum), ("nodes", c_int)]


class Box(ctypes.Structure):
    _fields_ = [("dims", c_int), ("a", c_double * MAX_DIM), ("b", c_double * MAX_DIM), ("n", c_uint64 * MAX_DIM)]


class Reference(ctypes.Structure):
    _fields_ = [("value", c_double), ("abserr", c_double), ("l1norm", c_double), ("method", c_int),
                ("width", c_double)]


class MCOptions(ctypes.Structure):
    _fields_ = [("dims", c_int), ("a", c_double * MC_MAX_DIMS), ("b", c_double * MC_MAX_DIMS), ("dist", c_enum),
                ("n", c_uint64), ("seed", c_uint64), ("precision", c_enum), ("tol", c_double),
                ("progress", c_void_p), ("progress_user", c_void_p), ("blocks", c_uint)]


class MCResult(ctypes.Structure):
    _fields_ = [("mean", c_double), ("sd", c_double), ("se", c_double), ("ci_low", c_double),
                ("ci_high", c_double), ("volume", c_double), ("integral", c_double), ("integral_se", c_double),
                ("n", c_uint64), ("seed", c_uint64), ("stopped_by_tol", c_int), ("kernel_ms", c_double),
                ("backend", c_int), ("jit", c_int), ("compile_ms", c_double), ("precision", c_enum)]


class MCReference(ctypes.Structure):
    _fields_ = [("value", c_double), ("se", c_double), ("chisq", c_double), ("calls", c_uint64),
                ("method", c_int)]


class VegasOptions(ctypes.Structure):
    _fields_ = [("iterations", c_int), ("warmup", c_int), ("bins", c_int), ("alpha", c_double),
                ("beta", c_double)]


class VegasResult(ctypes.Structure):
    _fields_ = [("mc", MCResult), ("chi2_dof", c_double), ("chi2_q", c_double), ("iterations", c_int),
                ("strata", c_int), ("bins", c_int)]


class AdaptiveOptions(ctypes.Structure):
    _fields_ = [("dims", c_int), ("a", c_double * ADAPTIVE_MAX_DIM), ("b", c_double * ADAPTIVE_MAX_DIM),
                ("epsrel", c_double), ("epsabs", c_double), ("max_evals", c_uint64), ("max_regions", c_uint64)]


class AdaptiveResult(ctypes.Structure):
    _fields_ = [("estimate", c_double), ("abserr", c_double), ("tolerance", c_double), ("reached", c_int),
                ("stop", c_enum), ("evaluations", c_uint64), ("regions", c_uint64), ("passes", c_uint64),
                ("max_held", c_uint64), ("dims", c_int), ("rule", c_char_p), ("change", c_char_p),
                ("kernel_ms", c_double), ("compile_ms", c_double), ("jit", c_int), ("backend", c_int)]


class SumAcc(ctypes.Structure):
    _fields_ = [("n", c_uint64), ("nan_count", c_uint64), ("posinf_count", c_uint64), ("neginf_count", c_uint64),
                ("sum", c_double), ("sum_err", c_double), ("abs_sum", c_double), ("scale", c_int64)]


class RMSAcc(ctypes.Structure):
    _fields_ = [("n", c_uint64), ("nan_count", c_uint64), ("inf_count", c_uint64), ("sq_diff", c_double),
                ("sq_diff_err", c_double), ("sq_ref", c_double), ("sq_ref_err", c_double), ("max_abs", c_double),
                ("scale", c_int64)]


class RMSResult(ctypes.Structure):
    _fields_ = [("rms", c_double), ("max_abs", c_double), ("relative", c_double), ("n", c_uint64),
                ("nan_count", c_uint64), ("inf_count", c_uint64)]


class StatsAcc(ctypes.Structure):
    _fields_ = [("n", c_uint64), ("nan_count", c_uint64), ("posinf_count", c_uint64), ("neginf_count", c_uint64),
                ("first_nan", c_uint64), ("first_posinf", c_uint64), ("first_neginf", c_uint64),
                ("scale", c_int64), ("shift", c_double), ("s1", c_double), ("s1_err", c_double),
                ("s2", c_double), ("s2_err", c_double), ("abs_sum", c_double), ("abs_err", c_double),
                ("min", c_double), ("max", c_double), ("argmin", c_uint64), ("argmax", c_uint64)]


class StatsResult(ctypes.Structure):
    _fields_ = [("total", c_uint64), ("n", c_uint64), ("nan_count", c_uint64), ("inf_count", c_uint64),
                ("sum", c_double), ("mean", c_double), ("var_sample", c_double), ("var_population", c_double),
                ("sd_sample", c_double), ("sd_population", c_double), ("min", c_double), ("max", c_double),
                ("argmin", c_uint64), ("argmax", c_uint64), ("l1", c_double), ("l2", c_double),
                ("linf", c_double)]


# The header's name of each mirror, for the layout test.
LAYOUT = {
    "gq_parse_error": ParseError, "gq_rule_result": RuleResult, "gq_rule_spec": RuleSpec, "gq_box": Box,
    "gq_reference": Reference, "gq_mc_options": MCOptions, "gq_mc_result": MCResult,
    "gq_mc_reference": MCReference, "gq_vegas_options": VegasOptions, "gq_vegas_result": VegasResult,
    "gq_adaptive_options": AdaptiveOptions, "gq_adaptive_result": AdaptiveResult, "gq_sum_acc": SumAcc,
    "gq_rms_acc": RMSAcc, "gq_rms_result": RMSResult, "gq_stats_acc": StatsAcc, "gq_stats_result": StatsResult,
}
