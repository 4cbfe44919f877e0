"""Contexts: a backend (a CUDA device or the CPU) held across calls."""
import atexit
import ctypes
import threading

from . import _errors as E
from ._lib import last_error, lib, text

DEVICE_AUTO, DEVICE_CPU = -1, -2  # GQ_DEVICE_AUTO, GQ_DEVICE_CPU
BACKEND_CPU, BACKEND_CUDA = 0, 1


def parse_device(device):
    """"auto", "cpu", "cuda" (or "gpu"), "cuda:N", or an int N -> the library's device number."""
    if isinstance(device, bool):
        raise E.InputError(f"device={device!r}: expected 'auto', 'cpu', 'cuda' or 'cuda:N'", E.EINVAL)
    if isinstance(device, int):
        if device < 0:
            raise E.InputError(f"device={device}: a CUDA device number is 0 or more", E.EINVAL)
        return device
    if device == "auto":
        return DEVICE_AUTO
    if device == "cpu":
        return DEVICE_CPU
    if device in ("cuda", "gpu"):
        return 0
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return int(device[5:])
    raise E.InputError(f"device={device!r}: expected 'auto', 'cpu', 'cuda' or 'cuda:N'", E.EINVAL)


class Context:
    """A backend held for many calls: a CUDA device (its stream, events and
    scratch buffers allocated once) or the CPU (OpenMP threads).

    ``Context(device="auto")`` takes the first CUDA device, or the CPU where
    there is none; "cpu", "cuda", "cuda:N" choose.  ``deterministic=True``
    makes the data reductions give the same bits on any thread count or device
    (gpuquad(1), --deterministic); ``jit_cache=False`` compiles expressions
    for the GPU afresh (--no-cache).  Use it in a ``with`` block or call
    ``close()``; the functions take it as ``context=``.  Like the library's,
    a context is for one thread at a time.
    """

    def __init__(self, device="auto", *, deterministic=False, jit_cache=True):
        number = parse_device(device)
        L = lib()
        if number == DEVICE_AUTO and L.gq_cuda_device_count() == 0:
            number = DEVICE_CPU
        handle = ctypes.c_void_p()
        status = L.gq_context_open(ctypes.byref(handle), number)
        if status != E.SUCCESS:
            raise E.from_status(status, f"device={device!r}: {last_error()}")
        self._handle = handle
        self._stream = None
        #: the CUDA device number, or None on the CPU
        self.device_index = None
        if L.gq_context_backend(handle) == BACKEND_CUDA:
            self.device_index = 0 if number == DEVICE_AUTO else number
        if deterministic:
            L.gq_context_set_deterministic(handle, 1)
        if not jit_cache:
            L.gq_context_set_jit_cache(handle, 0)
        self.deterministic = bool(deterministic)

    @property
    def handle(self):
        """The gq_context pointer (a ctypes.c_void_p); ValueError once closed."""
        if self._handle is None:
            raise E.InputError("this gpuquad.Context is closed", E.EINVAL)
        return self._handle

    @property
    def backend(self):
        """"cuda" or "cpu"."""
        return "cuda" if lib().gq_context_backend(self.handle) == BACKEND_CUDA else "cpu"

    @property
    def device_name(self):
        """"NVIDIA H200", "CPU (8 threads)", ..."""
        return text(lib().gq_context_device_name(self.handle))

    @property
    def threads(self):
        """CPU threads, or the GPU's multiprocessors."""
        return lib().gq_context_threads(self.handle)

    @property
    def closed(self):
        return self._handle is None

    def set_stream(self, stream):
        """Run this context's GPU work on a caller's CUDA stream: an int handle
        (cudaStream_t), an object with ``.cuda_stream`` (torch.cuda.Stream) or
        ``.ptr`` (cupy.cuda.Stream); None returns to the context's own stream.
        ValueError on a CPU context."""
        if stream is not None and not isinstance(stream, int):
            stream = getattr(stream, "cuda_stream", getattr(stream, "ptr", stream))
        self._set_stream(stream)
        self._stream = stream

    def _set_stream(self, stream):
        status = lib().gq_context_set_stream(self.handle, stream)
        if status != E.SUCCESS:
            raise E.from_status(status, last_error())

    def close(self):
        """Free the context (its device memory and stream); closing twice is fine."""
        if self._handle is not None:
            lib().gq_context_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            try:
                self.close()
            except Exception:  # interpreter shutdown: the library may be gone
                pass

    def __repr__(self):
        if self._handle is None:
            return "<gpuquad.Context closed>"
        return f"<gpuquad.Context {self.backend}: {self.device_name}>"


# One default context per thread and device, opened at first use: a CUDA
# context's set-up (its stream, scratch buffers, compiled kernels) is paid once.
_defaults = threading.local()
_all_defaults = []
_all_lock = threading.Lock()


def default_context(device="auto"):
    """The context the functions use when given no ``context=``: one per
    thread and device, kept until the interpreter exits."""
    key = parse_device(device)
    table = getattr(_defaults, "table", None)
    if table is None:
        table = _defaults.table = {}
    ctx = table.get(key)
    if ctx is None or ctx.closed:
        ctx = table[key] = Context(device)
        with _all_lock:
            _all_defaults.append(ctx)
    return ctx


@atexit.register
def _close_defaults():
    with _all_lock:
        for ctx in _all_defaults:
            ctx.close()
        _all_defaults.clear()


def resolve(device, context):
    """The context a call runs on: ``context`` if given, else the default one of ``device``."""
    if context is not None:
        if device != "auto":
            raise E.InputError(f"device={device!r} and context=: give one or the other", E.EINVAL)
        if not isinstance(context, Context):
            raise E.InputError(f"context={context!r}: expected a gpuquad.Context", E.EINVAL)
        context.handle  # closed -> ValueError
        return context
    return default_context(device)
