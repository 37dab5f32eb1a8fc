# SPDX-License-Identifier: Apache-2.0
# A typical PyTorch GPU health-check script, as node setup guides give it: six checks (driver,
# runtime, VRAM allocation, FP16 matmul, cuDNN, a matmul benchmark) in one process, as a user runs
# them. The peer for time to verdict: run it beside `gv-check` on the same GPU machine.
import subprocess, time
t0 = time.perf_counter()
subprocess.run(["nvidia-smi"], check=True, capture_output=True)                       # 1 driver
import torch                                                                           # 2 runtime
assert torch.cuda.is_available()
x = torch.rand((1000, 1000), device="cuda")                                            # 3 VRAM allocation
x = torch.randn((4096, 4096), device="cuda", dtype=torch.float16); y = x @ x           # 4 FP16 matmul
import torch.backends.cudnn as cudnn; assert cudnn.enabled and cudnn.version()         # 5 cuDNN
x = torch.randn((8000, 8000), device="cuda"); torch.cuda.synchronize()                 # 6 matmul benchmark
t = time.time(); y = x @ x; torch.cuda.synchronize(); ms = (time.time() - t) * 1000
print(f"seed 8000^2 fp32 single-shot: {ms:.1f} ms = {2*8000**3/(ms/1e3)/1e12:.1f} TFLOPS; total {time.perf_counter()-t0:.2f} s in-process")
