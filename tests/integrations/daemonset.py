# SPDX-License-Identifier: Apache-2.0
"""The Kubernetes DaemonSet (examples/integrations/kubernetes/gpuverify-daemonset.yaml) as the
tests run it: its pod spec, and one pass of its loop over the fakes: the NVIDIA libraries on the
loader's path (as the NVIDIA container toolkit injects them), a fixture sysroot at the hostPath
mount /host, folders of the test's for /textfile and /state. Shared by test_kubernetes.py and
test_prometheus.py."""
import os
import subprocess

import yaml


# The loop's pause after a pass that ended early: one pass of the loop ends there.
SLEEP = 'if [ "$left" -gt 0 ]; then sleep "$left"; fi'
# Each pass watches NVML's Xid events for the interval before judging: a second here, not the
# pod's minute.
WATCH_S = "1"
# The node's name the downward API gives the pod (spec.nodeName) in these tests.
NODE_NAME = "node-a7"


def documents(examples):
    """The manifest's objects: {kind: object}."""
    with open(os.path.join(examples, "kubernetes", "gpuverify-daemonset.yaml")) as f:
        return {d["kind"]: d for d in yaml.safe_load_all(f) if d}


def environment(container):
    """The container's environment as the pod gets it: values, and spec.nodeName as NODE_NAME."""
    env = {}
    for e in container.get("env", []):
        if "value" in e:
            env[e["name"]] = str(e["value"])
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            env[e["name"]] = NODE_NAME
    return env


def load(examples):
    """The manifest's pod spec, its container, and the container's shell script."""
    manifest = documents(examples)["DaemonSet"]
    pod = manifest["spec"]["template"]["spec"]
    container = pod["containers"][0]
    return pod, container, container["args"][0]


class OnePass:
    """One pass of the script's loop (its sleep becomes `break`), /host replaced by `root`,
    /textfile/ by `textfile` and /state/ by `tmp`/state/ (the history database's folder, kept
    across passes as the node's is), gv-check found on PATH as in the image."""

    def __init__(self, script, gv_check, fakelib, root, textfile, tmp, env=None):
        self.fakelib = fakelib
        self.pod_env = env or {}
        self.bindir = os.path.join(tmp, "bin")
        os.makedirs(self.bindir, exist_ok=True)
        link = os.path.join(self.bindir, "gv-check")
        if not os.path.lexists(link):
            os.symlink(gv_check, link)
        self.state = os.path.join(tmp, "state")
        os.makedirs(self.state, exist_ok=True)
        self.script = (script.replace(SLEEP, "break").replace("/host", root)
                       .replace("/textfile/", textfile.rstrip("/") + "/")
                       .replace("/state/", self.state + "/"))

    def run(self, scenario_conf, timeout=300):
        """Runs the pass with GV_FAKE_SCENARIO=scenario_conf; the CompletedProcess (text)."""
        env = dict(os.environ, PATH=self.bindir + os.pathsep + os.environ["PATH"],
                   LD_LIBRARY_PATH=self.fakelib, GV_FAKE_SCENARIO=scenario_conf)
        # The pod's environment has none of gpuverify's settings; the test's own lock folder
        # (tests/CMakeLists.txt) stays, so tests side by side do not wait for one another.
        for k in [k for k in env if k.startswith("GPUVERIFY_") and k != "GPUVERIFY_LOCK_DIR"]:
            del env[k]
        env.update(self.pod_env)
        env["GPUVERIFY_INTERVAL_S"] = WATCH_S
        return subprocess.run(["/bin/sh", "-c", self.script + "\nexit $?"], env=env,
                              capture_output=True, text=True, timeout=timeout)
