"""Finding and loading libgpuverify, lazily, with argtypes and restype on every function.

Search order: $GPUVERIFY_LIBRARY (a file), then the soname libgpuverify.so.1 through the
dynamic loader, then ctypes.util.find_library("gpuverify"). Nothing is loaded at import: the
first call that needs the library loads it, and a failure raises LibraryNotFoundError naming
every place tried."""
import ctypes as C
import ctypes.util
import os
import threading

from . import _structs as S
from .errors import LibraryNotFoundError, VersionError

SONAME = "libgpuverify.so.1"

_lock = threading.Lock()
_lib = None

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
    "gv_report_driver": (status, [report_p, P(S.DriverInfo)]),
    "gv_report_gpu_count": (C.c_uint32, [report_p]),
    "gv_report_gpu": (status, [report_p, C.c_uint32, P(S.Gpu)]),
    "gv_report_json": (status, [report_p, C.c_uint32, P(C.c_void_p)]),
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


def _candidates():
    """(how it was found, what to dlopen), in search order."""
    env = os.environ.get("GPUVERIFY_LIBRARY")
    if env:
        yield "$GPUVERIFY_LIBRARY", env
        return  # an explicit file is the only answer, as in the C library's search
    yield "soname", SONAME
    found = ctypes.util.find_library("gpuverify")
    if found and found != SONAME:
        yield "find_library", found


def _declare(lib):
    for name, (restype, argtypes) in PROTOTYPES.items():
        fn = getattr(lib, name)  # AttributeError: the library is older than this binding
        fn.restype = restype
        fn.argtypes = argtypes


def _check_layouts(lib):
    """Each mirror must be no larger than the library's struct (a larger one would hand the
    library fields it does not know); smaller is an older binding on a newer library: fine."""
    for mirror in S.MIRRORS:
        theirs = lib.gv_struct_size(mirror.c_name.encode())
        ours = C.sizeof(mirror)
        if theirs == 0 or ours > theirs:
            raise VersionError("%s: this binding's layout is %d bytes, the library's %d: the "
                               "binding is newer than libgpuverify %s" % (
                                   mirror.c_name, ours, theirs,
                                   lib.gv_version_string().decode()))


def lib():
    """The loaded library, loading it on first use."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for how, path in _candidates():
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
            return _lib
        raise LibraryNotFoundError("libgpuverify could not be loaded; tried: " + "; ".join(
            tried or ["nothing"]) + " (set GPUVERIFY_LIBRARY to the file)")


def text(value):
    """bytes from the library (char arrays, const char *) as str."""
    if value is None:
        return ""
    return value.decode("utf-8", "replace")
