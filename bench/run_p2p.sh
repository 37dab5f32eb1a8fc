#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 15's bandwidth bars on a machine with two GPUs or more (written for nvidia-h200-x2):
# cuda.p2p and cuda.copy_all at benchmark length beside PyTorch's GPU-to-GPU copy of the same
# size, three alternating rounds; each round also every GPU copying to and from the host at
# once through PyTorch (peer_torch_copy_all.py), cuda.copy_all's peer.
# Usage: bench/run_p2p.sh BINDIR OUTDIR   (BINDIR holds gv-check)
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$out/env.txt" 2>&1
for round in 1 2 3; do
    "$bin/gv-check" --level extended --checks cuda.copy,cuda.copy_all,cuda.p2p --json \
        >"$out/gv_$round.json" 2>"$out/gv_$round.err"
    python3 "$here/peer_torch_p2p.py" 256 >"$out/torch_$round.json" 2>"$out/torch_$round.err"
    python3 "$here/peer_torch_copy_all.py" 256 >"$out/torch_copy_all_$round.json" \
        2>"$out/torch_copy_all_$round.err"
done
python3 - "$out" <<'PY'
import json, os, re, statistics, sys
out = sys.argv[1]
for r in (1, 2, 3):
    gv = json.load(open(os.path.join(out, "gv_%d.json" % r)))
    th = json.load(open(os.path.join(out, "torch_%d.json" % r)))
    ours = {}
    for c in gv["checks"]:
        if c["id"] == "cuda.p2p" and c["subject"].startswith("gpu"):
            src = int(re.match(r"gpu(\d+)", c["subject"]).group(1))
            for dst, rate in re.findall(r"gpu(\d+) ([0-9.]+)", c["message"]):
                ours[(src, int(dst))] = float(rate)
        if c["id"] in ("cuda.copy", "cuda.copy_all"):
            print("round %d %s %s: %s" % (r, c["id"], c["subject"], c["message"]))
    try:
        ca = json.load(open(os.path.join(out, "torch_copy_all_%d.json" % r)))
        print("round %d PyTorch, every GPU at once: H2D %.1f, D2H %.1f GB/s in all; per GPU %s" % (
            r, ca["h2d_total"], ca["d2h_total"],
            ", ".join("gpu%d %.1f/%.1f" % (g["gpu"], g["h2d"], g["d2h"]) for g in ca["gpus"])))
    except (OSError, ValueError, KeyError) as e:
        print("round %d PyTorch copy_all: %s" % (r, e))
    for p in th["pairs"]:
        mine = ours.get((p["src"], p["dst"]))
        print("round %d gpu%d -> gpu%d: ours %s GB/s, PyTorch %.1f GB/s, ratio %s (bar >= 0.98)" % (
            r, p["src"], p["dst"], mine, p["gbps"], "%.3f" % (mine / p["gbps"]) if mine else "-"))
PY
