#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""examples/integrations/prometheus/gpuverify-alerts.yml in a real Prometheus.

`promtool check rules` and `promtool test rules` on the shipped files; then Debian's
prometheus-node-exporter (the textfile collector alone) and Debian's prometheus (scraping it
every second, evaluating every second, the shipped rules), both on loopback with config,
storage and logs in a temporary directory, and the Kubernetes DaemonSet's own command line, one
pass of its loop over the fakes (tests/integrations/daemonset.py), publishing into the
collector's folder. Asserted through Prometheus' HTTP API:
  - the rules loaded, each healthy, none unknown or missing;
  - before any pass, GPUVerifyAbsent fires;
  - healthy (h100x8): gpuverify_node_healthy reads 1, gpuverify_info carries the host name
    the file has, node_exporter's node_textfile_mtime_seconds matches GPUVerifyStale's file
    pattern, and no alert is pending or firing (GPUVerifyAbsent resolved);
  - a GPU lost (h100x8-gpu-lost): gpuverify_node_healthy reads 0 and GPUVerifyNodeUnhealthy
    fires for the node (instance, job, the host name gpuverify_info has, severity critical,
    the summary naming the node);
    where the file has gpuverify_check_status, GPUVerifyCheckFailed fires once for each of its
    FAIL rows (driver.gpu_count among them), labelled with the row's labels.
The test's copy of the rules has every `for` at 0s (the shipped 1m holds an alert pending a
minute, 30m for GPUVerifyAbsent; promtool's unit test covers the shipped values), and nothing
else changed. Exit 77 (skipped) only when a daemon cannot start here (a config or rule
Prometheus rejects is a failure: `promtool check config` first).

usage: test_prometheus.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

import daemons
import daemonset

SKIP = 77
UP_TIMEOUT = 30  # each daemon's start
SETTLE_TIMEOUT = 30  # a pass published -> scraped -> evaluated, at 1 s each


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode("utf-8", "replace")


class Daemons:
    """node_exporter and Prometheus, started, waited for and stopped by the test."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = {}
        self.logs = {}

    def spawn(self, name, argv):
        self.logs[name] = os.path.join(self.tmp, name + ".log")
        log = open(self.logs[name], "w")
        try:
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as e:
            raise Skip("%s cannot start: %s" % (name, e))
        finally:
            log.close()

    def tail(self, name, lines=8):
        try:
            with open(self.logs[name], errors="replace") as f:
                return " | ".join(f.read().splitlines()[-lines:])
        except (KeyError, OSError):
            return ""

    def wait_up(self, name, url, want):
        """Polls url until its body has `want`; the daemon exiting first means it cannot run
        here (skip)."""
        end = time.monotonic() + UP_TIMEOUT
        while time.monotonic() < end:
            p = self.procs[name]
            if p.poll() is not None:
                raise Skip("%s exited with status %s: %s" % (name, p.returncode, self.tail(name)))
            try:
                status, body = http_get(url, timeout=2)
                if status == 200 and want in body:
                    return
            except OSError:  # not listening yet
                pass
            time.sleep(0.2)
        raise Failure("%s not up within %d s (%s): %s" % (name, UP_TIMEOUT, url, self.tail(name)))

    def check_running(self):
        for name, p in self.procs.items():
            if p.poll() is not None:
                raise Failure("%s exited with status %s: %s" % (name, p.returncode,
                                                               self.tail(name)))

    def stop(self):
        daemons.stop(self.procs, ("prometheus", "node_exporter"))


class Prom:
    def __init__(self, port, started):
        self.base = "http://127.0.0.1:%d" % port
        self.started = started

    def api(self, path, **params):
        url = self.base + path + ("?" + urllib.parse.urlencode(params) if params else "")
        _, body = http_get(url)
        answer = json.loads(body)
        if answer.get("status") != "success":
            raise Failure("%s: %s" % (url, body[:300]))
        return answer["data"]

    def query(self, expr):
        return self.api("/api/v1/query", query=expr)["result"]

    def alerts(self, name=None):
        return [a for a in self.api("/api/v1/alerts")["alerts"]
                if name is None or a["labels"].get("alertname") == name]

    def wait(self, what, ok):
        """Polls ok() (which returns a true value when done) for SETTLE_TIMEOUT seconds."""
        end = time.monotonic() + SETTLE_TIMEOUT
        last = None
        while time.monotonic() < end:
            self.started.check_running()
            last = ok()
            if last:
                return last
            time.sleep(0.25)
        raise Failure("%s: not within %d s" % (what, SETTLE_TIMEOUT))

    def value(self, expr):
        """The single sample's value of expr, None when there is none."""
        result = self.query(expr)
        if len(result) > 1:
            raise Failure("%s: %d series, want one: %s" % (expr, len(result), result))
        return float(result[0]["value"][1]) if result else None


def promtool_checks(promtool, rules_dir, failures):
    for argv in ([promtool, "check", "rules", "gpuverify-alerts.yml"],
                 [promtool, "test", "rules", "gpuverify-alerts.test.yml"]):
        res = subprocess.run(argv, cwd=rules_dir, capture_output=True, text=True, timeout=60)
        print("$ %s: exit %d" % (" ".join(argv[1:]), res.returncode))
        if res.returncode != 0:
            failures.append("%s: exit %d: %s%s" % (" ".join(argv[1:]), res.returncode,
                                                   res.stdout[-3000:], res.stderr[-3000:]))


def test_copy(rules_file, dest):
    """The shipped rules with every `for` at 0s; the names of the rules."""
    with open(rules_file) as f:
        rules = yaml.safe_load(f)
    names = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            names.append(rule["alert"])
            if "for" in rule:
                rule["for"] = "0s"
    with open(dest, "w") as f:
        yaml.safe_dump(rules, f, sort_keys=False)
    return names


def live(args, tmp, d, timings, failures):
    gv_check, fixtures, fakelib, examples = args
    started = time.monotonic()
    textfile = os.path.join(tmp, "textfile")
    os.mkdir(textfile)
    rules = os.path.join(tmp, "gpuverify-alerts.yml")
    names = test_copy(os.path.join(examples, "prometheus", "gpuverify-alerts.yml"), rules)
    ne_port, prom_port = daemons.free_port(), daemons.free_port()
    while prom_port == ne_port:
        prom_port = daemons.free_port()
    with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
        yaml.safe_dump({
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s",
                       "evaluation_interval": "1s"},
            "rule_files": [rules],
            "scrape_configs": [{"job_name": "node",
                                "static_configs": [{"targets": ["127.0.0.1:%d" % ne_port]}]}],
        }, f, sort_keys=False)

    # A config or rule Prometheus rejects is this test's failure, never a skip.
    res = subprocess.run([shutil.which("promtool"), "check", "config",
                          os.path.join(tmp, "prometheus.yml")],
                         capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        raise Failure("promtool check config: %s%s" % (res.stdout, res.stderr))
    d.spawn("node_exporter", [
        shutil.which("prometheus-node-exporter"), "--collector.disable-defaults",
        "--collector.textfile", "--collector.textfile.directory=" + textfile,
        "--web.listen-address=127.0.0.1:%d" % ne_port])
    d.spawn("prometheus", [
        shutil.which("prometheus"), "--config.file=" + os.path.join(tmp, "prometheus.yml"),
        "--storage.tsdb.path=" + os.path.join(tmp, "data"),
        "--web.listen-address=127.0.0.1:%d" % prom_port])
    d.wait_up("node_exporter", "http://127.0.0.1:%d/metrics" % ne_port, "node_textfile_scrape_error")
    d.wait_up("prometheus", "http://127.0.0.1:%d/-/ready" % prom_port, "Ready")
    timings["daemons up"] = time.monotonic() - started
    prom = Prom(prom_port, d)
    instance = "127.0.0.1:%d" % ne_port

    loaded = [r for g in prom.api("/api/v1/rules")["groups"] for r in g["rules"]]
    if sorted(r["name"] for r in loaded) != sorted(names):
        failures.append("rules loaded %s, shipped %s" % ([r["name"] for r in loaded], names))
    # The target up (node_exporter scraped), then every rule evaluated without error.
    prom.wait("the node_exporter target up", lambda: prom.value('up{job="node"}') == 1)

    def rules_ok():
        rs = [r for g in prom.api("/api/v1/rules")["groups"] for r in g["rules"]]
        return rs if rs and all(r.get("health") == "ok" for r in rs) else None
    try:
        prom.wait("every rule evaluated with health ok", rules_ok)
    except Failure as e:
        rs = [r for g in prom.api("/api/v1/rules")["groups"] for r in g["rules"]]
        failures.append("%s: %s" % (e, [(r["name"], r.get("health"), r.get("lastError"))
                                       for r in rs]))

    # Nobody has published yet: absent() fires.
    prom.wait("GPUVerifyAbsent firing before any pass",
              lambda: [a for a in prom.alerts("GPUVerifyAbsent") if a["state"] == "firing"])

    root = os.path.join(fixtures, "sysroots", "h100-open")
    _, container, script = daemonset.load(examples)
    one_pass = daemonset.OnePass(script, gv_check, fakelib, root, textfile, tmp,
                                 daemonset.environment(container))
    published = os.path.join(textfile, "gpuverify.prom")
    scenario = lambda name: os.path.join(fixtures, "scenarios", name + ".conf")  # noqa: E731

    # Healthy.
    t = time.monotonic()
    run = one_pass.run(scenario("h100x8"), timeout=150)
    timings["pass h100x8"] = time.monotonic() - t
    print("h100x8:", run.stdout.strip())
    # The pass ends in the loop's `break`: its status is 0 whatever gv-check said.
    if not run.stdout.startswith("OK "):
        failures.append("h100x8: the pass said %r %r, want OK" % (run.stdout, run.stderr))
    t = time.monotonic()
    prom.wait("gpuverify_node_healthy 1 after h100x8",
              lambda: prom.value('gpuverify_node_healthy{instance="%s"}' % instance) == 1)
    timings["h100x8 published -> queried"] = time.monotonic() - t
    text = open(published).read() if os.path.exists(published) else ""
    # The host name's label: Hostname (dcgm-exporter's), hostname in gpuverify 1.0.0.
    m = re.search(r'^gpuverify_info\{.*\b(Hostname|hostname)="([^"]*)"', text, re.M)
    host_label, hostname = m.groups() if m else ("Hostname", None)
    info = prom.query("gpuverify_info")
    if not hostname or len(info) != 1 or info[0]["metric"].get(host_label) != hostname:
        failures.append("gpuverify_info: %s, want one series, %s %s as published"
                        % (info, host_label, hostname))
    mtime = prom.query('node_textfile_mtime_seconds{file=~"(.*/)?gpuverify\\\\.prom"}')
    if len(mtime) != 1:
        failures.append("node_textfile_mtime_seconds matching GPUVerifyStale's pattern: %s "
                        "(node_exporter names the file otherwise?)" % mtime)
    # One evaluation after the scrape: no gpuverify alert is left pending or firing.
    try:
        prom.wait("no gpuverify alert after h100x8", lambda: not prom.alerts() or None)
    except Failure as e:
        failures.append("%s: %s" % (e, [(a["labels"], a["state"]) for a in prom.alerts()]))

    # A GPU fell off the bus.
    t = time.monotonic()
    run = one_pass.run(scenario("h100x8-gpu-lost"), timeout=150)
    timings["pass h100x8-gpu-lost"] = time.monotonic() - t
    print("h100x8-gpu-lost:", run.stdout.strip())
    if not run.stdout.startswith("FAIL gpus 3: driver.gpu_count "):
        failures.append("h100x8-gpu-lost: the pass said %r %r, want FAIL gpus 3: "
                        "driver.gpu_count" % (run.stdout, run.stderr))
    t = time.monotonic()
    prom.wait("gpuverify_node_healthy 0 after h100x8-gpu-lost",
              lambda: prom.value('gpuverify_node_healthy{instance="%s"}' % instance) == 0)
    timings["gpu-lost published -> queried"] = time.monotonic() - t

    def firing(name):
        return [a for a in prom.alerts(name) if a["state"] == "firing"] or None
    t = time.monotonic()
    try:
        alerts = prom.wait("GPUVerifyNodeUnhealthy firing", lambda: firing("GPUVerifyNodeUnhealthy"))
        timings["gpu-lost published -> alert firing"] = time.monotonic() - t + \
            timings["gpu-lost published -> queried"]
        want = {"alertname": "GPUVerifyNodeUnhealthy", "instance": instance, "job": "node",
                host_label: hostname, "severity": "critical"}
        if len(alerts) != 1 or alerts[0]["labels"] != want:
            failures.append("GPUVerifyNodeUnhealthy: %s, want one alert labelled %s"
                            % ([a["labels"] for a in alerts], want))
        summary = alerts[0]["annotations"].get("summary", "")
        if instance not in summary:
            failures.append("GPUVerifyNodeUnhealthy's summary does not name the node: %r"
                            % summary)
        print("GPUVerifyNodeUnhealthy firing: %s" % json.dumps(alerts[0]["annotations"]))
    except Failure as e:
        failures.append("%s: %s" % (e, [(a["labels"], a["state"]) for a in prom.alerts()]))

    text = open(published).read() if os.path.exists(published) else ""
    # One GPUVerifyCheckFailed per FAIL row the file has, labelled with the row's labels.
    def unescape(v):
        return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)
    rows = [{k: unescape(v) for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1))}
            for m in re.finditer(r'^gpuverify_check_status\{(.*)\} 1$', text, re.M)]
    want = sorted(sorted(dict(r, alertname="GPUVerifyCheckFailed", instance=instance, job="node",
                              severity="critical").items())
                  for r in rows if r.get("verdict") == "FAIL")
    if rows:
        try:
            prom.wait("GPUVerifyCheckFailed firing for each FAIL row", lambda: len(
                firing("GPUVerifyCheckFailed") or []) >= len(want) or None)
        except Failure:
            pass
        got = sorted(sorted(a["labels"].items()) for a in firing("GPUVerifyCheckFailed") or [])
        if not any(dict(w).get("check") == "driver.gpu_count" for w in want):
            failures.append("the file's FAIL rows have no driver.gpu_count: %s" % rows)
        if not want or got != want:
            failures.append("GPUVerifyCheckFailed: firing %s, want one per FAIL row: %s"
                            % (got, want))
        else:
            print("GPUVerifyCheckFailed firing %d: %s" % (len(got), "; ".join(
                a["annotations"]["description"] for a in firing("GPUVerifyCheckFailed"))))
    else:
        print("NOTE: the file has no gpuverify_check_status yet: GPUVerifyCheckFailed is only "
              "unit-tested")
    for name in ("GPUVerifyStale", "GPUVerifyAbsent"):
        if prom.alerts(name):
            failures.append("%s after a fresh pass: %s" % (name, prom.alerts(name)))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    args = list(map(os.path.abspath, sys.argv[1:5]))
    examples = args[3]
    failures, timings = [], {}
    started = time.monotonic()
    tools = {t: shutil.which(t) for t in ("promtool", "prometheus", "prometheus-node-exporter")}
    missing = [t for t, p in tools.items() if not p]
    if missing:
        print("FAIL not installed: %s (scripts/setup-debian.sh installs them)" % " ".join(missing))
        return 1
    promtool_checks(tools["promtool"], os.path.join(examples, "prometheus"), failures)
    tmp = tempfile.mkdtemp(prefix="gv-prometheus-")
    d = Daemons(tmp)
    try:
        live(args, tmp, d, timings, failures)
    except Skip as e:
        d.stop()
        if not failures:
            print("SKIP:", e)
            shutil.rmtree(tmp, ignore_errors=True)
            return SKIP
        failures.append("and then, not a failure alone: %s" % e)
    except (Failure, subprocess.SubprocessError, OSError, ValueError) as e:
        failures.append("%s: %s" % (type(e).__name__, e))
    finally:
        d.stop()
    for name, dur in timings.items():
        print("%-36s %6.2f s" % (name, dur))
    print("whole test %.1f s" % (time.monotonic() - started))
    if failures:
        for name in ("node_exporter", "prometheus"):
            print("--- %s log: %s" % (name, d.tail(name, 15)))
        print("(kept %s)" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("prometheus: %d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
