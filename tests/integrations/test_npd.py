# SPDX-License-Identifier: Apache-2.0
"""examples/integrations/node-problem-detector/gpuverify-monitor.json as node-problem-detector
reads and applies it, without NPD: the config against NPD's schema of custom plugin configs
(pkg/custompluginmonitor/types: the fields NPD reads, their types, Go durations, NPD's
validation: plugin "custom", a rule's timeout not above the global one, a permanent rule's
condition among the conditions; and any field NPD does not read, which it would silently
ignore); gv-check's --budget ending inside the rule's timeout; then the rule's command (its path
replaced by the built gv-check, --sysroot/--library-dir and GV_FAKE_SCENARIO added) run as NPD's
plugin runner does (own process group, killed at the timeout, stdout trimmed and cut at
max_output_length, exit 0 OK, 1 NonOK, other Unknown) and the condition updated as NPD's
custom plugin monitor does (OK -> False with the default reason and message, NonOK -> True with
the rule's reason and the output as message, Unknown -> Unknown; a True condition's message
follows the output only with enable_message_change_based_condition_update): healthy and WARN
nodes read GPUProblem=False, a lost GPU, ECC errors after it and a hung nvmlInit read True with
a message naming the check at fault in that run, and a gv-check that cannot start reads
Unknown with its message;
every answer is one line of at most max_output_length bytes, within the rule's timeout.

Usage (ctest): test_npd.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import json
import os
import re
import signal
import subprocess
import sys
import time

# NPD's pluginGlobalConfig and CustomRule JSON fields (pkg/custompluginmonitor/types/config.go,
# types.go), types.Condition's as a config gives them, and CustomPluginConfig's own.
TOP = {"plugin": str, "pluginConfig": dict, "source": str, "conditions": list, "rules": list,
       "metricsReporting": bool}
GLOBAL = {"invoke_interval": "duration", "timeout": "duration", "max_output_length": int,
          "concurrency": int, "enable_message_change_based_condition_update": bool,
          "skip_initial_status": bool}
CONDITION = {"type": str, "reason": str, "message": str}
RULE = {"type": str, "condition": str, "reason": str, "path": str, "args": list,
        "timeout": "duration", "invoke_interval": "duration"}
NPD_STDOUT_MAX = 4096  # maxCustomPluginBufferBytes: what NPD reads of a plugin's stdout


def go_duration(text):
    """Go's time.ParseDuration for the units a config uses, in seconds; None if invalid."""
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    if not isinstance(text, str) or text in ("", "+", "-"):
        return None
    if text == "0":
        return 0.0
    parts = re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * units[u] for n, u in parts)


def check_schema(cfg):
    """NPD's decoding, ApplyConfiguration and Validate, plus fields it would ignore."""
    problems = []

    def fields(obj, schema, where):
        if not isinstance(obj, dict):
            problems.append("%s: not an object" % where)
            return
        for key, value in obj.items():
            kind = schema.get(key)
            if kind is None:
                problems.append("%s: %r is no field NPD reads (ignored)" % (where, key))
            elif kind == "duration":
                if go_duration(value) is None:
                    problems.append("%s.%s: %r is no Go duration" % (where, key, value))
            elif kind is int and (not isinstance(value, int) or isinstance(value, bool)):
                problems.append("%s.%s: %r is no integer" % (where, key, value))
            elif kind is not int and not isinstance(value, kind):
                problems.append("%s.%s: %r is no %s" % (where, key, value, kind.__name__))

    fields(cfg, TOP, "config")
    glob = cfg.get("pluginConfig", {})
    fields(glob, GLOBAL, "pluginConfig")
    if cfg.get("plugin") != "custom":
        problems.append("plugin %r: NPD supports only \"custom\"" % cfg.get("plugin"))
    if not cfg.get("source"):
        problems.append("no source")
    global_timeout = go_duration(glob.get("timeout", "5s")) or 0
    if (go_duration(glob.get("invoke_interval", "30s")) or 0) <= 0:
        problems.append("pluginConfig.invoke_interval must be above zero")
    if glob.get("max_output_length", 80) <= 0 or glob.get("concurrency", 3) <= 0:
        problems.append("max_output_length and concurrency must be above zero")
    types = []
    for i, cond in enumerate(cfg.get("conditions", [])):
        fields(cond, CONDITION, "conditions[%d]" % i)
        for key in CONDITION:
            if not cond.get(key):
                problems.append("conditions[%d]: no %s" % (i, key))
        types.append(cond.get("type"))
    rules = cfg.get("rules", [])
    if not rules:
        problems.append("no rules")
    for i, rule in enumerate(rules):
        where = "rules[%d]" % i
        fields(rule, RULE, where)
        if rule.get("type") not in ("temporary", "permanent"):
            problems.append("%s: type %r" % (where, rule.get("type")))
        if rule.get("type") == "permanent" and rule.get("condition") not in types:
            problems.append("%s: permanent problem %r has no preset default condition"
                            % (where, rule.get("condition")))
        if not rule.get("reason") or not rule.get("path"):
            problems.append("%s: no reason or path" % where)
        if not all(isinstance(a, str) for a in rule.get("args", [])):
            problems.append("%s: args must be strings" % where)
        if "timeout" in rule and (go_duration(rule["timeout"]) or 0) > global_timeout:
            problems.append("%s: plugin timeout is greater than global timeout" % where)
        if "invoke_interval" in rule and (go_duration(rule["invoke_interval"]) or 0) <= 0:
            problems.append("%s: rule invoke interval must be greater than zero" % where)
        if not os.path.isabs(rule.get("path", "")):
            problems.append("%s: path %r is not absolute" % (where, rule.get("path")))
    return problems


def rule_timeout(cfg, rule):
    """Plugin.run: the rule's timeout where below the global one, else the global one."""
    glob = go_duration(cfg["pluginConfig"].get("timeout", "5s"))
    own = go_duration(rule["timeout"]) if "timeout" in rule else None
    return own if own is not None and own < glob else glob


def run_plugin(cfg, rule, argv, env):
    """Plugin.run: (status, output as NPD keeps it, raw stdout, wall seconds)."""
    limit = rule_timeout(cfg, rule)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)  # Setpgid, as util.Exec
    killed = False
    try:
        stdout, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # util.Kill
        killed = True
        stdout, _ = proc.communicate()
    wall = time.monotonic() - t0
    raw = stdout[:NPD_STDOUT_MAX].decode("utf-8", "replace")
    output = raw.strip()
    if killed:
        output = 'Timeout when running plugin "%s": state - killed. output - "%s"' % (argv[0],
                                                                                      output)
    output = output[:cfg["pluginConfig"].get("max_output_length", 80)]
    code = proc.returncode
    status = "OK" if code == 0 else "NonOK" if code == 1 else "Unknown"
    return status, output, raw, wall


def apply_result(cfg, rule, condition, status, message):
    """customPluginMonitor.generateStatus for a permanent rule: the condition after the result."""
    default = next(c for c in cfg["conditions"] if c["type"] == rule["condition"])
    new = {"OK": "False", "NonOK": "True"}.get(status, "Unknown")
    if condition["status"] == "True" and new != "True":
        return dict(condition, status=new, reason=default["reason"],
                    message=default["message"] if new == "False" else message)
    if condition["status"] != "True" and new == "True":
        return dict(condition, status=new, reason=rule["reason"], message=message)
    if condition["status"] != new:
        return dict(condition, status=new, reason=default["reason"],
                    message=default["message"] if new == "False" else message)
    by_message = cfg["pluginConfig"].get("enable_message_change_based_condition_update", False)
    if new == "True" and (condition["reason"] != rule["reason"]
                          or (by_message and condition["message"] != message)):
        return dict(condition, status=new, reason=rule["reason"], message=message)
    return condition


def option(args, name):
    return float(args[args.index(name) + 1]) if name in args else None


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    root = os.path.join(fixtures, "sysroots", "h100-open")
    scenario = lambda name: os.path.join(fixtures, "scenarios", name + ".conf")
    with open(os.path.join(examples, "node-problem-detector", "gpuverify-monitor.json")) as f:
        cfg = json.load(f)
    failures = check_schema(cfg)
    if failures:
        for f in failures:
            print("FAIL", f)
        return 1

    max_len = cfg["pluginConfig"].get("max_output_length", 80)
    if max_len != 200:
        failures.append("max_output_length %d: gv-check --npd answers in up to 200 bytes"
                        % max_len)
    conditions = {c["type"]: dict(c, status="False") for c in cfg["conditions"]}  # initial
    for cond in cfg["conditions"]:
        # NPD sets a condition True on a problem: a name for health would read False on
        # every healthy node.
        if "healthy" in cond["type"].lower():
            failures.append("condition %r: True means a problem, so name the problem"
                            % cond["type"])
    rules = [r for r in cfg["rules"] if os.path.basename(r["path"]) == "gv-check"]
    if not rules:
        failures.append("no rule runs gv-check")
    for rule in rules:
        args = rule.get("args", [])
        limit = rule_timeout(cfg, rule)
        budget, deadline = option(args, "--budget"), option(args, "--deadline")
        if "--npd" not in args:
            failures.append("rule %s: no --npd (NPD's exit codes and one line)" % rule["reason"])
        # gv-check stops at its budget, within a second and a half (the grace of the check in
        # flight, the report): well inside the plugin's timeout, so the answer is its own.
        if budget is None or budget + 10 > limit:
            failures.append("rule %s: --budget %r does not end 10 s inside the timeout of %.0f s"
                            % (rule["reason"], budget, limit))
        if deadline is None or budget is None or deadline > budget:
            failures.append("rule %s: --deadline %r not within the budget" % (rule["reason"],
                                                                              deadline))
        checks = args[args.index("--checks") + 1] if "--checks" in args else ""
        for left_out in ("^cuda", "^mem", "^gemm", "^cudnn", "^nccl"):
            if left_out not in checks.split(","):
                failures.append("rule %s: --checks %r loads the GPUs (jobs may be running): "
                                "leave out %s" % (rule["reason"], checks, left_out[1:]))

        argv = [gv_check] + args + ["--sysroot", root, "--library-dir", fakelib]
        # A problem's message ends with the node's action (docs/checks.md, "Actions").
        cases = (("h100x8", "False", None, None),
                 ("h100x8-mig", "False", None, None),  # a WARN is healthy
                 ("h100x8-gpu-lost", "True", "FAIL gpus 3: driver.gpu_count node: ",
                  " [hw_inspect]"),
                 ("health-memory", "True", "FAIL gpus 0,1,4,7: gpu.ecc_errors gpu0: ",
                  " [hw_inspect]"),
                 ("h100x8", "False", None, None),  # and back
                 ("fault-nvml-init-hang", "True", "FAIL driver.nvml node: ", " [reboot_node]"),
                 # gv-check cannot start: unknown, with its message
                 ("no-sysroot", "Unknown", "ERROR gv-check: ", None))
        for name, want, names, action in cases:
            env = dict(os.environ, GV_FAKE_SCENARIO=scenario(name if name != "no-sysroot"
                                                             else "h100x8"))
            status, output, raw, wall = run_plugin(
                cfg, rule, argv if name != "no-sysroot" else
                [a if a != root else "/nonexistent/sysroot" for a in argv], env)
            cond = conditions[rule["condition"]]
            cond = conditions[rule["condition"]] = apply_result(cfg, rule, cond, status, output)
            what = "%s over %s" % (rule["reason"], name)
            if cond["status"] != want:
                failures.append("%s: %s=%s (%s), want %s; output %r" % (
                    what, cond["type"], cond["status"], status, want, raw))
            if want == "False" and (cond["reason"], cond["message"]) != (
                    cfg["conditions"][0]["reason"], cfg["conditions"][0]["message"]):
                failures.append("%s: healthy with reason %r, message %r" % (
                    what, cond["reason"], cond["message"]))
            if want == "True" and (cond["reason"] != rule["reason"]
                                   or not cond["message"].startswith(names)
                                   or not cond["message"].endswith(action)):
                failures.append("%s: reason %r, message %r; want %r, %r...%r" % (
                    what, cond["reason"], cond["message"], rule["reason"], names, action))
            if want == "Unknown" and not cond["message"].startswith(names):
                failures.append("%s: message %r, want %r..." % (what, cond["message"], names))
            if raw.count("\n") != 1 or not raw.endswith("\n"):
                failures.append("%s: not one line: %r" % (what, raw))
            if len(raw.rstrip("\n").encode()) > max_len:
                failures.append("%s: %d bytes, NPD cuts at %d: %r" % (
                    what, len(raw.rstrip("\n").encode()), max_len, raw))
            if wall > limit or (budget is not None and wall > budget + 2):
                failures.append("%s: took %.1f s (budget %s, timeout %.0f s)" % (
                    what, wall, budget, limit))
            print("%-40s %-7s %s=%s %5.1f s  %s" % (what, status, cond["type"], cond["status"],
                                                     wall, cond["message"][:80]))
    failures += daemonset_problems(examples, cfg)
    for f in failures:
        print("FAIL", f)
    print("%d problems" % len(failures))
    return 1 if failures else 0


# Upstream's NPD DaemonSet (deployment/node-problem-detector.yaml): its name and volumes.
UPSTREAM_NAME = "node-problem-detector"
UPSTREAM_VOLUMES = {"config", "log", "localtime", "kmsg"}


def daemonset_problems(examples, cfg):
    """npd-daemonset-snippet.yaml beside upstream's NPD: a DaemonSet of its own (a merge into
    upstream's would replace its command, tolerations and node selector), volumes that do not
    take upstream's names, and its argument naming the monitor config where it is mounted."""
    try:
        import yaml
    except ImportError:
        print("python3-yaml is not installed: the NPD DaemonSet is not checked")
        return []
    with open(os.path.join(examples, "node-problem-detector", "npd-daemonset-snippet.yaml")) as f:
        ds = yaml.safe_load(f)
    spec = ds["spec"]["template"]["spec"]
    problems = []
    if ds["metadata"]["name"] == UPSTREAM_NAME:
        problems.append("the DaemonSet is named as upstream's NPD: applied, it replaces it")
    taken = UPSTREAM_VOLUMES & {v["name"] for v in spec["volumes"]}
    if taken:
        problems.append("volumes %s take upstream NPD's names" % sorted(taken))
    npd = spec["containers"][0]
    mounts = {m["name"]: m["mountPath"] for m in npd["volumeMounts"]}
    config = next((v for v in spec["volumes"] if "configMap" in v), None)
    plugin = [a.partition("=")[2] for a in npd["command"]
              if a.startswith("--config.custom-plugin-monitor=")]
    want = config and os.path.join(mounts.get(config["name"], "?"), "gpuverify-monitor.json")
    if plugin != [want]:
        problems.append("--config.custom-plugin-monitor %s, want %s (the config's mount)"
                        % (plugin, want))
    if cfg["rules"][0]["path"] not in mounts.values():
        problems.append("the rule's path %s is mounted nowhere" % cfg["rules"][0]["path"])
    return problems


if __name__ == "__main__":
    sys.exit(main())
