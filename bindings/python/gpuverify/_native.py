# SPDX-License-Identifier: Apache-2.0
"""Finding and loading libgpuverify, lazily, with argtypes and restype on every function.

Where the library is looked for, in this order (the first that loads is used):

1. ``$GPUVERIFY_LIBRARY``: a file. When set, it is the only place tried, so that a wrong path
   is an error rather than another copy of the library loaded silently.
2. The installed prefix: the directory recorded when the package was built
   (``GPUVERIFY_INSTALL_LIBDIR`` at ``pip install`` time, see
   build_backend/gpuverify_build.py), then the lib directories of this interpreter's prefix (``sys.prefix``: a virtual environment's or
   ``--prefix``'s ``lib/<multiarch>``, ``lib``, ``lib64``), where ``cmake --install --prefix``
   with the same prefix puts it.
3. ``ctypes.util.find_library("gpuverify")`` (ldconfig's cache, the compiler's and linker's
   search paths).
4. The soname ``libgpuverify.so.1`` through the dynamic loader (``LD_LIBRARY_PATH``, the
   executable's RUNPATH, ``/etc/ld.so.conf``, the system directories).

Nothing is loaded at import: the first call that needs the library loads it, and a failure
raises LibraryNotFoundError naming every place tried and why each did not do."""
import ctypes as C
import ctypes.util
import os
import sys
import sysconfig
import threading

from . import _structs as S
from .errors import LibraryNotFoundError, VersionError

SONAME = "libgpuverify.so.1"

_lock = threading.Lock()
_lib = None
_sizes = {}  # struct name: its size in the loaded library
_found = []  # [how, what was opened] of the loaded library

ctx_p = C.c_void_p
report_p = C.c_void_p
status = C.c_int32
P = C.POINTER

# name: (restype, argtypes). Opaque objects (contexts, reports, topologies, RDMA reports) and
# structs this binding does not mirror travel as void pointers.
PROTOTYPES = {
    "gv_version_number": (C.c_uint32, []),
    "gv_version_string": (C.c_char_p, []),
    "gv_strerror": (C.c_char_p, [status]),
    "gv_free": (None, [C.c_void_p]),
    "gv_struct_size": (C.c_uint32, [C.c_char_p]),
    "gv_ctx_create": (status, [P(S.CtxOpts), P(ctx_p)]),
    "gv_ctx_destroy": (None, [ctx_p]),
    "gv_ctx_last_error": (C.c_char_p, [ctx_p]),
    "gv_library_status": (status, [ctx_p, C.c_int32, P(S.LibraryInfo)]),
    "gv_check_driver": (status, [ctx_p, P(S.DriverInfo)]),
    "gv_gpu_info": (status, [ctx_p, C.c_uint32, P(S.Gpu)]),
    "gv_catalog_count": (C.c_uint32, []),
    "gv_catalog_id": (C.c_char_p, [C.c_uint32]),
    "gv_level_name": (C.c_char_p, [C.c_int32]),
    "gv_verdict_name": (C.c_char_p, [C.c_int32]),
    "gv_dtype_name": (C.c_char_p, [C.c_int32]),
    "gv_path_name": (C.c_char_p, [C.c_int32]),
    "gv_nccl_collective_name": (C.c_char_p, [C.c_int32]),
    "gv_policy_parse": (status, [ctx_p, C.c_char_p, P(S.Policy)]),
    "gv_policy_load": (status, [ctx_p, C.c_char_p, P(S.Policy)]),
    "gv_run": (status, [ctx_p, P(S.RunOpts), P(report_p)]),
    "gv_report_free": (None, [report_p]),
    "gv_report_count": (C.c_uint32, [report_p]),
    "gv_report_result": (status, [report_p, C.c_uint32, P(S.CheckResult)]),
    "gv_report_verdict": (C.c_int32, [report_p]),
    "gv_report_line": (C.c_int32, [report_p, C.c_char_p, C.c_uint32]),
    "gv_report_driver": (status, [report_p, P(S.DriverInfo)]),
    "gv_report_gpu_count": (C.c_uint32, [report_p]),
    "gv_report_gpu": (status, [report_p, C.c_uint32, P(S.Gpu)]),
    "gv_report_json": (status, [report_p, C.c_uint32, P(C.c_void_p)]),
    "gv_history_json": (status, [ctx_p, C.c_char_p, P(S.HistoryOpts), P(C.c_void_p)]),
    "gv_report_prometheus": (status, [report_p, C.c_uint32, P(C.c_void_p)]),
    "gv_report_from_json": (status, [ctx_p, C.c_char_p, P(report_p)]),
    "gv_cuda_check": (status, [ctx_p, C.c_uint32, P(S.CudaOpts), P(S.CudaResult)]),
    "gv_mem_test": (status, [ctx_p, C.c_uint32, P(S.MemtestOpts), P(S.MemtestResult)]),
    "gv_stress_gemm": (status, [ctx_p, P(S.StressOpts), P(S.StressResult)]),
    "gv_gemm_bench": (status, [ctx_p, C.c_uint32, P(S.GemmOpts), P(S.GemmResult)]),
    "gv_cudnn_check": (status, [ctx_p, C.c_uint32, P(S.CudnnResult)]),
    "gv_nccl_bench": (status, [ctx_p, P(S.NcclOpts), P(S.NcclResult)]),
    "gv_nccl_unique_id": (status, [ctx_p, P(S.NcclId)]),
    "gv_nccl_bench_rank": (status, [ctx_p, P(S.NcclId), C.c_int32, C.c_int32, C.c_uint32,
                                    P(S.NcclOpts), P(S.NcclResult)]),
    "gv_topology": (status, [ctx_p, C.c_void_p, P(C.c_void_p)]),
    "gv_topo_free": (None, [C.c_void_p]),
    "gv_topo_summary": (status, [C.c_void_p, C.c_void_p]),
    "gv_topo_device_count": (C.c_uint32, [C.c_void_p]),
    "gv_topo_device_at": (status, [C.c_void_p, C.c_uint32, C.c_void_p]),
    "gv_topo_link_at": (status, [C.c_void_p, C.c_uint32, C.c_uint32, C.c_void_p]),
    "gv_rdma_status": (status, [ctx_p, C.c_void_p, P(C.c_void_p)]),
    "gv_rdma_free": (None, [C.c_void_p]),
    "gv_rdma_summary": (status, [C.c_void_p, C.c_void_p]),
    "gv_rdma_module_at": (status, [C.c_void_p, C.c_uint32, C.c_void_p]),
    "gv_rdma_device_at": (status, [C.c_void_p, C.c_uint32, C.c_void_p]),
    "gv_rdma_port_at": (status, [C.c_void_p, C.c_uint32, C.c_void_p]),
    "gv_rdma_gid_at": (status, [C.c_void_p, C.c_uint32, C.c_void_p]),
    "gv_rdma_setting_at": (status, [C.c_void_p, C.c_uint32, C.c_void_p]),
}


def _configured_dirs():
    """The library directory recorded at build time (gpuverify/_config.py), if any."""
    try:
        from . import _config
    except ImportError:
        return []
    return [d for d in getattr(_config, "LIBRARY_DIRS", []) if d]


def _prefix_dirs():
    """The lib directories of this interpreter's prefix (a virtual environment's, or the one
    Python was installed to), most specific first."""
    dirs, seen = [], set()
    multiarch = sysconfig.get_config_var("MULTIARCH")
    for prefix in dict.fromkeys([sys.prefix, sys.exec_prefix]):
        for d in ([os.path.join(prefix, "lib", multiarch)] if multiarch else []) + \
                [os.path.join(prefix, "lib"), os.path.join(prefix, "lib64")]:
            if os.path.realpath(d) not in seen:  # a venv's lib64 is a link to its lib
                seen.add(os.path.realpath(d))
                dirs.append(d)
    return dirs


def _candidates():
    """(how it was found, what to dlopen, why it was skipped or None), in search order."""
    env = os.environ.get("GPUVERIFY_LIBRARY")
    if env:
        yield "$GPUVERIFY_LIBRARY", env, None
        return  # an explicit file is the only answer, as in the C library's search
    seen = set()
    for how, dirs in (("configured", _configured_dirs()), ("prefix", _prefix_dirs())):
        for d in dirs:
            path = os.path.join(d, SONAME)
            if path in seen:
                continue
            seen.add(path)
            yield how, path, None if os.path.exists(path) else "no such file"
    found = ctypes.util.find_library("gpuverify")
    if found:
        yield "find_library", found, None
    else:
        yield "find_library", "gpuverify", "found nothing"
    if found != SONAME:
        yield "soname", SONAME, None


def _declare(lib):
    for name, (restype, argtypes) in PROTOTYPES.items():
        fn = getattr(lib, name)  # AttributeError: the library is older than this binding
        fn.restype = restype
        fn.argtypes = argtypes


def _check_layouts(lib):
    """Each mirror must be no larger than the library's struct: a larger one would hand the
    library fields it does not know. Smaller is an older binding on a newer library: fine. A
    struct the library only writes (a result) may be larger down to its `c_min_size`: the
    library fills what it knows and the binding's defaults stand for the rest (ABI.md: the
    library copies min(struct_size, its own size) out)."""
    for mirror in S.MIRRORS:
        theirs = lib.gv_struct_size(mirror.c_name.encode())
        ours = C.sizeof(mirror)
        needed = getattr(mirror, "c_min_size", ours)
        _sizes[mirror.c_name] = theirs
        if theirs == 0 or needed > theirs:
            raise VersionError("%s: this binding's layout is %d bytes, the library's %d: the "
                               "binding is newer than libgpuverify %s" % (
                                   mirror.c_name, needed, theirs,
                                   lib.gv_version_string().decode()))


def struct_size(c_name):
    """The size of a struct in the loaded library (0: unknown to it)."""
    lib()
    return _sizes.get(c_name, 0)


def knows_field(mirror, field):
    """Whether the loaded library's layout of `mirror` reaches `field` (an older library's
    is shorter: the field then keeps the binding's default)."""
    return struct_size(mirror.c_name) >= getattr(mirror, field).offset + getattr(mirror, field).size


class _DlInfo(C.Structure):
    _fields_ = [("dli_fname", C.c_char_p), ("dli_fbase", C.c_void_p),
                ("dli_sname", C.c_char_p), ("dli_saddr", C.c_void_p)]


def library_path():
    """The file the library was loaded from (dladdr), else what was opened."""
    handle = lib()
    try:
        dladdr = C.CDLL(None).dladdr
        dladdr.argtypes = [C.c_void_p, C.POINTER(_DlInfo)]
        dladdr.restype = C.c_int
        info = _DlInfo()
        if dladdr(C.cast(handle.gv_version_string, C.c_void_p), C.byref(info)) and \
                info.dli_fname:
            return os.path.abspath(info.dli_fname.decode())
    except (AttributeError, OSError):
        pass
    return _found[1] if _found else handle._name


def library_found_by():
    """How the loaded library was found: "$GPUVERIFY_LIBRARY", "configured", "prefix",
    "find_library" or "soname"."""
    lib()
    return _found[0] if _found else ""


def lib():
    """The loaded library, loading it on first use."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for how, path, skipped in _candidates():
            if skipped:
                tried.append("%s %s: %s" % (how, path, skipped))
                continue
            try:
                handle = C.CDLL(path)
            except OSError as e:
                tried.append("%s %s: %s" % (how, path, e))
                continue
            try:
                _declare(handle)
            except AttributeError as e:
                tried.append("%s %s: not a usable libgpuverify (%s)" % (how, path, e))
                continue
            _check_layouts(handle)
            _lib = handle
            _found[:] = [how, path]
            return _lib
        raise LibraryNotFoundError("libgpuverify could not be loaded; tried, in order: " +
                                   "; ".join(tried or ["nothing"]) +
                                   " (set GPUVERIFY_LIBRARY to the file)")


def text(value):
    """bytes from the library (char arrays, const char *) as str."""
    if value is None:
        return ""
    return value.decode("utf-8", "replace")
