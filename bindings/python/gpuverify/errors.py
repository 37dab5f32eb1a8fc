# SPDX-License-Identifier: Apache-2.0
"""Exceptions: one class per library status, all under GpuverifyError. A verdict (FAIL) is never an
exception; an exception means the call could not do its job."""
from typing import Dict, Type


class GpuverifyError(Exception):
    """A call could not do its job (never a verdict: a FAIL is a result). `status` is the
    library's status number (negative); each status has its subclass below."""

    status = 0

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        if status:
            self.status = status


class LibraryNotFoundError(GpuverifyError, OSError):
    """libgpuverify itself could not be loaded; the message names every place tried."""


class InvalidArgumentError(GpuverifyError, ValueError):
    """An argument the library refuses: an unknown level, check ID or data type, a relative
    sysroot, a fraction out of range; the message names it."""
    status = -1


class ContextClosedError(InvalidArgumentError):
    """A Context used after close() or the end of its with-block; make a new one. An
    InvalidArgumentError (and ValueError, as a closed file's), which such a call raised
    before with the library's "no context (NULL)"."""


class VersionError(GpuverifyError):
    """The loaded libgpuverify is older than this package needs (a layout it does not know)."""
    status = -2


class NoMemoryError(GpuverifyError, MemoryError):
    """The library ran out of host memory."""
    status = -3


class NotFoundError(GpuverifyError, LookupError):
    """Something asked for is not there: a GPU index CUDA does not have, a report row."""
    status = -4


class IOFailureError(GpuverifyError, OSError):
    """A file or directory could not be read: a sysroot, a policy file, an XML topology."""
    status = -5


class ParseError(GpuverifyError, ValueError):
    """Text that does not parse: a policy line, a report's JSON of another schema version;
    the message says where."""
    status = -6


class NvidiaLibraryError(GpuverifyError):
    """An NVIDIA library (libcuda, NVML, cuBLASLt, cuDNN, NCCL) is absent or unusable."""
    status = -7


class DriverError(GpuverifyError):
    """The driver or a GPU failed the call, or the worker process running it crashed;
    `result`, when set, holds what was measured."""
    status = -8


class DeadlineError(GpuverifyError, TimeoutError):
    """The call ran past its deadline and was stopped; `result` holds what was measured, when
    any."""
    status = -9
    result = None


class UnsupportedError(GpuverifyError):
    """Not possible on this node or build: a data type the GPU lacks, MPI not built in."""
    status = -10


class InternalError(GpuverifyError):
    """A bug in libgpuverify: please report it with the message."""
    status = -11


class GpuBusyError(GpuverifyError):
    """Another gpuverify was testing the GPU for the whole wait; the message names it (PID,
    program, how long). Try again once it has finished."""
    status = -12


BY_STATUS: Dict[int, Type[GpuverifyError]] = {
    cls.status: cls
    for cls in (InvalidArgumentError, VersionError, NoMemoryError, NotFoundError, IOFailureError,
                ParseError, NvidiaLibraryError, DriverError, DeadlineError, UnsupportedError,
                InternalError, GpuBusyError)
}


def for_status(status: int, message: str) -> GpuverifyError:
    """The exception for a library status number, with its message."""
    return BY_STATUS.get(status, GpuverifyError)(message, status)
