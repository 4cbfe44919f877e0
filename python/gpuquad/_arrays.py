"""Vectors for the data reductions: numpy arrays, and GPU arrays (CuPy,
PyTorch, Numba, ...) through __cuda_array_interface__ without a copy.

The library takes pointers in the context's memory.  On a CPU context a
numpy array's own buffer is passed; on a CUDA context a numpy array is
copied into memory from gq_alloc, and a GPU array's device pointer is passed
as it is, after checking that it lives on the context's device.  Work queued
on the array's stream (the interface's "stream", or PyTorch's current stream)
is ordered before the reduction by running the reduction on that stream
(gq_context_set_stream).
"""
import contextlib
import ctypes

from . import _errors as E
from ._lib import last_error, lib


class Vector:
    """One input: n elements of float64 or float32 at ptr in the context's memory."""

    def __init__(self, ptr, n, is_float, keep, stream=None):
        self.ptr, self.n, self.is_float, self.stream = ptr, n, is_float, stream
        self._keep = keep  # the array the pointer points into, alive while this is


def _numpy():
    try:
        import numpy
    except ImportError:
        raise E.InputError("gpuquad's data functions take numpy arrays: install numpy", E.EINVAL) from None
    return numpy


def _host_array(np, name, x, want_float32):
    """x as a C-contiguous float64 (or float32) numpy vector: other real dtypes
    are converted where every value is exact in a double, others refused."""
    a = np.asarray(x)
    kind = a.dtype.kind
    if a.dtype == np.float64 or a.dtype == np.float32:
        pass
    elif kind == "f" and a.dtype.itemsize <= 8:  # float16: exact in either
        a = a.astype(np.float64)
    elif kind in "biu":
        if kind != "b" and a.dtype.itemsize == 8 and a.size and max(-int(a.min()), int(a.max())) > 2**53:
            raise E.InputError(f"{name}: {a.dtype} values beyond 2^53 are not exact in a double: "
                               "convert them yourself if rounding is acceptable", E.EINVAL)
        a = a.astype(np.float64)
    else:
        raise E.InputError(f"{name}: dtype {a.dtype} is not taken: give float64 or float32 "
                           "(integers, bools and float16 are converted)", E.EINVAL)
    if a.dtype == np.float32 and not want_float32:
        a = a.astype(np.float64)  # with a float64 partner: widened, as the CLI widens
    return np.ascontiguousarray(a).reshape(-1)


def _is_gpu(x):
    # a property that may refuse (PyTorch: a tensor that requires grad), so
    # asked for existence by the class
    return hasattr(type(x), "__cuda_array_interface__") or "__cuda_array_interface__" in getattr(x, "__dict__", {})


def _interface(name, x):
    try:
        return x.__cuda_array_interface__
    except AttributeError:  # PyTorch: a tensor on the host has the property but no interface
        return None
    except Exception as e:
        raise E.InputError(f"{name}: {e}", E.EINVAL) from None


def _gpu_vector(name, x, cai, ctx, want_float32):
    typestr = cai["typestr"]
    if typestr not in ("<f8", "<f4"):
        raise E.InputError(f"{name}: a GPU array of type {typestr} is not taken: give float64 or float32 "
                           "(convert it on the GPU, e.g. x.double())", E.EINVAL)
    if typestr == "<f4" and not want_float32:
        raise E.InputError(f"{name}: a float32 GPU array with a float64 partner: convert one of them on the "
                           "GPU so that both have one type", E.EINVAL)
    shape = tuple(cai["shape"])
    n = 1
    for s in shape:
        n *= s
    item = 4 if typestr == "<f4" else 8
    strides = cai.get("strides")
    if strides is not None and n > 1:
        expected, step = [], item
        for s in reversed(shape):
            expected.append(step)
            step *= s
        if any(sz != 1 and st != e for sz, st, e in zip(reversed(shape), reversed(strides), expected)):
            raise E.InputError(f"{name}: a GPU array that is not contiguous: make it so on the GPU "
                               "(x.contiguous(), cupy.ascontiguousarray(x)): gpuquad reads it in place", E.EINVAL)
    ptr = cai["data"][0]
    if ctx.backend != "cuda":
        raise E.InputError(f"{name}: a GPU array on a CPU context: use device='cuda' (or the array's "
                           "device), or move the array to the host", E.EINVAL)
    where = _device_of(ptr) if n else ctx.device_index
    if where is not None and where != ctx.device_index:
        raise E.InputError(f"{name}: the array is on CUDA device {where}, the context on device "
                           f"{ctx.device_index}: use device='cuda:{where}'", E.EINVAL)
    return Vector(ptr if n else None, n, typestr == "<f4", x, _stream_of(x, cai, where) if n else None)


CUDA_STREAM_LEGACY = 1  # cudaStreamLegacy, as the interface (version 3) numbers it


def _stream_of(x, cai, device):
    """The stream whose queued work produced x: the interface's (version 3), or
    for a PyTorch tensor (whose interface says none) PyTorch's current stream,
    its default stream being the legacy one.  None: nothing to wait for."""
    stream = cai.get("stream")
    if stream is None and type(x).__module__.startswith("torch"):
        import torch
        stream = torch.cuda.current_stream(device).cuda_stream or CUDA_STREAM_LEGACY
    return stream or None


_driver_handle = None


def _driver():
    """libcuda (the driver API), or None where it cannot be loaded."""
    global _driver_handle
    if _driver_handle is None:
        try:
            _driver_handle = ctypes.CDLL("libcuda.so.1")
        except OSError:
            _driver_handle = False
    return _driver_handle or None


def _device_of(ptr):
    """The CUDA device that holds ptr (cuPointerGetAttribute); None where the
    driver cannot tell (then the library's own errors speak)."""
    cuda = _driver()
    if cuda is None:
        return None
    ordinal = ctypes.c_int(-1)
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
    status = cuda.cuPointerGetAttribute(ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                        ctypes.c_uint64(ptr))
    return ordinal.value if status == 0 else None


@contextlib.contextmanager
def vectors(ctx, named):
    """The inputs [(name, array), ...] as Vectors in ctx's memory, of one
    length and one type, while the block runs (copies freed after), the
    context on the inputs' stream."""
    interfaces = [_interface(name, x) if _is_gpu(x) else None for name, x in named]
    np = None if all(interfaces) else _numpy()
    # one type for all: float32 only where every input is float32
    all_f32 = all((cai["typestr"] if cai else str(_host_dtype(np, x))) in ("<f4", "float32")
                  for (_, x), cai in zip(named, interfaces))
    L = lib()
    owned = []
    try:
        vecs = []
        for (name, x), cai in zip(named, interfaces):
            if cai:
                vecs.append(_gpu_vector(name, x, cai, ctx, all_f32))
                continue
            a = _host_array(np, name, x, all_f32)
            ptr = a.ctypes.data if a.size else None
            if ctx.backend == "cuda" and a.size:
                d = ctypes.c_void_p()
                status = L.gq_alloc(ctx.handle, a.nbytes, ctypes.byref(d))
                if status != E.SUCCESS:
                    raise E.from_status(status, f"{name}: {last_error()}")
                owned.append(d)
                status = L.gq_copy_to(ctx.handle, d, ptr, a.nbytes)
                if status != E.SUCCESS:
                    raise E.from_status(status, f"{name}: {last_error()}")
                ptr = d.value
            vecs.append(Vector(ptr, a.size, a.dtype == np.float32, a))
        if len({v.n for v in vecs}) > 1:
            raise E.InputError(", ".join(f"{name} has {v.n}" for (name, _), v in zip(named, vecs))
                               + " elements: the lengths differ", E.EINVAL)
        streams = [v.stream for v in vecs if v.stream is not None]
        if streams and getattr(ctx, "_stream", None) is not None:
            # A stream the caller gave the context (Context.set_stream) is
            # kept, and the inputs' streams are waited for first: a PyTorch
            # tensor's stream is only PyTorch's current one, a guess, and the
            # tensor may have been written on the context's stream instead.
            streams = [ctx._stream] + streams
        with _on_stream(ctx, streams):
            yield vecs
    finally:
        for d in owned:
            L.gq_free(ctx.handle, d)


@contextlib.contextmanager
def _on_stream(ctx, streams):
    """Run the block's reductions on the inputs' stream, so that the work that
    produced them comes first and nothing waits on the host; inputs from
    different streams are synchronised first (cuStreamSynchronize)."""
    if not streams:
        yield
        return
    for s in streams[1:]:
        if s != streams[0]:
            _synchronize(s)
    ctx._set_stream(streams[0])
    try:
        yield
    finally:
        ctx._set_stream(ctx._stream)


def _synchronize(stream):
    cuda = _driver()
    if cuda is None:
        raise E.ComputationError("inputs on different CUDA streams, and no CUDA driver to synchronise them",
                                 E.ECUDA)
    status = cuda.cuStreamSynchronize(ctypes.c_void_p(stream))
    if status != 0:
        raise E.ComputationError(f"cuStreamSynchronize: CUDA driver error {status}", E.ECUDA)


def _host_dtype(np, x):
    dt = getattr(x, "dtype", None)
    return dt if isinstance(dt, np.dtype) else np.asarray(x).dtype
