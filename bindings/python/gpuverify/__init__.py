"""gpuverify: is this GPU node fit for work, and if not, what exactly is wrong?

A ctypes binding of libgpuverify (no compiled extension). Importing never loads the library:
the first call does, and raises LibraryNotFoundError naming where it looked when it cannot
($GPUVERIFY_LIBRARY, then the soname libgpuverify.so.1, then ctypes.util.find_library).

    import gpuverify
    with gpuverify.Context() as ctx:
        report = ctx.run("quick")
        print(report.verdict, [c.id for c in report.checks if c.verdict == "FAIL"])
"""
from .api import (Context, CheckResult, GemmResult, NcclResult, Outcome, Report, catalog,
                  version)
from .errors import (DeadlineError, DriverError, GpuBusyError, GpuverifyError, InternalError,
                     InvalidArgumentError, IOFailureError, LibraryNotFoundError, NoMemoryError,
                     NotFoundError, NvidiaLibraryError, ParseError, UnsupportedError, VersionError)

__version__ = "1.0.0"

__all__ = ["Context", "CheckResult", "GemmResult", "NcclResult", "Outcome", "Report", "catalog",
           "version", "GpuverifyError", "LibraryNotFoundError", "InvalidArgumentError",
           "VersionError", "NoMemoryError", "NotFoundError", "IOFailureError", "ParseError",
           "NvidiaLibraryError", "DriverError", "DeadlineError", "UnsupportedError",
           "InternalError", "GpuBusyError"]
