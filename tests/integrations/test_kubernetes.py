# SPDX-License-Identifier: Apache-2.0
"""The Kubernetes DaemonSet's own command line, run as the pod would run it, over the fakes: the
NVIDIA libraries on the loader's path (as the NVIDIA container toolkit injects them), the node's
root at the hostPath mount, one pass of its loop. A healthy node publishes
gpuverify_node_healthy 1; the same node with a GPU fallen off the bus publishes 0 in place of
it (the file replaced although gv-check exits 1), readable by the collector and accepted by
`promtool check metrics`; each pass is a run of the node's history database (/state).

Usage (ctest): test_kubernetes.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile

import daemonset
import yaml


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    pod, container, script = daemonset.load(examples)
    failures = []
    if not pod.get("hostPID"):
        failures.append("DaemonSet without hostPID: NVML would list no other pod's process")
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    if volumes["host"]["hostPath"]["path"] != "/" or mounts["host"]["mountPath"] != "/host":
        failures.append("the node's / is not mounted at /host")
    if "--host-root /host" not in script or "--textfile /textfile/" not in script:
        failures.append("the command does not read the host live and publish with --textfile")
    if volumes.get("state", {}).get("hostPath", {}).get("path") != "/var/lib/gpuverify" or \
            mounts.get("state", {}).get("mountPath") != "/state" or "--state /state/" not in script:
        failures.append("the history database is not kept on the node (/var/lib/gpuverify at "
                        "/state, --state /state/...)")
    # The kernel log (gpu.xid): the device mounted where --host-root looks, and a privileged
    # container with CAP_SYSLOG to open it, as node-problem-detector's kernel monitor.
    security = container.get("securityContext", {})
    if volumes.get("kmsg", {}).get("hostPath", {}).get("path") != "/dev/kmsg" or \
            mounts.get("kmsg", {}).get("mountPath") != "/host/dev/kmsg" or \
            not security.get("privileged") or \
            "SYSLOG" not in security.get("capabilities", {}).get("add", []):
        failures.append("the pod cannot read the kernel log: /dev/kmsg not mounted at "
                        "/host/dev/kmsg, or the container not privileged with CAP_SYSLOG")
    if daemonset.SLEEP not in script:
        failures.append("the loop's sleep is not %r; the test runs one pass by it" %
                        daemonset.SLEEP)
    env = daemonset.environment(container)
    if env.get("GPUVERIFY_NODE_NAME") != daemonset.NODE_NAME or \
            not 30 <= int(env.get("GPUVERIFY_INTERVAL_S", "0")) <= 120:
        failures.append("the pod's environment: GPUVERIFY_NODE_NAME not from spec.nodeName, or "
                        "GPUVERIFY_INTERVAL_S not a minute or so: %s" % env)
    namespace = daemonset.documents(examples).get("Namespace", {})
    if namespace.get("metadata", {}).get("labels", {}).get(
            "pod-security.kubernetes.io/enforce") != "privileged":
        failures.append("no Namespace with Pod Security 'privileged' for the privileged pod")
    if not any(t.get("key") == "gpuverify/gpu-unusable" for t in pod.get("tolerations", [])):
        failures.append("the pod does not tolerate gpuverify/gpu-unusable: a node it tainted "
                        "could never be seen healthy again")
    # The PrometheusRule holds the alert rules' groups unchanged (one source,
    # scripts/make-prometheusrule.py).
    prom_dir = os.path.join(examples, "prometheus")
    with open(os.path.join(prom_dir, "gpuverify-alerts.yml")) as f:
        groups = yaml.safe_load(f)["groups"]
    with open(os.path.join(prom_dir, "gpuverify-prometheusrule.yaml")) as f:
        rule = yaml.safe_load(f)
    if rule.get("kind") != "PrometheusRule" or rule.get("spec", {}).get("groups") != groups:
        failures.append("gpuverify-prometheusrule.yaml differs from gpuverify-alerts.yml: run "
                        "scripts/make-prometheusrule.py")
    root = os.path.join(fixtures, "sysroots", "h100-open")
    promtool = shutil.which("promtool")
    with tempfile.TemporaryDirectory() as tmp:
        textfile = os.path.join(tmp, "textfile")
        os.mkdir(textfile)
        one_pass = daemonset.OnePass(script, gv_check, fakelib, root, textfile, tmp, env)
        published = os.path.join(textfile, "gpuverify.prom")
        for scenario, healthy in (("h100x8", 1), ("h100x8-gpu-lost", 0)):
            run = one_pass.run(os.path.join(fixtures, "scenarios", scenario + ".conf"))
            text = open(published).read() if os.path.exists(published) else ""
            if "\ngpuverify_node_healthy %d\n" % healthy not in text:
                failures.append("%s: published %r, want gpuverify_node_healthy %d (exit %d, %s)"
                                % (scenario, text[:200], healthy, run.returncode,
                                   run.stdout.strip()))
            if not healthy and "driver.gpu_count" not in run.stdout:
                failures.append("%s: the line does not name driver.gpu_count: %r"
                                % (scenario, run.stdout))
            if os.path.exists(published) and not os.stat(published).st_mode & stat.S_IROTH:
                failures.append("%s: the file is not readable by the collector's user" % scenario)
            db = os.path.join(one_pass.state, "history.db")
            runs = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0] \
                if os.path.exists(db) else 0
            hosts = sqlite3.connect(db).execute("SELECT DISTINCT hostname FROM runs").fetchall() \
                if os.path.exists(db) else []
            if hosts != [(daemonset.NODE_NAME,)] or \
                    'Hostname="%s"' % daemonset.NODE_NAME not in text:
                failures.append("%s: the node is not named %s (the downward API's) in the "
                                "metrics and the history: %s" % (scenario, daemonset.NODE_NAME,
                                                                 hosts))
            if runs != (1 if healthy else 2):
                failures.append("%s: %d run(s) in the history database after this pass, want "
                                "%d" % (scenario, runs, 1 if healthy else 2))
            left = [n for n in os.listdir(textfile) if n != "gpuverify.prom"]
            if left:
                failures.append("%s: left behind in the textfile folder: %s" % (scenario, left))
            if promtool and text:
                check = subprocess.run([promtool, "check", "metrics"], input=text,
                                       capture_output=True, text=True)
                if check.returncode != 0:
                    failures.append("%s: promtool: %s%s" % (scenario, check.stdout, check.stderr))
        # A node whose kernel log the pod cannot read: not a quiet pass (a SKIP publishes no
        # series).
        for with_log in (True, False):
            node = os.path.join(tmp, "xid-node-%d" % with_log)
            shutil.copytree(os.path.join(fixtures, "sysroots", "h100-xid"), node, symlinks=True)
            if not with_log:
                os.unlink(os.path.join(node, "dev", "kmsg"))
            xid_pass = daemonset.OnePass(script, gv_check, fakelib, node, textfile,
                                         os.path.join(tmp, "xid-%d" % with_log), env)
            run = xid_pass.run(os.path.join(fixtures, "scenarios", "h100x8-xid.conf"))
            text = open(published).read() if os.path.exists(published) else ""
            # With the log, gpu3's Xid 79 (a FAIL); without it, the node's row not judged
            # (a WARN, fix_config): both published.
            want = ('check="gpu.xid",subject="gpu3",verdict="FAIL"' if with_log else
                    'check="gpu.xid",subject="node",verdict="WARN",action="fix_config"')
            if want not in text:
                failures.append("h100-xid, kernel log %s: no %s series published (exit %d, %s)"
                                % ("present" if with_log else "absent", want, run.returncode,
                                   run.stdout.strip()))
            if with_log:
                continue
            # Without the log, an Xid NVML reports while the pass watches FAILs its GPU.
            run = xid_pass.run(os.path.join(fixtures, "scenarios", "h100x8-xid-event.conf"))
            text = open(published).read() if os.path.exists(published) else ""
            want = 'check="gpu.xid",subject="gpu5",verdict="FAIL"'
            if want not in text:
                failures.append("h100-xid, kernel log absent, Xid 79 reported by NVML: no %s "
                                "series published (exit %d, %s)"
                                % (want, run.returncode, run.stdout.strip()))
    for f in failures:
        print("FAIL", f)
    print("kubernetes DaemonSet: %d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
