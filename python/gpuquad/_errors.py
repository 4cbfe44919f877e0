"""The exceptions: the library's status and message, in Python's classes.

The CLI's exit statuses map onto them: bad input (exit 2) is ValueError, a
failed computation (exit 3) RuntimeError, a failed or impossible check
(exit 1) CheckError.
"""

# gpuquad.h's status codes
SUCCESS, EINVAL, ENOMEM, ECUDA, ENODEV, EDOM, EIO, EFORMAT, EPARSE, EUNSUP, ECHECK = range(11)


class Error(Exception):
    """Base of the module's errors; ``status`` is the library's GQ_E* code (0 if none)."""

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status


class InputError(Error, ValueError):
    """Bad input: the arguments, the expression, the device asked for (the CLI's exit 2)."""


class ComputationError(Error, RuntimeError):
    """A computation that failed: out of memory, a CUDA error (the CLI's exit 3)."""


class CheckError(Error, RuntimeError):
    """The result disagrees with its reference, or no reference could vouch for it
    (the CLI's exit 1).  ``result`` holds the result all the same."""

    def __init__(self, message, result=None):
        super().__init__(message, ECHECK)
        self.result = result


class LibraryError(Error, OSError):
    """libgpuquad could not be loaded (the message says how to point at it)."""


def from_status(status, message):
    """The exception for a library status, as the CLI's cli_exit_status sorts them."""
    if status in (ENOMEM, ECUDA):
        return ComputationError(message, status)
    if status == ECHECK:
        return CheckError(message)
    return InputError(message, status)
