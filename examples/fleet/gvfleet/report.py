# SPDX-License-Identifier: Apache-2.0
"""gv-fleet report: one answer per node from the fleet's own outputs (docs/fleet.md, "The fleet
report"). Reads gv-check --json reports, gv-nccl --json results and gv-fleet run --json
answers, and judges each node by:
  - its own report's rows (FAIL, ERROR, WARN);
  - its figures against its peers: the median per check per comparable group (GPU model, power
    limit, driver, level), never across models; a group of fewer than three nodes is reported,
    not judged;
  - its configuration against the majority of its class (GPU model and count): driver, CUDA,
    kernel, VBIOS, ECC/MIG/persistence modes, power limit, PCIe link, NVLinks, the GPU/NUMA
    map, NIC firmware, NCCL version and settings; a tie is reported as such;
  - its result fingerprints against the fleet's majority per key;
  - collectives and pairs that implicate it (gv-nccl), and the culprit search's findings."""
import json
import re
import statistics

VERDICTS = ("PASS", "WARN", "ERROR", "FAIL")  # in order of weight
HIGHER_IS_BETTER = {"TFLOPS", "GB/s"}
MIN_PEERS = 3  # a group of fewer nodes has no majority or median worth judging by


def figures_text(*values, decimals=1):
    """The values as people read them, told apart: `decimals` decimals, as before, unless two
    values that differ would read the same or a value that is not 0 would read 0 ("0.1 GB/s,
    39% of the median 0.1 GB/s" for 0.05 and 0.13); then as many significant digits as that
    takes (0.05, 0.13)."""
    def clear(texts):
        same = any(texts[i] == texts[j] and values[i] != values[j]
                   for i in range(len(values)) for j in range(i))
        return not same and all(v == 0 or float(t) != 0 for v, t in zip(values, texts))

    texts = ["%.*f" % (decimals, v) for v in values]
    for digits in range(2, 18):
        if clear(texts):
            break
        texts = ["%.*g" % (digits, v) for v in values]
    return texts


class BadInput(Exception):
    """Input that cannot be read at all (a missing file): exit 2."""


# --- reading ----------------------------------------------------------------------------------

LABEL = re.compile(r"^\s*(\d+): ?(.*)$")


def _labelled(lines):
    """srun --label output ("3: {...}"): each task's lines in order, lines without a label
    (srun's own messages, which sbatch writes to the same file) under None; or None when most
    lines carry no label (the text is not srun --label's)."""
    tasks, unlabelled, labelled = {}, [], 0
    for line in lines:
        if not line.strip():
            continue
        m = LABEL.match(line)
        if m:
            tasks.setdefault(int(m.group(1)), []).append(m.group(2))
            labelled += 1
        else:
            unlabelled.append(line + "\n")
    if labelled <= len(unlabelled):
        return None
    if unlabelled:
        tasks[None] = unlabelled
    return tasks


def _documents(text, source, skipped):
    """The JSON documents of one stream, concatenated or one per line; a malformed one is
    skipped from where it began to the next line that opens a document, and named."""
    decoder = json.JSONDecoder()
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            return
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError as e:
            line = text.count("\n", 0, pos) + 1
            skipped.append({"source": source, "line": line,
                            "why": "not JSON: %s" % getattr(e, "msg", e)})
            nxt = text.find("\n{", pos)
            if nxt < 0:
                return
            pos = nxt + 1
            continue
        yield obj, "%s:%d" % (source, text.count("\n", 0, pos) + 1)
        pos = end


def read_inputs(paths, stdin):
    """Every document of the files (- for stdin), with where each came from; the skipped ones."""
    docs, skipped = [], []
    for path in paths:
        try:
            text = stdin.read() if path == "-" else open(path, encoding="utf-8",
                                                          errors="replace").read()
        except OSError as e:
            raise BadInput("%s: %s" % (path, e.strerror or e))
        name = "stdin" if path == "-" else path
        tasks = _labelled(text.splitlines())
        # srun --label: each task's lines put back together, with nothing between them: a
        # long line srun cut in pieces joins up again, and JSON needs no line breaks.
        streams = [("%s task %d" % (name, t) if t is not None else
                    "%s (lines without a label)" % name, "".join(lines))
                   for t, lines in sorted(tasks.items(), key=lambda kv: (kv[0] is None,
                                                                         kv[0] or 0))
                   ] if tasks else [(name, text)]
        for source, stream in streams:
            for obj, where in _documents(stream, source, skipped):
                kind = kind_of(obj)
                if kind:
                    docs.append((kind, obj, where))
                else:
                    skipped.append({"source": where.rsplit(":", 1)[0],
                                    "line": int(where.rsplit(":", 1)[1]),
                                    "why": "neither a gv-check report, a gv-nccl result nor a "
                                    "gv-fleet run answer"})
    return docs, skipped


def _report_shaped(obj):
    """The parts of a report the judges read have the schema's types."""
    return isinstance(obj.get("checks"), list) and isinstance(obj.get("schema_version"), int) \
        and isinstance(obj.get("gpus", []), list) and isinstance(obj.get("driver", {}), dict) \
        and isinstance(obj.get("hostname", ""), str) and all(
            isinstance(c, dict) and isinstance(c.get("id"), str) and
            isinstance(c.get("verdict"), str) and isinstance(c.get("message", ""), str)
            for c in obj["checks"])


def kind_of(obj):
    if not isinstance(obj, dict):
        return None
    if _report_shaped(obj):
        return "report"
    if "collective" in obj and _names(obj.get("hosts")) and obj["hosts"]:
        return "nccl"
    if "culprits" in obj and "launcher" in obj and _run_answer_shaped(obj):
        return "search"
    return None


def _names(value):
    return isinstance(value, list) and all(isinstance(n, str) and n for n in value)


def _run_answer_shaped(obj):
    """The parts of a gv-fleet run answer the judges read have the schema's types: node names
    where names belong, never a string taken for a list of one-letter names."""
    srch = obj.get("search") or {}
    entries = [(obj.get("culprits"), "node"), (obj.get("not_judged") or [], "node")]
    return isinstance(srch, dict) and _names(obj.get("nodes", [])) and all(
        isinstance(items, list) and all(isinstance(i, dict) and isinstance(i.get(key), str)
                                        for i in items) for items, key in entries) and \
        _names(srch.get("undecided", [])) and isinstance(srch.get("links", []), list) and \
        all(_names(link) for link in srch.get("links", []))


# --- judging ----------------------------------------------------------------------------------

def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and \
        v not in (float("inf"), float("-inf"))


class Node:
    def __init__(self, hostname):
        self.hostname = hostname
        self.report = None
        self.where = None
        self.reasons = []
        self.listed = False  # among a gv-fleet run answer's nodes

    def add(self, verdict, kind, why, **evidence):
        self.reasons.append(dict({"verdict": verdict, "kind": kind, "why": why}, **evidence))

    @property
    def verdict(self):
        worst = 0
        for r in self.reasons:
            worst = max(worst, VERDICTS.index(r["verdict"]))
        return VERDICTS[worst]


def _gpus(report):
    return [g for g in report.get("gpus") or [] if isinstance(g, dict)]


def node_class(report):
    """GPU model and count: the nodes whose configuration and figures compare."""
    gpus = _gpus(report)
    models = sorted({g.get("name") or "?" for g in gpus})
    return "%d x %s" % (len(gpus), " + ".join(models) if models else "no GPU")


def _rows(report):
    return [c for c in report.get("checks") or [] if isinstance(c, dict)]


def own_rows(node):
    r = node.report
    for c in _rows(r):
        if c.get("verdict") in ("WARN", "FAIL", "ERROR"):
            node.add(c["verdict"], "own check", "%s %s: %s" % (c.get("id"), c.get("subject"),
                                                             c.get("message", "")[:300]),
                     check=c.get("id"), subject=c.get("subject"), action=c.get("action"))
    if r.get("verdict") in ("FAIL", "ERROR") and not node.reasons:
        node.add(r["verdict"], "own check", "its report says %s" % r["verdict"])


def figures(nodes, tolerance):
    """Each measured figure against the median of its comparable group."""
    groups = {}  # key -> [(node, subject, value, unit)]
    for node in nodes:
        r = node.report
        by_gpu = {"gpu%s" % g.get("index"): g for g in _gpus(r)}
        driver = (r.get("driver") or {}).get("driver_version")
        for c in _rows(r):
            value, unit = c.get("value"), c.get("unit")
            if unit not in HIGHER_IS_BETTER or not _number(value) or \
                    c.get("verdict") not in ("PASS", "WARN", "FAIL"):
                continue
            g = by_gpu.get(c.get("subject"))
            model = g.get("name") if g else node_class(r)
            power = g.get("power_limit_mw") if g else None
            key = (c.get("id"), model, power, driver, r.get("level"))
            groups.setdefault(key, []).append((node, c.get("subject"), float(value), unit))
    summary = []
    for key, rows in sorted(groups.items(), key=lambda kv: [str(k) for k in kv[0]]):
        check, model, power, driver, level = key
        hosts = {n.hostname for n, _, _, _ in rows}
        median = statistics.median(v for _, _, v, _ in rows)
        judged = len(hosts) >= MIN_PEERS
        summary.append({"check": check, "model": model,
                        "power_limit_w": power / 1000 if _number(power) else None,
                        "driver": driver, "level": level, "nodes": len(hosts),
                        "results": len(rows), "median": median, "unit": rows[0][3],
                        "judged": judged})
        if not judged or median <= 0:
            continue
        for node, subject, value, unit in rows:
            if value < (1 - tolerance) * median:
                shown, middle = figures_text(value, median)
                node.add("FAIL", "slow",
                         "%s %s: %s %s, %.0f%% of the median %s %s of %d nodes (%s)" % (
                             check, subject, shown, unit, 100 * value / median, middle, unit,
                             len(hosts), model),
                         check=check, subject=subject, figure=value, unit=unit,
                         compared_with={"median": median, "nodes": len(hosts), "model": model,
                                        "driver": driver})
    return summary


def _measured(report, check_id):
    """{subject: measured text} of a check's rows."""
    return {c.get("subject"): c.get("measured") for c in _rows(report)
            if c.get("id") == check_id and c.get("measured") not in (None, "")}


NIC_NUMA = re.compile(r"NUMA (-?\d+|unknown)")


# The settings compared, by name: the node's driver facts, NCCL's, each GPU's (named
# "vbios@gpu3"), each NIC's ("fw_ver@mlx5_0", "numa_node@mlx5_0").
NODE_SETTINGS = ("driver_version", "cuda_driver_version", "kernel", "os", "module_kind")
GPU_SETTINGS = ("vbios", "inforom_image", "gsp_firmware", "board_part_number", "persistence_mode",
                "ecc_current", "mig_current", "power_limit_mw", "pcie_gen_max", "pcie_width_max",
                "pcie_gen_current", "pcie_width_current", "numa_node")
SETTINGS = NODE_SETTINGS + ("nccl_version", "nccl_settings") + GPU_SETTINGS + ("nvlinks",
                                                                               "fw_ver")


def settings(report):
    """What the majority rule compares: {field: value} per node, per GPU ("vbios@gpu3") and
    per NIC ("fw_ver@mlx5_0"); absent facts are left out, never compared as unknown."""
    out = {}
    d = report.get("driver") or {}
    for k in NODE_SETTINGS:
        if d.get(k) not in (None, ""):
            out[k] = d[k]
    for subject, v in _measured(report, "nccl.version").items():
        out["nccl_version"] = v
    for c in _rows(report):
        if c.get("id") == "rdma.nccl_env" and c.get("message"):
            m = re.search(r"settings: (.*)$", c["message"])
            if m:
                out["nccl_settings"] = m.group(1)
    nvlinks = _measured(report, "gpu.nvlink")
    for g in _gpus(report):
        at = "@gpu%s" % g.get("index")
        for k in GPU_SETTINGS:
            if g.get(k) not in (None, ""):
                out[k + at] = g[k]
        if nvlinks.get("gpu%s" % g.get("index")):
            out["nvlinks" + at] = nvlinks["gpu%s" % g.get("index")]
    for c in _rows(report):
        if c.get("id") == "rdma.devices" and c.get("subject") not in (None, "node"):
            if c.get("measured"):
                out["fw_ver@" + c["subject"]] = c["measured"]
            m = NIC_NUMA.search(c.get("message") or "")
            if m:
                out["numa_node@" + c["subject"]] = m.group(1)
    return out


# Fields judged per GPU slot against the same slot of the class (a GPU/NUMA map); the others
# per GPU against every GPU of the class.
PER_SLOT = ("numa_node",)


def _vote_key(field):
    name, _, at = field.partition("@")
    if not at or name in PER_SLOT or name == "fw_ver":
        return field
    return name


def pinned(nodes, pins):
    """The site's pinned values (SETTING=VALUE; a setting named without "@" pins it on every
    GPU or NIC): each node that differs FAILs, whatever its class's majority."""
    for node in nodes:
        for field, value in settings(node.report).items():
            name = field.partition("@")[0]
            want = pins.get(field, pins.get(name))
            if want is not None and str(value) != want:
                node.add("FAIL", "configuration", "%s = %s where the site pins %s" % (
                    field, value, want), setting=field, value=value, pinned=want)


def configuration(nodes, pins=None):
    """Each setting against the majority of its class; ties reported; pinned values FAIL."""
    pinned(nodes, pins or {})
    classes = {}
    for node in nodes:
        classes.setdefault(node_class(node.report), []).append(node)
    summary = []
    for cls, members in sorted(classes.items()):
        if len(members) < MIN_PEERS:
            summary.append({"class": cls, "nodes": len(members), "judged": False})
            continue
        votes = {}  # vote key -> {value: [(node, field)]}
        for node in members:
            for field, value in settings(node.report).items():
                if field in (pins or {}) or field.partition("@")[0] in (pins or {}):
                    continue  # the site's pin judges it
                votes.setdefault(_vote_key(field), {}).setdefault(
                    json.dumps(value), []).append((node, field))
        fields = {}
        for key, by_value in sorted(votes.items()):
            ranked = sorted(by_value.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            if len(ranked) == 1:
                fields[key] = {"majority": json.loads(ranked[0][0])}
                continue
            tie = len(ranked[0][1]) == len(ranked[1][1])
            fields[key] = {"majority": None if tie else json.loads(ranked[0][0]),
                           "values": {v: len(who) for v, who in ranked}}
            counts = ", ".join("%s x%d" % (json.loads(v), len(w)) for v, w in ranked)
            voters = "GPUs" if "@" not in key and any("@" in f for _, f in ranked[0][1]) \
                else "nodes"
            for i, (value, who) in enumerate(ranked):
                if not tie and i == 0:
                    continue
                # One reason per node and value: a driver's GSP firmware on its 8 GPUs is one.
                by_node = {}
                for node, field in who:
                    by_node.setdefault(node, []).append(field)
                for node, held in by_node.items():
                    where = held[0] if len(held) == 1 else "%s on %s" % (key, ", ".join(
                        f.partition("@")[2] for f in held))
                    evidence = dict(setting=held[0] if len(held) == 1 else key,
                                    value=json.loads(value), fields=held)
                    if tie:
                        node.add("WARN", "configuration", "%s = %s: no majority in its class "
                                 "(%s)" % (where, json.loads(value), counts),
                                 majority=None, **evidence)
                    else:
                        node.add("WARN", "configuration",
                                 "%s = %s where %d of %d %s of its class have %s" % (
                                     where, json.loads(value), len(ranked[0][1]),
                                     sum(len(w) for _, w in ranked), voters,
                                     json.loads(ranked[0][0])),
                                 majority=json.loads(ranked[0][0]), **evidence)
        summary.append({"class": cls, "nodes": len(members), "judged": True,
                        "settings": fields})
    return summary


def fingerprints(nodes):
    """Result fingerprints per key: the majority hash, each GPU voting once per key."""
    by_key, rows = {}, {}
    for node in nodes:
        for c in _rows(node.report):
            fp = c.get("fingerprint")
            if not isinstance(fp, dict) or not fp.get("hash") or not fp.get("key"):
                continue
            by_key.setdefault(fp["key"], {}).setdefault(fp["hash"], set()).add(
                (node.hostname, c.get("subject")))
            rows.setdefault(fp["key"], []).append((node, c.get("id"), c.get("subject"),
                                                   fp["hash"]))
    summary = []
    for key in sorted(by_key):
        votes = {h: len(g) for h, g in by_key[key].items()}
        ranked = sorted(votes.items(), key=lambda hv: (-hv[1], hv[0]))
        tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
        majority = None if tie else ranked[0][0]
        total = sum(votes.values())
        summary.append({"key": key, "majority": majority, "hashes": dict(ranked),
                        "gpus": total})
        counts = ", ".join("%s x%d" % hv for hv in ranked)
        for node, check, subject, h in rows[key]:
            if tie:
                node.add("WARN", "fingerprint",
                         "%s %s: fingerprint %s, no majority (%s) under %s" % (
                             check, subject, h, counts, key),
                         check=check, subject=subject, value=h, majority=None)
            elif h != majority:
                node.add("FAIL", "fingerprint",
                         "%s %s: fingerprint %s where %d of %d GPUs gave %s (a wrong result "
                         "its own checks cannot see)" % (check, subject, h, ranked[0][1], total,
                                                         majority),
                         check=check, subject=subject, value=h, majority=majority)
    return summary


def _rank_hosts(run):
    """Each rank's host: gv-nccl lists one host per process; with one rank per process, or
    every rank on one host, ranks map to hosts; else None."""
    hosts, n = run.get("hosts") or [], run.get("nranks")
    if isinstance(n, int) and len(hosts) == n:
        return hosts
    if hosts and len(set(hosts)) == 1 and isinstance(n, int):
        return hosts[:1] * n
    return None


UNKNOWN = "?"  # gv-nccl's host of a rank it never heard from


def _implicate(bad_in, hosts, why):
    """A bad result over `hosts`: each member is in it with the others (none: alone). A rank
    that never answered (UNKNOWN) is among the others, never a node of its own."""
    for h in hosts:
        if h != UNKNOWN:
            bad_in.setdefault(h, []).append((frozenset(x for x in hosts if x != h), why))


def collectives(nccl_runs, tolerance, node_of):
    """gv-nccl runs: failed or slow collectives and pairs name the nodes they implicate. A
    node is named when it is alone in a bad result, or in two or more bad results that share no
    other node (every other member is cleared by one of them). A node whose bad results all
    share another member is a suspect beside it (WARN), unless that member is named: between
    two nodes seen nowhere else that is their link; one failed run over many nodes names none
    of them."""
    bad_in = {}  # host -> [(the other hosts of a bad result, why)]
    by_coll = {}
    for run, where in nccl_runs:
        hosts = sorted(set(run.get("hosts") or []))
        coll = run.get("collective")
        if coll != "pairs" and _number(run.get("peak_busbw_gbps")):
            by_coll.setdefault((coll, len(hosts)), []).append((hosts, run, where))
        if run.get("verdict") in ("FAIL", "ERROR"):
            _implicate(bad_in, hosts, "%s over %s: %s: %s" % (
                coll, "+".join(hosts), run["verdict"], (run.get("message") or "")[:200]))
        pairs = [p for p in run.get("pairs") or [] if isinstance(p, dict)
                 and _number(p.get("busbw_gbps"))]
        ranks = _rank_hosts(run)
        if pairs and ranks:
            median = statistics.median(p["busbw_gbps"] for p in pairs)
            for p in pairs:
                a, b = p.get("from"), p.get("to")
                if not (isinstance(a, int) and isinstance(b, int) and 0 <= a < len(ranks)
                        and 0 <= b < len(ranks)):
                    continue
                if p["busbw_gbps"] < 0.5 * median or p.get("wrong"):
                    shown, middle = figures_text(p["busbw_gbps"], median, decimals=2)
                    _implicate(bad_in, sorted({ranks[a], ranks[b]}),
                               "pair %d->%d (%s->%s) %s GB/s, the median pair %s GB/s%s" % (
                                   a, b, ranks[a], ranks[b], shown, middle,
                                   ", %d wrong elements" % p["wrong"] if p.get("wrong") else ""))
    summary = []
    for (coll, size), runs in sorted(by_coll.items()):
        median = statistics.median(r["peak_busbw_gbps"] for _, r, _ in runs)
        summary.append({"collective": coll, "nodes_per_run": size, "runs": len(runs),
                        "median_busbw_gbps": median, "judged": len(runs) >= MIN_PEERS})
        if len(runs) < MIN_PEERS or median <= 0:
            continue
        for hosts, run, where in runs:
            if run["peak_busbw_gbps"] < (1 - tolerance) * median:
                shown, middle = figures_text(run["peak_busbw_gbps"], median)
                _implicate(bad_in, hosts, "%s over %s: %s GB/s busbw, %.0f%% of the median %s "
                           "GB/s (%s)" % (coll, "+".join(hosts), shown,
                                          100 * run["peak_busbw_gbps"] / median, middle, where))
    named = {}
    for host, results in sorted(bad_in.items()):
        shared = frozenset.intersection(*(others for others, _ in results))
        if any(not others for others, _ in results) or (len(results) >= 2 and not shared):
            named[host] = [why for _, why in results]
    for host, whys in named.items():
        node_of(host).add("FAIL", "collective", "bad in %d result(s)%s: %s" % (
            len(whys), " that share no other node" if len(whys) >= 2 else "", whys[0]),
            evidence=whys[:8])
    for host, results in sorted(bad_in.items()):
        shared = frozenset.intersection(*(others for others, _ in results))
        node = node_of(host)  # in a bad result: a node of the fleet, reported or not
        if host in named or shared & set(named):
            continue  # named, or explained by a node that is
        whys = [why for _, why in results]
        if shared == {UNKNOWN}:
            node.add("WARN", "collective", "bad in %d result(s) beside a rank that never "
                     "answered (its host unknown): %s" % (len(whys), whys[0]), evidence=whys[:8])
        elif len(shared) == 1:
            partner, = shared
            node.add("WARN", "link", "bad only with %s (their link, or one of the "
                              "two): %s" % (partner, whys[0]), partner=partner, evidence=whys[:8])
        else:
            node.add("WARN", "collective", "bad in %d result(s), each with %s: one of "
                              "them, not told apart: %s" % (len(whys), "+".join(sorted(shared)),
                                                            whys[0]), evidence=whys[:8])
    return summary


def search_answers(searches, node_of):
    """What gv-fleet run answers say of nodes (culprits, links, undecided, not judged); the
    faults they found in no node (between the groups), returned as [{where, why}]."""
    faults = []
    for doc, where in searches:
        for n in doc.get("nodes") or []:
            node_of(n).listed = True  # PASS unless something below names it
        named = set()
        for c in doc.get("culprits") or []:
            if c.get("node"):
                own = c.get("found_by") == "own checks"
                node_of(c["node"]).add("FAIL", "own checks" if own else "culprit search",
                                       "%s (found by %s, %s)" % (
                                           c.get("why", ""), c.get("found_by", "the search"),
                                           where))
                named.add(c["node"])
        srch = doc.get("search") or {}
        for link in srch.get("links") or []:
            for n in link:
                node_of(n).add("WARN", "link", "the search's link %s: failed together again "
                               "while each passed with good partners (%s)" % ("+".join(link),
                                                                              where))
                named.add(n)
        for n in srch.get("undecided") or []:
            node_of(n).add("WARN", "undecided", "the search could not tell it from the other "
                           "suspects (%s): test it with nodes known to be good" % where)
            named.add(n)
        for j in doc.get("not_judged") or []:
            if j.get("node"):
                node_of(j["node"]).add("ERROR", "own checks", "not judged: %s (%s)" % (
                    j.get("why", ""), where))
                named.add(j["node"])
        for t in doc.get("unexplained_failures") or []:
            for n in t.get("nodes") or []:
                node_of(n).add("WARN", "unexplained", "in a test that failed (%s: %s) that "
                               "nothing the search named explains (%s): run the search again" % (
                                   t.get("verdict", ""), t.get("why", ""), where))
                named.add(n)
        if doc.get("verdict") == "FAIL" and not named:
            faults.append({"where": where, "between_groups": bool(srch.get("between_groups")),
                           "why": "every group passed alone (or when tested "
                           "again) while all nodes together did not: between the groups (spine, "
                           "switch)"
                           if srch.get("between_groups") else
                           "the all-nodes run's speed was not judged: no --min-busbw, and no "
                           "other group of its size"
                           if doc.get("speed_judged") is False else
                           "the run failed without naming a node"})
    return faults


def judge(docs, tolerance, pins=None):
    nodes = {}

    def node_of(host):
        if host not in nodes:
            nodes[host] = Node(host)
        return nodes[host]

    duplicates = []
    for kind, obj, where in docs:
        if kind != "report":
            continue
        host = obj.get("hostname") or where
        node = node_of(host)
        if node.report is not None:
            # The newest report of a node counts: a node checked twice.
            duplicates.append({"hostname": host, "kept": where, "dropped": node.where})
            if (obj.get("started_at") or "") < (node.report.get("started_at") or ""):
                duplicates[-1].update(kept=node.where, dropped=where)
                continue
        node.report, node.where = obj, where
    reported = [n for n in nodes.values() if n.report is not None]
    for n in reported:
        own_rows(n)
    out = {"figures": figures(reported, tolerance),
           "configuration": configuration(reported, pins),
           "fingerprints": fingerprints(reported),
           "collectives": collectives([(o, w) for k, o, w in docs if k == "nccl"], tolerance,
                                      node_of),
           "duplicates": duplicates}
    out["fabric"] = search_answers([(o, w) for k, o, w in docs if k == "search"], node_of)
    for n in nodes.values():
        if n.report is None and reported and (n.reasons or not n.listed):
            n.add("ERROR", "no report", "named by a collective or the search, but no gv-check "
                  "report of it was read")
    return sorted(nodes.values(), key=lambda n: n.hostname), out


# --- rendering --------------------------------------------------------------------------------

def counts(nodes):
    c = {v: 0 for v in VERDICTS}
    for n in nodes:
        c[n.verdict] += 1
    return c


def as_json(nodes, extra, skipped, tolerance):
    return dict({"nodes": [{"hostname": n.hostname, "verdict": n.verdict, "report": n.where,
                            "reasons": n.reasons} for n in nodes],
                 "counts": counts(nodes), "tolerance": tolerance, "skipped": skipped}, **extra)


def table(nodes, extra, skipped):
    lines = []
    for n in nodes:
        if n.verdict == "PASS":
            continue
        first = max(n.reasons, key=lambda r: VERDICTS.index(r["verdict"]))
        more = len(n.reasons) - 1
        lines.append("%-5s %-20s %s%s" % (n.verdict, n.hostname, first["why"],
                                          " (+%d more)" % more if more else ""))
    for g in extra["figures"]:
        if not g["judged"]:
            lines.append("note  %s on %s: %d node(s), fewer than %d: reported, not judged "
                         "(median %s %s)" % (g["check"], g["model"], g["nodes"], MIN_PEERS,
                                             figures_text(g["median"])[0], g["unit"]))
    for c in extra["configuration"]:
        if not c["judged"]:
            lines.append("note  class %s: %d node(s), fewer than %d: configuration not "
                         "judged" % (c["class"], c["nodes"], MIN_PEERS))
    for f in extra["fabric"]:
        lines.append("FAIL  %s: %s (%s)" % ("fabric" if f["between_groups"] else "search",
                                             f["why"], f["where"]))
    for s in skipped:
        lines.append("skip  %s line %d: %s" % (s["source"], s["line"], s["why"]))
    c = counts(nodes)
    lines.append("%d node(s): %s" % (len(nodes), ", ".join("%d %s" % (c[v], v)
                                                            for v in VERDICTS)))
    return "\n".join(lines)


def _label(value):
    return str(value).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def prometheus(nodes, extra):
    out = ["# HELP gpuverify_fleet_node_ok 1 when the fleet report passes the node, 0 when "
           "it names it (verdict label: why).",
           "# TYPE gpuverify_fleet_node_ok gauge"]
    for n in nodes:
        out.append('gpuverify_fleet_node_ok{Hostname="%s",verdict="%s"} %d' % (
            _label(n.hostname), n.verdict, n.verdict == "PASS"))
    out += ["# HELP gpuverify_fleet_nodes Nodes of the fleet report by verdict.",
            "# TYPE gpuverify_fleet_nodes gauge"]
    for v, k in counts(nodes).items():
        out.append('gpuverify_fleet_nodes{verdict="%s"} %d' % (v, k))
    out += ["# HELP gpuverify_fleet_faults_between_nodes Faults a gv-fleet run found in no "
            "node (between the groups: spine, switch).",
            "# TYPE gpuverify_fleet_faults_between_nodes gauge",
            "gpuverify_fleet_faults_between_nodes %d" % sum(f["between_groups"]
                                                            for f in extra["fabric"])]
    return "\n".join(out)


def drain_reason(node, limit=200):
    """The Slurm reason, the health check's format: "gpuverify: fleet: <why>", cut at a word."""
    first = max(node.reasons, key=lambda r: VERDICTS.index(r["verdict"]))
    text = "gpuverify: fleet: %s %s" % (first["kind"], first["why"])
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit - 3].rsplit(" ", 1)[0] + "..."
    return text
