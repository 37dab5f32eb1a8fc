# SPDX-License-Identifier: Apache-2.0
"""Summarises a bench/run_nccl.sh output directory: peak busbw per run (median of the rounds)
for gv-nccl in one process, under mpirun, with PyTorch's own libnccl, and for
torch.distributed.all_reduce; ratios to the peer; and busbw per size at the large sizes.
Usage: python3 bench/summarize_nccl.py OUTDIR"""
import json
import statistics
import sys
from pathlib import Path

RUNS = [("gv-nccl, 1 process, node's libnccl", "gv_local"),
        ("gv-nccl, mpirun 1 rank/GPU, node's libnccl", "gv_mpi"),
        ("gv-nccl, 1 process, PyTorch's libnccl", "gv_local_torchnccl"),
        ("torch.distributed.all_reduce (torchrun)", "torch")]


def load(out, prefix):
    runs = []
    for path in sorted(out.glob(prefix + "_[0-9].json")):
        text = path.read_text().strip()
        try:
            runs.append(json.loads(text))  # gv-nccl: one object over several lines
        except json.JSONDecodeError:
            runs.append(json.loads(text.splitlines()[-1]))  # torchrun: the last line
    return runs


def main():
    out = Path(sys.argv[1])
    data = {prefix: load(out, prefix) for _, prefix in RUNS}
    peer = statistics.median(r["peak_busbw_gbps"] for r in data["torch"])
    print("| run | NCCL | peak busbw per round (GB/s) | median | at | ratio to torch |")
    print("|---|---|---|---|---|---|")
    for label, prefix in RUNS:
        runs = data[prefix]
        if not runs:
            continue
        peaks = [r["peak_busbw_gbps"] for r in runs]
        med = statistics.median(peaks)
        version = runs[0].get("nccl_version") or runs[0].get("nccl")
        wrong = sum(r.get("wrong_elements", 0) for r in runs) + sum(
            s.get("wrong", 0) for r in runs for s in r["sizes"] if prefix == "torch")
        verdicts = ",".join(sorted({r.get("verdict", "-") for r in runs}))
        print("| %s | %s | %s | **%.1f** | %d MiB | %.3f (%s, %d wrong) |" % (
            label, version, ", ".join("%.1f" % p for p in peaks), med,
            runs[0]["peak_bytes"] >> 20, med / peer, verdicts, wrong))
    print()
    print("busbw (GB/s) per size, median of the rounds:")
    print()
    sizes = [s["bytes"] for s in data["torch"][0]["sizes"] if s["bytes"] >= 1 << 20]
    print("| size | " + " | ".join(p for _, p in RUNS if data[p]) + " |")
    print("|---" * (1 + sum(1 for _, p in RUNS if data[p])) + "|")
    for size in sizes:
        cells = []
        for _, prefix in RUNS:
            if not data[prefix]:
                continue
            vals = [s["busbw_gbps"] for r in data[prefix] for s in r["sizes"] if s["bytes"] == size]
            cells.append("%.1f" % statistics.median(vals) if vals else "-")
        print("| %d MiB | %s |" % (size >> 20, " | ".join(cells)))


if __name__ == "__main__":
    main()
