#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every health counter gv-check reports against `nvidia-smi -q -d ECC,ROW_REMAPPER,
PAGE_RETIREMENT,PERFORMANCE,TEMPERATURE` on the same GPU (issue 15's bar: 0 mismatches).

usage: compare_health.py GV_CHECK_JSON NVIDIA_SMI_Q_TEXT [GPU_SUBJECT]
Given the whole `nvidia-smi -q`, the GPU's recovery action is compared too.
Prints one line per counter (nvidia-smi's name, its value, ours, same/DIFFERENT) and exits 1
on any mismatch. "N/A" in nvidia-smi equals "–" (unknown) in gv-check. Clock-event times are
compared at the precision gv-check prints (0.1 s)."""
import json
import re
import sys


def smi_tree(text):
    """nvidia-smi -q text into {path: value}, path = section names joined by '/'."""
    out, stack = {}, []
    for line in text.splitlines():
        if not line.strip() or line.startswith("="):
            continue
        indent = len(line) - len(line.lstrip())
        m = re.match(r"^\s*(.*?)\s+:\s*(.*)$", line)
        name, value = (m.group(1), m.group(2).strip()) if m else (line.strip(), "")
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = "/".join([s[1] for s in stack] + [name])
        if m:
            out[path] = value
        else:
            stack.append((indent, name))
    return out


def rows_of(report, subject):
    return {r["id"]: r["message"] for r in report["checks"] if r["subject"] == subject}


def grab(message, pattern):
    m = re.search(pattern, message or "")
    return m.group(1) if m else None


def same_count(smi, ours):
    if smi is None or ours is None:
        return False
    if smi in ("N/A", "Not Supported"):
        return ours == "–"
    return re.sub(r"\s*(bank\(s\)|C)$", "", smi) == ours


def main():
    report = json.load(open(sys.argv[1]))
    text = open(sys.argv[2]).read()
    subject = sys.argv[3] if len(sys.argv) > 3 else "gpu0"
    smi = smi_tree(text)
    gpu = next(k.split("/")[0] for k in smi if k.startswith("GPU "))
    s = lambda path: smi.get(gpu + "/" + path)
    rows = rows_of(report, subject)
    ecc = rows.get("gpu.ecc_errors", "")
    vol, _, agg = ecc.partition("; aggregate:")
    remap = rows.get("gpu.row_remap", "")
    repair = rows.get("gpu.memory_repair", "")
    retired = rows.get("gpu.retired_pages", "")
    temp = rows.get("gpu.temperature", "")
    clocks = rows.get("gpu.clock_events", "")
    n = r"(–|-?\d+)"
    yes_no = lambda v: {"yes": "Yes", "no": "No"}.get(v, v)
    pairs = []
    for part, label in ((vol, "Volatile"), (agg, "Aggregate")):
        pairs += [
            ("ECC Errors/%s/SRAM Correctable" % label, grab(part, r"SRAM correctable " + n)),
            ("ECC Errors/%s/SRAM Uncorrectable Parity" % label, grab(part, r"uncorrectable parity " + n)),
            ("ECC Errors/%s/SRAM Uncorrectable SEC-DED" % label, grab(part, r"SEC-DED " + n)),
            ("ECC Errors/%s/DRAM Correctable" % label, grab(part, r"DRAM correctable " + n)),
            ("ECC Errors/%s/DRAM Uncorrectable" % label, grab(part, r"DRAM correctable [^,]+, uncorrectable " + n)),
        ]
    for src, ours in (("SRAM L2", "L2"), ("SRAM SM", "SM"), ("SRAM Microcontroller", "microcontroller"),
                      ("SRAM PCIE", "PCIe"), ("SRAM Other", "other")):
        pairs.append(("ECC Errors/Aggregate Uncorrectable SRAM Sources/" + src,
                      grab(agg, r"by source:.*?\b%s %s" % (ours, n))))
    pairs.append(("ECC Errors/Aggregate/SRAM Threshold Exceeded",
                  yes_no(grab(agg, r"SRAM threshold exceeded: (\S+)"))))
    pairs += [
        ("ECC Errors/Channel Repair Pending", yes_no(grab(repair, r"channel repair pending: (\w+|–)"))),
        ("ECC Errors/TPC Repair Pending", yes_no(grab(repair, r"TPC repair pending: (\w+|–)"))),
        ("ECC Errors/Unrepairable Memory", yes_no(grab(repair, r"unrepairable memory: (\w+|–)"))),
        ("Remapped Rows/Correctable Error", grab(remap, r"correctable errors " + n)),
        ("Remapped Rows/Inactive Correctable Error", grab(remap, r"correctable errors \S+ \(inactive " + n)),
        ("Remapped Rows/Uncorrectable Error", grab(remap, r"uncorrectable " + n)),
        ("Remapped Rows/Inactive Uncorrectable Error", grab(remap, r"uncorrectable \S+ \(inactive " + n)),
        ("Remapped Rows/Pending", "Yes" if "remapping is pending" in remap else "No" if remap else None),
        ("Remapped Rows/Remapping Failure Occurred", "Yes" if "remapping failed" in remap else "No" if remap else None),
    ]
    for b in ("Max", "High", "Partial", "Low", "None"):
        pairs.append(("Remapped Rows/Bank Remap Availability Histogram/" + b,
                      grab(remap, r"spare rows:.*?\b%s %s" % (b.lower(), n))))
    not_applicable = "–" if "not applicable" in retired else None
    pairs += [
        ("Retired Pages/Single Bit ECC", grab(retired, r"(\S+) for multiple single-bit") or not_applicable),
        ("Retired Pages/Double Bit ECC", grab(retired, r"(\S+) for double-bit") or not_applicable),
        ("Temperature/GPU Current Temp", grab(temp, r"GPU (-?\d+) C")),
        ("Temperature/GPU T.Limit Temp", grab(temp, r"(-?\d+) C below T.Limit")),
        ("Temperature/GPU Shutdown T.Limit Temp", grab(temp, r"shutdown " + n)),
        ("Temperature/GPU Slowdown T.Limit Temp", grab(temp, r"slowdown " + n)),
        ("Temperature/GPU Max Operating T.Limit Temp", grab(temp, r"max operating " + n)),
        ("Temperature/Memory Current Temp", grab(temp, r"memory (-?\d+) C")),
        ("Temperature/Memory Max Operating T.Limit Temp", grab(temp, r"memory max " + n)),
    ]
    mismatches = 0
    for path, ours in pairs:
        theirs = s(path)
        ok = same_count(theirs, ours)
        mismatches += not ok
        print("%-62s smi %-14s ours %-8s %s" % (path, theirs, ours, "same" if ok else "DIFFERENT"))
    for smi_name, ours_name in (("SW Power Capping", "SW power cap"), ("Sync Boost", "sync boost"),
                                ("SW Thermal Slowdown", "SW thermal slowdown"),
                                ("HW Thermal Slowdown", "HW thermal slowdown"),
                                ("HW Power Braking", "HW power brake")):
        theirs = s("Clocks Event Reasons Counters/" + smi_name)
        ours = grab(clocks, re.escape(ours_name) + r" (\d+\.\d) s")
        us = int(theirs.split()[0]) if theirs and theirs.split()[0].isdigit() else None
        ok = us is not None and ours is not None and abs(us / 1e6 - float(ours)) <= 0.051
        mismatches += not ok
        print("%-62s smi %-14s ours %-8s %s" % ("Clocks Event Reasons Counters/" + smi_name, theirs,
                                                ours and ours + " s", "same" if ok else "DIFFERENT"))
    compared = len(pairs) + 5
    # The driver's recovery action: in plain `nvidia-smi -q`, not under the -d sections above.
    theirs = s("GPU Recovery Action")
    if theirs is not None:
        recovery = rows.get("gpu.recovery", "")
        action = grab(recovery, r"NVML recovery action (\d+)")
        ours = ("None" if "no recovery action needed" in recovery
                else {"1": "Reset", "2": "Reboot", "3": "Drain P2P", "4": "Drain and Reset"}.get(action)
                if action else "–" if "gives no recovery action" in recovery else None)
        ok = same_count(theirs, ours)
        mismatches += not ok
        compared += 1
        print("%-62s smi %-14s ours %-8s %s" % ("GPU Recovery Action", theirs, ours,
                                                "same" if ok else "DIFFERENT"))
    print("%d counters compared, %d mismatches" % (compared, mismatches))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
