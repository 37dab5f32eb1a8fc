#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compares `gv-topo` with `nvidia-smi topo -m` cell for cell: every GPU row's GPU columns
(classes or NV#), CPU Affinity and NUMA Affinity (NIC columns when both print them).
Usage: compare_topo.py NVIDIA_SMI_OUTPUT GV_TOPO_OUTPUT; exit 1 on any mismatch."""
import re, sys


def matrix(path):
    text = re.sub(r"\x1b\[[0-9;]*m", "", open(path).read())  # nvidia-smi underlines the header
    rows, header = {}, None
    for line in text.splitlines():
        if line.startswith("\t") and "CPU Affinity" in line:
            header = [c.strip() for c in line.strip("\t").split("\t") if c.strip()]
            continue
        if header and re.match(r"^(GPU|NIC)\d+\t", line):
            cells = [c.strip() for c in line.split("\t")]
            name, values = cells[0], [c for c in cells[1:] if c != ""]
            rows[name] = dict(zip(header, values))
        elif header and not line.strip():
            if rows:
                break
    return rows


smi, ours = matrix(sys.argv[1]), matrix(sys.argv[2])
bad = compared = 0
for row, cols in sorted(smi.items()):
    if not row.startswith("GPU"):
        continue
    for col, want in cols.items():
        if col == "GPU NUMA ID" or (col.startswith("NIC") and col not in ours.get(row, {})):
            continue
        got = ours.get(row, {}).get(col)
        compared += 1
        if got != want:
            bad += 1
            print("MISMATCH %s/%s: nvidia-smi %r, gv-topo %r" % (row, col, want, got))
print("%d cells compared, %d mismatches" % (compared, bad))
sys.exit(1 if bad or not compared else 0)
