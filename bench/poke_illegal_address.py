#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A program error a real GPU reports as an Xid: one CUDA thread stores to an address no
allocation holds. The driver logs Xid 31 (MMU fault) for the process and ends its context; the
GPU itself is unharmed and no setting changes. bench/run_xid_watch.sh uses it to give
gv-check --watch a real Xid to see. Usage: poke_illegal_address.py [CUDA_DEVICE]"""
import ctypes
import sys

PTX = b"""
.version 7.0
.target sm_80
.address_size 64
.visible .entry poke(.param .u64 where)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [where];
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""


def main():
    cuda = ctypes.CDLL("libcuda.so.1")

    def call(name, *args):
        rc = getattr(cuda, name)(*args)
        return rc

    dev, ctx, mod, fn = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    for name, args in (("cuInit", (0,)),
                       ("cuDeviceGet", (ctypes.byref(dev), int(sys.argv[1]) if len(sys.argv) > 1 else 0)),
                       ("cuDevicePrimaryCtxRetain", (ctypes.byref(ctx), dev)),
                       ("cuCtxSetCurrent", (ctx,)),
                       ("cuModuleLoadData", (ctypes.byref(mod), ctypes.c_char_p(PTX))),
                       ("cuModuleGetFunction", (ctypes.byref(fn), mod, b"poke"))):
        rc = call(name, *args)
        if rc:
            print("%s: CUresult %d" % (name, rc))
            return 2
    where = ctypes.c_uint64(0x100)  # the first page: never mapped
    params = (ctypes.c_void_p * 1)(ctypes.addressof(where))
    rc = cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, params, None)
    sync = cuda.cuCtxSynchronize()
    print("cuLaunchKernel: %d, cuCtxSynchronize: %d (700 = CUDA_ERROR_ILLEGAL_ADDRESS)" % (rc, sync))
    return 0 if sync == 700 else 1


if __name__ == "__main__":
    sys.exit(main())
