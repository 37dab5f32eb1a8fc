# SPDX-License-Identifier: Apache-2.0
"""gpuverify's image, built and run: container/build-image.sh builds container/Containerfile (a
Debian 12 base bootstrapped from the Debian mirror where no registry answers) and checks
`gv-check --version` and the fakes' exit status inside as outside; then, in the image:
- no NVIDIA library (the NVIDIA container toolkit injects them) and the toolkit's variables;
- the DaemonSet's own command line (its command and args, one pass of the loop) with the node's
  root at /host and the fake NVIDIA libraries on the loader's path, as the toolkit gives them:
  a healthy node publishes gpuverify_node_healthy 1, a lost GPU 0;
- the DaemonSet's liveness probe: passes on that fresh file, fails on a file 3 passes old and
  on none;
- node-problem-detector: the snippet's init container copies gv-check into an emptyDir, and the
  monitor's rule (path and args) runs from it in an image without gpuverify's libraries;
- the DaemonSet's and the snippet's image is the tag build-image.sh gives;
- `scripts/setup-debian.sh build` (the README's first command's setup) in the bare base: no
  daemon package (Slurm, munge, Prometheus, buildah) and no new systemd unit.
The storage (buildah/podman) is the build tree's own: the bootstrapped base is made once.

Usage (ctest): test_image.py SOURCE_DIR BUILD_DIR. Exit 77 (skip) without root, buildah or
podman (or docker with a daemon), or a base image (no registry and no debootstrap)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import yaml

SKIP = 77
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg, flush=True)


def pick_tool():
    if os.environ.get("TOOL"):
        return os.environ["TOOL"]
    for t in ("buildah", "podman", "docker"):
        if shutil.which(t):
            if t == "docker" and subprocess.run(["docker", "info"], capture_output=True).returncode:
                continue
            return t
    return None


class Image:
    def __init__(self, tool, name):
        self.tool, self.name = tool, name

    def run(self, cmd, mounts=(), env=None, image=None):
        """cmd inside the image; mounts (src, dst, 'ro'|'rw'); returns (status, output)."""
        image = image or self.name
        if env:
            cmd = ["env"] + ["%s=%s" % kv for kv in env.items()] + list(cmd)
        vols = []
        for src, dst, mode in mounts:
            vols += ["-v", "%s:%s:%s" % (src, dst, mode)]
        if self.tool == "buildah":
            c = subprocess.run(["buildah", "from", "--pull-never", "--quiet", image],
                               capture_output=True, text=True, check=True).stdout.strip()
            try:
                r = subprocess.run(["buildah", "run"] + vols + [c, "--"] + list(cmd),
                                   capture_output=True, text=True, timeout=300)
            finally:
                subprocess.run(["buildah", "rm", c], capture_output=True)
        else:
            r = subprocess.run([self.tool, "run", "--rm"] + vols + [image] + list(cmd),
                               capture_output=True, text=True, timeout=300)
        return r.returncode, r.stdout + r.stderr

    def config(self):
        if self.tool == "buildah":
            out = subprocess.run(["buildah", "inspect", "--type", "image", self.name],
                                 capture_output=True, text=True, check=True).stdout
            return json.loads(out)["OCIv1"]["config"]
        out = subprocess.run([self.tool, "image", "inspect", self.name],
                             capture_output=True, text=True, check=True).stdout
        d = json.loads(out)[0]
        return d.get("Config") or d.get("config")


def main():
    src, build = map(os.path.abspath, sys.argv[1:3])
    script = os.path.join(src, "container", "build-image.sh")
    fixtures, fakelib = os.path.join(build, "tests", "fixtures"), os.path.join(build, "tests", "fakelib")
    if os.geteuid() != 0:
        print("SKIP: building an image needs root here (buildah/podman as root, debootstrap)")
        return SKIP
    tool = pick_tool()
    if not tool:
        print("SKIP: no buildah, podman or docker with a daemon (Debian: apt-get install buildah)")
        return SKIP
    os.environ.setdefault("BUILDAH_ISOLATION", "chroot")  # as build-image.sh: works in a container
    env = dict(os.environ, TOOL=tool)
    if tool in ("buildah", "podman"):
        # The build tree's own storage, so that CI leaves the machine's alone and the base made
        # by debootstrap is kept for the next run; overlay where the kernel has it and the folder is not on overlayfs, else vfs.
        store = os.path.join(build, "tests", "container-storage")
        os.makedirs(store, exist_ok=True)
        conf = os.path.join(store, "storage.conf")
        fs = subprocess.run(["stat", "-f", "-c", "%T", store], capture_output=True, text=True).stdout
        overlay = "overlay" in open("/proc/filesystems").read() and "overlay" not in fs
        with open(conf, "w") as f:
            f.write('[storage]\ndriver = "%s"\ngraphroot = "%s/graph"\nrunroot = "%s/run"\n'
                    % ("overlay" if overlay else "vfs", store, store))
        env["CONTAINERS_STORAGE_CONF"] = conf
        os.environ["CONTAINERS_STORAGE_CONF"] = conf
    tag = subprocess.run(["sh", script, "--print-tag"], capture_output=True, text=True,
                         check=True).stdout.strip()
    start = time.monotonic()
    r = subprocess.run(["sh", script, "--check", build], env=env, capture_output=True, text=True,
                       timeout=1500)
    took = time.monotonic() - start
    log = r.stdout + r.stderr
    print("\n".join(l for l in log.splitlines() if l.startswith("build-image.sh:")))
    if r.returncode == SKIP:
        print("SKIP: build-image.sh could not build here")
        return SKIP
    if r.returncode != 0:
        print(log[-6000:])
        fail("build-image.sh exited %d after %.0f s" % (r.returncode, took))
        return 1
    print("build and checks: %.0f s" % took)
    img = Image(tool, tag)

    # No NVIDIA library in the image; the toolkit's variables set.
    found = img.run(["find", "/", "-xdev", "(", "-name", "libcuda.so*", "-o", "-name", "libnvidia-*",
                     "-o", "-name", "libcublas*", "-o", "-name", "libcudnn*", "-o", "-name",
                     "libnccl*", "-o", "-name", "libcudart*", ")", "-print"])
    if found[0] != 0 or found[1].strip():
        fail("NVIDIA libraries in the image (or find failed): %r" % found[1][:500])
    config = img.config()
    envs = config.get("Env") or []
    for want in ("NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"):
        if want not in envs:
            fail("image Env lacks %s: %s" % (want, envs))
    labels = config.get("Labels") or {}
    if not labels.get("org.opencontainers.image.version") or "org.opencontainers.image.title" not in labels:
        fail("image without its org.opencontainers.image labels: %s" % labels)

    # The DaemonSet's own command line, one pass, in the image.
    with open(os.path.join(src, "examples", "integrations", "kubernetes", "gpuverify-daemonset.yaml")) as f:
        pod = next(d for d in yaml.safe_load_all(f) if d and d["kind"] == "DaemonSet")
    pod = pod["spec"]["template"]["spec"]
    c = pod["containers"][0]
    if c["image"] != tag:
        fail("the DaemonSet's image %s is not build-image.sh's tag %s" % (c["image"], tag))
    # One pass: the loop's pause becomes its end, and the pass watches for Xids a second.
    sys.path.insert(0, os.path.join(src, "tests", "integrations"))
    import daemonset
    if daemonset.SLEEP not in c["args"][0]:
        fail("the DaemonSet's loop has no %r to end one pass at" % daemonset.SLEEP)
        return 1
    one_pass = c["command"] + [c["args"][0].replace(daemonset.SLEEP, "break") + "\nexit $?"]
    probe = c["livenessProbe"]["exec"]["command"]
    with tempfile.TemporaryDirectory() as tmp:
        textfile, state = os.path.join(tmp, "textfile"), os.path.join(tmp, "state")
        os.mkdir(textfile)
        os.mkdir(state)
        published = os.path.join(textfile, "gpuverify.prom")
        for scenario, healthy in (("h100x8", 1), ("h100x8-gpu-lost", 0)):
            st, out = img.run(one_pass, mounts=[
                (os.path.join(fixtures, "sysroots", "h100-open"), "/host", "ro"),
                (textfile, "/textfile", "rw"), (state, "/state", "rw"),
                (fakelib, "/usr/local/nvidia/lib64", "ro"),
                (os.path.join(fixtures, "scenarios"), "/scenarios", "ro")],
                env={"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64",
                     "GV_FAKE_SCENARIO": "/scenarios/%s.conf" % scenario,
                     "GPUVERIFY_INTERVAL_S": daemonset.WATCH_S})
            text = open(published).read() if os.path.exists(published) else ""
            if "\ngpuverify_node_healthy %d\n" % healthy not in text:
                fail("DaemonSet pass in the image, %s: exit %d, published %r, want "
                     "gpuverify_node_healthy %d: %s" % (scenario, st, text[:200], healthy, out[-800:]))
            else:
                print("DaemonSet pass in the image, %s: exit %d, gpuverify_node_healthy %d"
                      % (scenario, st, healthy))
        # Each pass a run of the node's history, written by the image's libsqlite3.
        db = os.path.join(state, "history.db")
        runs = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0] \
            if os.path.exists(db) else 0
        if runs != 2:
            fail("DaemonSet passes in the image: %d run(s) in /state/history.db, want 2" % runs)
        # Its liveness probe, in the image: fresh passes, 3 passes old or absent fails.
        mounts = [(textfile, "/textfile", "ro")]
        env = {e["name"]: e["value"] for e in c.get("env", []) if "value" in e}
        stale = 3 * (int(env["GPUVERIFY_INTERVAL_S"]) + 150) + 60
        # A container that could not start (buildah beside a loaded CI) is not the probe's
        # answer: the fresh file is asked twice before its failure counts.
        st_fresh, fresh_out = img.run(probe, mounts, env)
        if st_fresh != 0:
            print("liveness probe on the fresh file: %d, again: %s" % (st_fresh, fresh_out[-300:]))
            st_fresh, fresh_out = img.run(probe, mounts, env)
        old = time.time() - stale
        if os.path.exists(published):
            os.utime(published, (old, old))
        st_old = img.run(probe, mounts, env)[0]
        if os.path.exists(published):
            os.unlink(published)
        st_none = img.run(probe, mounts, env)[0]
        if st_fresh != 0 or st_old == 0 or st_none == 0:
            fail("liveness probe: fresh file %d (want 0), %d s old %d, absent %d (want non-zero): %s"
                 % (st_fresh, stale, st_old, st_none, fresh_out[-300:]))
        else:
            print("liveness probe: fresh 0, %d s old %d, absent %d" % (stale, st_old, st_none))

        # node-problem-detector: the init container's copy, the rule run from it elsewhere.
        with open(os.path.join(src, "examples", "integrations", "node-problem-detector",
                               "npd-daemonset-snippet.yaml")) as f:
            npd = yaml.safe_load(f)["spec"]["template"]["spec"]
        with open(os.path.join(src, "examples", "integrations", "node-problem-detector",
                               "gpuverify-monitor.json")) as f:
            rule = json.load(f)["rules"][0]
        init = npd["initContainers"][0]
        if init["image"] != tag:
            fail("the NPD snippet's init image %s is not %s" % (init["image"], tag))
        shared = os.path.join(tmp, "shared")
        os.mkdir(shared)
        dst = init["volumeMounts"][0]["mountPath"]
        st, out = img.run(init["command"] + init["args"], [(shared, dst, "rw")])
        if st != 0:
            fail("the NPD init container's script: exit %d: %s" % (st, out))
        npd_mounts = []
        for m in npd["containers"][0]["volumeMounts"]:
            if m["name"] == "gpuverify":
                npd_mounts.append((os.path.join(shared, m.get("subPath", "")).rstrip("/"),
                                   m["mountPath"], "ro"))
        # NPD's stand-in: the base image, Debian 12 without libjansson and libhwloc.
        base = labels.get("org.opencontainers.image.base.name")
        bare = img.run(["sh", "-c", "ls /usr/lib/x86_64-linux-gnu/libjansson.so.4"], image=base)[0]
        if bare == 0:
            fail("the base %s has libjansson: not a stand-in for NPD's image" % base)
        for scenario, want_status, want in (("h100x8", 0, "OK "), ("h100x8-gpu-lost", 1, "FAIL gpus 3: driver.gpu_count")):
            st, out = img.run([rule["path"]] + rule["args"] + ["--host-root", "/fx/sysroots/h100-open"],
                              npd_mounts + [(fixtures, "/fx", "ro"), (fakelib, "/usr/local/nvidia/lib64", "ro")],
                              env={"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64",
                                   "GV_FAKE_SCENARIO": "/fx/scenarios/%s.conf" % scenario}, image=base)
            line = out.strip().splitlines()[0] if out.strip() else ""
            if st != want_status or not line.startswith(want):
                fail("NPD rule in %s, %s: exit %d, %r; want %d %r" % (base, scenario, st, out[-600:],
                                                                      want_status, want))
            else:
                print("NPD rule from the copy in %s, %s: exit %d: %s" % (base, scenario, st, line))
        # The README's first command sets up with `setup-debian.sh build`: on a fresh Debian 12
        # it installs what building gv-check needs and no daemon (a GPU node must not get a
        # second node_exporter, slurmd or munged), and no service unit.
        units = "ls /lib/systemd/system /etc/systemd/system 2>/dev/null | sort"
        st, out = img.run(["sh", "-c", units + " >/tmp/before && sh /src/scripts/setup-debian.sh "
                           "build >/tmp/setup.log 2>&1 || { tail -n 20 /tmp/setup.log; exit 1; }; "
                           + units + " >/tmp/after; echo UNITS $(comm -13 /tmp/before /tmp/after); "
                           "echo PACKAGES $(dpkg-query -W -f '${Package} ')"],
                          [(src, "/src", "ro")], image=base)
        said = dict(l.partition(" ")[::2] for l in out.splitlines()
                    if l.startswith(("UNITS", "PACKAGES")))
        packages = said.get("PACKAGES", "").split()
        daemons = [p for p in packages if p.startswith(("slurm", "prometheus", "munge", "buildah"))]
        if st != 0 or "cmake" not in packages or daemons or said.get("UNITS", "x").strip():
            fail("setup-debian.sh build on a fresh %s: exit %d, daemons %s, new units %r: %s"
                 % (base, st, daemons, said.get("UNITS"), out[-800:]))
        else:
            print("setup-debian.sh build on a fresh %s: %d packages, no daemon, no unit"
                  % (base, len(packages)))
    # The image goes, the base stays for the next run; images the tag left behind go too.
    if tool == "buildah":
        subprocess.run(["buildah", "rmi", "-f", tag], capture_output=True)
        subprocess.run(["buildah", "rmi", "--prune"], capture_output=True)
    else:
        subprocess.run([tool, "rmi", "-f", tag], capture_output=True)
        subprocess.run([tool, "image", "prune", "-f"], capture_output=True)
    print("container image: %d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
