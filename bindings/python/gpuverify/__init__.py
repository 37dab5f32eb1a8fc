# SPDX-License-Identifier: Apache-2.0
"""gpuverify: is this GPU node fit for work, and if not, what exactly is wrong?

A ctypes binding of libgpuverify (no compiled extension). Importing never loads the library:
the first call does, and raises LibraryNotFoundError naming every place it looked
($GPUVERIFY_LIBRARY, the directory recorded at install, this interpreter's prefix,
ctypes.util.find_library, the soname libgpuverify.so.1).

    import gpuverify
    with gpuverify.Context() as ctx:
        report = ctx.run("quick")
        print(report.verdict, [(c.id, c.subject, c.message) for c in report.failures])
        # report.exit_code: 0 healthy, 1 FAIL, 3 could not judge, 4 GPUs held by another
"""
from .api import (EXIT_FAIL, EXIT_HEALTHY, EXIT_HELD, EXIT_UNJUDGED, EXIT_USAGE, Action,
                  CheckResult, Context, GemmResult, GpuResult, HeldBy, NcclResult, Outcome,
                  Policy, Report, Verdict, catalog, library_path, version)
from .errors import (ContextClosedError, DeadlineError, DriverError, GpuBusyError,
                     GpuverifyError, InternalError, InvalidArgumentError, IOFailureError,
                     LibraryNotFoundError, NoMemoryError, NotFoundError, NvidiaLibraryError,
                     ParseError, UnsupportedError, VersionError)

__version__ = "1.0.0"  # this package's; version() is the loaded library's

__all__ = ["Action", "Context", "CheckResult", "GemmResult", "GpuResult", "HeldBy", "NcclResult",
           "Outcome", "Policy", "Report", "Verdict", "catalog", "library_path", "version",
           "EXIT_HEALTHY", "EXIT_FAIL", "EXIT_USAGE", "EXIT_UNJUDGED", "EXIT_HELD",
           "GpuverifyError", "LibraryNotFoundError", "InvalidArgumentError", "ContextClosedError",
           "VersionError", "NoMemoryError", "NotFoundError", "IOFailureError", "ParseError",
           "NvidiaLibraryError", "DriverError", "DeadlineError", "UnsupportedError",
           "InternalError", "GpuBusyError"]
