# SPDX-License-Identifier: Apache-2.0
# What NVML and CUDA enumerate in this process, by their own calls (ctypes): the peer for
# bench/run_reach.sh. Prints one dict: nvmlInit_v2, nvmlDeviceGetCount(_v2), each handle's result,
# cuInit and cuDeviceGetCount.
import ctypes
out = {}
try:
    nv = ctypes.CDLL("libnvidia-ml.so.1")
    out["nvmlInit_v2"] = nv.nvmlInit_v2()
    c = ctypes.c_uint(0)
    out["count_v2"] = nv.nvmlDeviceGetCount_v2(ctypes.byref(c)); out["count"] = c.value
    hs = []
    for i in range(c.value):
        h = ctypes.c_void_p()
        rc = nv.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h))
        bus = ctypes.create_string_buffer(64)
        if rc == 0:
            class P(ctypes.Structure):
                _fields_ = [("a", ctypes.c_char * 16), ("d", ctypes.c_uint), ("b", ctypes.c_uint), ("dv", ctypes.c_uint), ("id", ctypes.c_uint), ("sub", ctypes.c_uint), ("r", ctypes.c_uint * 4), ("bus", ctypes.c_char * 32)]
            p = P(); prc = nv.nvmlDeviceGetPciInfo_v3(h, ctypes.byref(p)); hs.append((i, rc, prc, p.bus.decode()))
        else:
            hs.append((i, rc))
    out["handles"] = hs
    c1 = ctypes.c_uint(0)
    out["count_v1"] = (nv.nvmlDeviceGetCount(ctypes.byref(c1)), c1.value)
except OSError as e:
    out["nvml"] = str(e)
try:
    cu = ctypes.CDLL("libcuda.so.1")
    out["cuInit"] = cu.cuInit(0)
    n = ctypes.c_int(-1); out["cuDeviceGetCount"] = (cu.cuDeviceGetCount(ctypes.byref(n)), n.value)
except OSError as e:
    out["cuda"] = str(e)
print(out)
