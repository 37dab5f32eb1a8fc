#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Which NVLink field values NVML gives on this machine's GPUs, and their values: every
NVML_FI_DEV_NVLINK_* ID the installed nvml.h defines, asked per GPU for the device (scope 0)
and, for the per-link counters, for each active link (scope = the link). Prints one line per
field: its name and ID, then per GPU the nvmlReturn_t (0 success, 3 NOT_SUPPORTED) and the
values. Usage: probe_nvlink_fields.py [nvml.h]   (default: found under /usr/local/cuda*)"""
import ctypes as C
import glob
import re
import sys


class Value(C.Union):
    _fields_ = [("d", C.c_double), ("ui", C.c_uint), ("ul", C.c_ulong), ("ull", C.c_ulonglong),
                ("sll", C.c_longlong), ("si", C.c_int), ("us", C.c_ushort)]


class FieldValue(C.Structure):
    _fields_ = [("fieldId", C.c_uint), ("scopeId", C.c_uint), ("timestamp", C.c_longlong),
                ("latencyUsec", C.c_longlong), ("valueType", C.c_int), ("nvmlReturn", C.c_int),
                ("value", Value)]


def value_of(f):
    t = f.valueType
    return {0: f.value.d, 1: f.value.ui, 2: f.value.ul, 3: f.value.ull, 4: f.value.sll,
            5: f.value.si, 6: f.value.us}.get(t, "type%d" % t)


def main():
    header = sys.argv[1] if len(sys.argv) > 1 else \
        (sorted(glob.glob("/usr/local/cuda*/include/nvml.h")) +
         sorted(glob.glob("/usr/local/cuda*/targets/*/include/nvml.h")) + ["/usr/include/nvml.h"])[0]
    text = open(header).read()
    fields = [(m.group(1), int(m.group(2))) for m in
              re.finditer(r"#define\s+(NVML_FI_DEV_NVLINK_\w+)\s+(\d+)", text)]
    print("header", header, "fields", len(fields))
    nv = C.CDLL("libnvidia-ml.so.1")
    assert nv.nvmlInit_v2() == 0
    n = C.c_uint()
    nv.nvmlDeviceGetCount_v2(C.byref(n))
    devs = []
    for i in range(n.value):
        d = C.c_void_p()
        nv.nvmlDeviceGetHandleByIndex_v2(i, C.byref(d))
        active = []
        for link in range(18):
            st = C.c_int(0)
            if nv.nvmlDeviceGetNvLinkState(d, link, C.byref(st)) == 0 and st.value:
                active.append(link)
        devs.append((d, active))
        print("gpu%d active links %s" % (i, active))
    supported = 0
    for name, fid in fields:
        per_gpu = []
        for d, active in devs:
            scopes = [0] + [l for l in active if l != 0]
            arr = (FieldValue * len(scopes))()
            for k, s in enumerate(scopes):
                arr[k].fieldId, arr[k].scopeId = fid, s
            rc = nv.nvmlDeviceGetFieldValues(d, len(scopes), arr)
            rets = sorted(set(a.nvmlReturn for a in arr))
            vals = [value_of(a) for a in arr if a.nvmlReturn == 0]
            shown = vals[:1] if len(set(map(str, vals))) <= 1 else vals[:4]
            per_gpu.append("rc=%d ret=%s vals=%s" % (rc, rets, shown))
            supported += 0 in rets
        print("%-60s %4d  %s" % (name, fid, " | ".join(per_gpu)))
    print("fields with any value:", supported)
    return 0


if __name__ == "__main__":
    sys.exit(main())
