#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compares every inventory field gv-check prints with nvidia-smi on the same GPUs, and times
gv-check's driver-and-inventory run against `nvidia-smi --query-gpu` for the same fields.

usage: compare_nvidia_smi.py GV_CHECK [RUNS]   (on a machine with NVIDIA GPUs)
Prints a per-field comparison, then the timing medians; exits 1 on any mismatch.
"""
import json
import re
import statistics
import subprocess
import sys
import time

FIELDS = ["name", "uuid", "serial", "pci.bus_id", "driver_version", "memory.total",
          "compute_cap", "persistence_mode", "ecc.mode.current", "mig.mode.current", "power.limit",
          "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current",
          "pcie.link.width.max", "vbios_version"]
SMI = ["nvidia-smi", "--query-gpu=" + ",".join(FIELDS), "--format=csv,noheader,nounits"]


def norm_bus(b):
    d, rest = b.lower().split(":", 1)
    return "%04x:%s" % (int(d, 16), rest)


def enabled(v):
    return {1: "Enabled", 0: "Disabled"}.get(v, "[N/A]")


def ours(g, d):
    cc = g["compute_capability"]
    return {"name": g["name"], "uuid": g["uuid"], "serial": g["serial"] or "[N/A]",
            "pci.bus_id": norm_bus(g["pci_bus_id"]), "driver_version": d["driver_version"],
            "memory.total": str(g["memory_total_bytes"] >> 20), "compute_cap": cc,
            "persistence_mode": enabled(g["persistence_mode"]),
            "ecc.mode.current": enabled(g["ecc_current"]),
            "mig.mode.current": enabled(g["mig_current"]),
            "power.limit": "%.2f" % (g["power_limit_mw"] / 1000.0),
            "pcie.link.gen.current": str(g["pcie_gen_current"]),
            "pcie.link.gen.max": str(g["pcie_gen_max"]),
            "pcie.link.width.current": str(g["pcie_width_current"]),
            "pcie.link.width.max": str(g["pcie_width_max"]), "vbios_version": g["vbios"]}


def cuda_version_smi():
    head = subprocess.run(["nvidia-smi"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"CUDA Version:\s*([0-9.]+)", head)
    return m.group(1) if m else None


def timed(cmd, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def main():
    gv = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    report = json.loads(subprocess.run([gv, "--json"], capture_output=True, text=True).stdout)
    smi = subprocess.run(SMI, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    bad = 0
    d = report["driver"]
    ncv = d["nvml_cuda_version"]
    gv_cuda = "%d.%d" % (ncv // 1000, (ncv % 1000) // 10)
    smi_cuda = cuda_version_smi()
    print("%-26s %-44s %-44s %s" % ("field", "gv-check", "nvidia-smi", "same"))
    print("%-26s %-44s %-44s %s" % ("CUDA Version", gv_cuda, smi_cuda, gv_cuda == smi_cuda))
    bad += gv_cuda != smi_cuda
    by_bus = {norm_bus(g["pci_bus_id"]): g for g in report["gpus"]}
    for line in smi:
        theirs = dict(zip(FIELDS, [v.strip() for v in line.split(",")]))
        theirs["pci.bus_id"] = norm_bus(theirs["pci.bus_id"])
        g = by_bus.get(theirs["pci.bus_id"])
        if g is None:
            print("GPU %s: not in gv-check's inventory" % theirs["pci.bus_id"])
            bad += 1
            continue
        mine = ours(g, d)
        for f in FIELDS:
            same = mine[f] == theirs[f]
            bad += not same
            print("%-26s %-44s %-44s %s" % ("gpu%d %s" % (g["index"], f), mine[f], theirs[f], same))
    inventory = [gv, "--json", "--checks", "^driver.cuda"]
    gv_t = timed(inventory, runs)
    full_t = timed([gv, "--json"], runs)
    smi_t = timed(SMI, runs)
    print("\ntiming, %d runs each (median, min), seconds:" % runs)
    print("  gv-check --json --checks ^driver.cuda (driver + inventory, no CUDA): %.4f  %.4f" % gv_t)
    print("  gv-check --json (everything, with cuInit):                          %.4f  %.4f" % full_t)
    print("  nvidia-smi --query-gpu=<same fields>:                               %.4f  %.4f" % smi_t)
    print("  ratio inventory run / nvidia-smi (median): %.2f (bar: <= 2.0)" % (gv_t[0] / smi_t[0]))
    print("\nmismatches: %d" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
