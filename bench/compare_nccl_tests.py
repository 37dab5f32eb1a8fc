# SPDX-License-Identifier: Apache-2.0
"""Tables for a bench/run_nccl_tests.sh output directory: per collective and size, the median
over rounds of the time per operation of nccl-tests (out of place), gv-nccl in gpuverify-worker,
gv-nccl --in-process, torch.distributed (all_reduce) and, where run, both under mpirun; each
gv-nccl time as a ratio to nccl-tests' (the bar: <= 1.05 at every size), and peak busbw ratios
(the bar: >= 0.99); then the same for the in-place columns where gv-nccl ran --in-place.
Where each process's small-message time falls into one of two launch levels (two H200s), the
programs are compared within each level too, and nccl-tests against itself (odd rounds against
even) gives the widest per-size ratio that these rounds show with no program changed.
Usage: python3 bench/compare_nccl_tests.py OUTDIR"""
import json
import statistics
import sys
from pathlib import Path

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "gather",
       "scatter", "sendrecv")


def nccl_tests(path, in_place=False):
    """{bytes: (time_us, busbw)} of an nccl-tests output's out-of-place (or in-place) columns."""
    rows = {}
    for line in path.read_text(errors="replace").splitlines():
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            try:
                rows[int(f[0])] = (float(f[9]), float(f[11])) if in_place else (float(f[5]),
                                                                                  float(f[7]))
            except ValueError:  # "N/A" where nccl-tests has no in-place form
                pass
    return rows


def gv(path, in_place=False):
    text = path.read_text().strip()
    if not text:
        return {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = json.loads(text.splitlines()[-1])  # torchrun: the last line
    rows = doc.get("in_place" if in_place else "sizes", [])
    return {s["bytes"]: (s["time_us"], s["busbw_gbps"]) for s in rows if s["time_us"] > 0}


def rounds(out, pattern, reader, in_place=False):
    return [reader(p, in_place) for p in sorted(out.glob(pattern))]


def median_at(runs, size, k=0):
    vals = [r[size][k] for r in runs if size in r]
    return statistics.median(vals) if vals else None


def best_at(runs, size):
    """The fastest round's time: on machines where a run's small-message time falls into one of
    two levels for reasons outside either program (seen on two H200s: 12-13 or 17-19 us for
    every program, switching between and within runs), the rounds' medians compare levels at
    random; the rounds' best compare the programs at one level."""
    vals = [r[size][0] for r in runs if size in r]
    return min(vals) if vals else None


SMALL = 65536  # up to here an NVLink pair's time per operation is the launch's, not the link's


def level(run):
    """A run's launch level: its median time per operation over the sizes up to 64 KiB."""
    vals = [t for size, (t, _) in run.items() if size <= SMALL]
    return statistics.median(vals) if vals else None


def level_split(runs):
    """The level between the fast and the slow runs, or None for one level. On two H200s each
    process's small-message time fell into one of two levels, 12-14 or 17-20 us (6-8 or 9-11
    us a rank under mpirun), for nccl-tests and gv-nccl alike, with either pinned to any CPU:
    the split is the one leaving the least spread within the two groups (one run far out does
    not make a group of its own), kept where the groups' means differ by over 15%."""
    levels = sorted(lv for lv in map(level, runs) if lv)

    def spread(group):
        return sum((x - statistics.fmean(group)) ** 2 for x in group)

    splits = [(spread(levels[:k]) + spread(levels[k:]), k) for k in range(1, len(levels))]
    if not splits:
        return None
    k = min(splits)[1]
    fast, slow = levels[:k], levels[k:]
    return (fast[-1] + slow[0]) / 2 if statistics.fmean(slow) > 1.15 * statistics.fmean(fast) \
        else None


def matched(runs, base):
    """gv-nccl against nccl-tests within each launch level: [(level, n, n_base, worst ratio and
    its size, median ratio over sizes)]. The medians over all rounds compare levels drawn at
    random per process; these compare the programs."""
    cut = level_split(runs + base)
    picks = [("one", lambda r: True)] if cut is None else [
        ("fast", lambda r: level(r) is not None and level(r) < cut),
        ("slow", lambda r: level(r) is not None and level(r) >= cut)]
    out = []
    for name, keep in picks:
        mine, theirs = [r for r in runs if keep(r)], [r for r in base if keep(r)]
        ratios = [(median_at(mine, size) / median_at(theirs, size), size)
                  for size in sorted(set().union(*(r.keys() for r in mine)))
                  if median_at(mine, size) and median_at(theirs, size)]
        if ratios:
            out.append((name, len(mine), len(theirs), max(ratios),
                        statistics.median(q for q, _ in ratios)))
    return out


def self_noise(runs):
    """A program against itself, its odd rounds' medians against its even rounds': the widest
    ratio at any size is how far apart two sets of these rounds land with no program changed,
    the resolution of a per-size ratio between two programs."""
    odd, even = runs[0::2], runs[1::2]
    ratios = [(max(a / b, b / a), size) for size in sorted(set().union(*(r.keys() for r in runs)))
              for a, b in [(median_at(odd, size), median_at(even, size))] if a and b]
    return max(ratios, default=None)


def peak(runs):
    peaks = [max(v[1] for v in r.values()) for r in runs if r]
    return statistics.median(peaks) if peaks else None


def table(out, op, in_place=False):
    cols = [("nccl-tests -g N", rounds(out, "nt_%s_[0-9]*.txt" % op, nccl_tests, in_place)),
            ("gv-nccl (worker)", rounds(out, "gv_%s_[0-9]*.json" % op, gv, in_place)),
            ("gv-nccl --in-process", rounds(out, "gvin_%s_[0-9]*.json" % op, gv, in_place)),
            ("torch.distributed", rounds(out, "torch_%s_[0-9]*.json" % op, gv, in_place)),
            ("nccl-tests mpirun", rounds(out, "ntmpi_%s_[0-9]*.txt" % op, nccl_tests, in_place)),
            ("gv-nccl mpirun", rounds(out, "gvmpi_%s_[0-9]*.json" % op, gv, in_place))]
    cols = [(name, runs) for name, runs in cols if any(runs)]
    if len(cols) < 2:
        return
    ref = {"gv-nccl (worker)": "nccl-tests -g N", "gv-nccl --in-process": "nccl-tests -g N",
           "torch.distributed": "nccl-tests -g N", "gv-nccl mpirun": "nccl-tests mpirun"}
    by = dict(cols)
    sizes = sorted(set().union(*(r.keys() for _, runs in cols for r in runs)))
    print("\n### %s%s: time per operation (us), median of %d rounds; ratio to nccl-tests\n"
          % (op, " in place" if in_place else "", max(len(runs) for _, runs in cols)))
    print("| size (B) | " + " | ".join(name for name, _ in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    worst, worst_best = {}, {}
    for size in sizes:
        cells = []
        for name, runs in cols:
            t = median_at(runs, size)
            cell = "-" if t is None else "%.2f" % t
            if t is not None and name in ref and ref[name] in by:
                base = median_at(by[ref[name]], size)
                if base:
                    cell += " (%.3f)" % (t / base)
                    worst[name] = max(worst.get(name, (0, 0)), (t / base, size))
                    best, best_base = best_at(runs, size), best_at(by[ref[name]], size)
                    worst_best[name] = max(worst_best.get(name, (0, 0)), (best / best_base, size))
            cells.append(cell)
        print("| %d | %s |" % (size, " | ".join(cells)))
    print("\nWorst time ratio over all sizes, and peak busbw (median of the rounds' peaks):\n")
    for name, runs in cols:
        line = "- %s: peak busbw %s GB/s" % (name, "%.2f" % peak(runs) if peak(runs) is not None
                                             else "-")
        if name in ref and ref[name] in by and peak(by[ref[name]]):
            line += " (%.3f of %s)" % (peak(runs) / peak(by[ref[name]]), ref[name])
        noise = self_noise(runs) if name in ref.values() and len(runs) >= 4 else None
        if noise:
            line += "; its odd rounds against its even rounds: widest %.3f at %d B" % noise
        if name in worst:
            line += "; worst time ratio %.3f at %d B" % worst[name]
            line += " (rounds' best: %.3f at %d B)" % worst_best[name]
            for lv, mine, theirs, (q, size), mid in matched(by[name], by[ref[name]]):
                line += "; %s level (%d and %d runs): worst %.3f at %d B, median %.3f" % (
                    lv, mine, theirs, q, size, mid)
        print(line)


def main():
    out = Path(sys.argv[1])
    print("# nccl-tests beside gv-nccl: %s" % out.name)
    for op in OPS:
        if any(out.glob("*_%s_[0-9]*.*" % op)):
            table(out, op)
            table(out, op, in_place=True)  # where both sides measured it


if __name__ == "__main__":
    main()
