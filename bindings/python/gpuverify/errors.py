"""Exceptions: one class per gv_status, all under GpuverifyError. A verdict (FAIL) is never an
exception; an exception means the call could not do its job."""
from typing import Dict, Type


class GpuverifyError(Exception):
    """A libgpuverify call returned an error status. `status` is the gv_status number."""

    status = 0

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        if status:
            self.status = status


class LibraryNotFoundError(GpuverifyError, OSError):
    """libgpuverify itself could not be loaded; the message names every place tried."""


class InvalidArgumentError(GpuverifyError, ValueError):
    status = -1


class VersionError(GpuverifyError):
    """A struct layout the library does not accept (GV_ERR_VERSION), or a binding newer than it."""
    status = -2


class NoMemoryError(GpuverifyError, MemoryError):
    status = -3


class NotFoundError(GpuverifyError, LookupError):
    status = -4


class IOFailureError(GpuverifyError, OSError):
    status = -5


class ParseError(GpuverifyError, ValueError):
    status = -6


class NvidiaLibraryError(GpuverifyError):
    """An NVIDIA library (libcuda, NVML, cuBLASLt, cuDNN, NCCL) is absent or unusable."""
    status = -7


class DriverError(GpuverifyError):
    status = -8


class DeadlineError(GpuverifyError, TimeoutError):
    """A deadline passed (GV_ERR_TIMEOUT); `result` holds what was measured, when any."""
    status = -9
    result = None


class UnsupportedError(GpuverifyError):
    status = -10


class InternalError(GpuverifyError):
    status = -11


class GpuBusyError(GpuverifyError):
    """Another gpuverify held the GPU for the whole wait (GV_ERR_BUSY); the message names it."""
    status = -12


BY_STATUS: Dict[int, Type[GpuverifyError]] = {
    cls.status: cls
    for cls in (InvalidArgumentError, VersionError, NoMemoryError, NotFoundError, IOFailureError,
                ParseError, NvidiaLibraryError, DriverError, DeadlineError, UnsupportedError,
                InternalError, GpuBusyError)
}


def for_status(status: int, message: str) -> GpuverifyError:
    return BY_STATUS.get(status, GpuverifyError)(message, status)
