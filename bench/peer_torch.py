#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch beside gpuverify on the same GPU, measured the same way as gv-gemm and bench_copy:
GEMM: random inputs, >= 1 s warm-up, 5 batches of >= 0.3 s timed with CUDA events, median and
best TFLOPS; torch.matmul for FP32 (TF32 off and on), FP16, BF16; torch._scaled_mm for FP8 E4M3
(A row-major, B column-major, unit scales, BF16 out).
Copies: 256 MiB pinned host buffer, 4 warm-up copies, samples of 16 copies between CUDA events,
median of 9; D2D counts read + write. Prints one JSON object."""
import json, statistics, sys, time
import torch

# "copies": the copies alone (bench/run_memtest.sh); otherwise the GEMM size.
ONLY_COPIES = sys.argv[1:2] == ["copies"]
SIZE = int(sys.argv[1]) if len(sys.argv) > 1 and not ONLY_COPIES else 8192
dev = torch.device("cuda:0")


def time_batches(fn, warmup_s=1.0, batch_s=0.3, batches=5):
    fn(); torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); fn(); end.record(); end.synchronize()
    est = start.elapsed_time(end) / 1e3
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < warmup_s:
        for _ in range(max(1, int(0.05 / est))):
            fn()
        torch.cuda.synchronize()
    per = max(1, int(batch_s / est))
    ms = []
    for _ in range(batches):
        start.record()
        for _ in range(per):
            fn()
        end.record(); end.synchronize()
        ms.append(start.elapsed_time(end) / per)
    return statistics.median(ms), min(ms)


def gemm(dtype_name):
    n = SIZE
    torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
    if dtype_name == "fp8":
        a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        dt = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
              "bf16": torch.bfloat16}[dtype_name]
        a = torch.randn(n, n, device=dev, dtype=dt)
        b = torch.randn(n, n, device=dev, dtype=dt)
        fn = lambda: torch.matmul(a, b)
    med, best = time_batches(fn)
    flop = 2.0 * n ** 3
    return {"dtype": dtype_name, "tflops_median": flop / (med * 1e-3) / 1e12,
            "tflops_best": flop / (best * 1e-3) / 1e12}


def copies(nbytes=256 << 20, samples=9, per=16):
    host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    host.random_(0, 255)
    d1 = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    d2 = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    out = {}
    for name, fn, factor in (("h2d", lambda: d1.copy_(host, non_blocking=True), 1),
                             ("d2h", lambda: host.copy_(d1, non_blocking=True), 1),
                             ("d2d", lambda: d2.copy_(d1), 2)):
        for _ in range(4):
            fn()
        torch.cuda.synchronize()
        rates = []
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(samples):
            start.record()
            for _ in range(per):
                fn()
            end.record(); end.synchronize()
            rates.append(nbytes * per * factor / (start.elapsed_time(end) * 1e-3) / 1e9)
        out[name + "_gbps"] = statistics.median(rates)
    return out


result = {"torch": torch.__version__, "cuda": torch.version.cuda,
          "cublas": getattr(torch.backends.cuda, "preferred_blas_library", lambda: "?")().name
          if hasattr(torch.backends.cuda, "preferred_blas_library") else "?",
          "gpu": torch.cuda.get_device_name(0), "size": SIZE,
          "gemm": [] if ONLY_COPIES else [gemm(d) for d in ("fp32", "tf32", "fp16", "bf16", "fp8")],
          "copy": copies()}
print(json.dumps(result))
