# SPDX-License-Identifier: Apache-2.0
"""gpuverify's Helm chart (examples/integrations/kubernetes/chart/gpuverify), rendered by
scripts/render-chart.py as `helm template` would (Debian has no helm):
  - with the default values it is the plain manifest, byte for byte (which test_kubernetes.py
    and test_prometheus.py run), so the two cannot drift;
  - values take effect: the interval, the passive checks, the image, privileges, the namespace,
    node selector and tolerations;
  - with the active checks on, one pass of the rendered loop over the fakes publishes the
    passive run's file and adds the active run to the history (2 runs), the file's verdict
    the passive pass's;
  - the renderer refuses what it does not render as Helm does: a construct outside the subset,
    a missing value, a wrong argument count.

Usage (ctest): test_chart.py GV_CHECK FIXTURES FAKELIB SOURCE_DIR"""
import importlib.util
import os
import sqlite3
import sys
import tempfile

import yaml

import daemonset


def load_renderer(source):
    path = os.path.join(source, "scripts", "render-chart.py")
    spec = importlib.util.spec_from_file_location("render_chart", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def objects(text):
    return {d["kind"]: d for d in yaml.safe_load_all(text) if d}


def main():
    gv_check, fixtures, fakelib, source = map(os.path.abspath, sys.argv[1:5])
    rc = load_renderer(source)
    failures = []

    # Defaults: the plain manifest.
    with open(rc.MANIFEST) as f:
        manifest = f.read()
    if manifest != rc.MANIFEST_HEADER + rc.render():
        failures.append("gpuverify-daemonset.yaml is not the chart rendered with its defaults: "
                        "run scripts/render-chart.py --write-manifest")

    # Values take effect.
    values = {"passive": {"intervalSeconds": 30, "checks": "^cuda,^mem"},
              "image": {"repository": "registry.example/gpuverify", "tag": "9.9"},
              "privileged": False, "namespace": {"name": "ops", "create": False},
              "nodeSelector": {"gpu": "yes", "nvidia.com/gpu.present": None},
              "tolerations": [{"operator": "Exists"}]}
    docs = objects(rc.render(values=values))
    ds = docs.get("DaemonSet", {})
    pod = ds.get("spec", {}).get("template", {}).get("spec", {})
    c = (pod.get("containers") or [{}])[0]
    env = daemonset.environment(c)
    checks = [
        ("no Namespace with namespace.create false", "Namespace" not in docs),
        ("namespace", ds.get("metadata", {}).get("namespace") == "ops"),
        ("interval", env.get("GPUVERIFY_INTERVAL_S") == "30"),
        ("checks", "--checks '^cuda,^mem'" in (c.get("args") or [""])[0]),
        ("image", c.get("image") == "registry.example/gpuverify:9.9"),
        ("not privileged", c.get("securityContext") == {"privileged": False}),
        ("nodeSelector", pod.get("nodeSelector") == {"gpu": "yes"}),
        ("tolerations", pod.get("tolerations") == [{"operator": "Exists"}]),
        ("no active pass by default", "GPUVERIFY_ACTIVE_EVERY_S" not in env),
        # The first file comes after the first pass's watch of the interval: the probe waits it.
        ("the probe waits one interval and timeout",
         c.get("livenessProbe", {}).get("initialDelaySeconds") == 30 + 150 + 30),
    ]
    failures += ["--set %s: not in the render" % what for what, ok in checks if not ok]

    # The active pass, run: the rendered loop, once, over the fakes.
    active = objects(rc.render(values={"active": {"everySeconds": 3600}}))["DaemonSet"]
    pod = active["spec"]["template"]["spec"]
    c = pod["containers"][0]
    env = daemonset.environment(c)
    probe = c["livenessProbe"]["exec"]["command"][-1]
    if env.get("GPUVERIFY_ACTIVE_EVERY_S") != "3600" or "+ 560" not in probe:
        failures.append("active.everySeconds: environment %s, probe %r (want its 560 s)"
                        % (env, probe))
    with tempfile.TemporaryDirectory() as tmp:
        textfile = os.path.join(tmp, "textfile")
        os.mkdir(textfile)
        one = daemonset.OnePass(c["args"][0], gv_check, fakelib,
                                os.path.join(fixtures, "sysroots", "h100-open"), textfile, tmp,
                                env)
        run = one.run(os.path.join(fixtures, "scenarios", "h100x8.conf"))
        db = os.path.join(one.state, "history.db")
        runs = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0] \
            if os.path.exists(db) else 0
        published = os.path.join(textfile, "gpuverify.prom")
        text = open(published).read() if os.path.exists(published) else ""
        if runs != 2 or "\ngpuverify_node_healthy 1\n" not in text or \
                'check="gemm.' in text or "mem.test" in text:
            failures.append("one pass with the active checks: %d run(s) in the history (want "
                            "2), textfile %s (want the passive pass's, healthy): exit %d %s"
                            % (runs, "written" if text else "missing", run.returncode,
                               (run.stdout + run.stderr)[-600:]))
        else:
            print("one pass with the active checks: 2 runs in the history, the passive "
                  "pass's file published")

    # What the renderer refuses.
    context = {"Values": {"a": 1, "m": {"k": "v"}}, "Release": {}, "Chart": {}}
    for template in ("{{ range .Values.m }}x{{ end }}", "{{ .Values.missing }}",
                     "{{ include \"x\" . }}", "{{ nindent 2 }}", "{{ if .Values.a }}x",
                     "{{ .Values.m }}", "{{ .Values.a | upper }}"):
        try:
            rc.render_template(template, context)
            failures.append("render-chart.py rendered %r instead of refusing it" % template)
        except rc.TemplateError:
            pass
    # And what it renders, as Helm does.
    for template, want in (("a{{- \" \" }}", "a "), ("x  {{- .Values.a -}}  y", "x1y"),
                           ("{{ .Values.m | toYaml | nindent 2 }}", "\n  k: v"),
                           ("{{ \"true\" | quote }}", '"true"'),
                           ("{{ toYaml .Values.t }}", '- "true"\n- x: "1"\n  y: b')):
        ctx = dict(context, Values=dict(context["Values"], t=["true", {"x": "1", "y": "b"}]))
        got = rc.render_template(template, ctx)
        if got != want:
            failures.append("render-chart.py: %r gave %r, want %r" % (template, got, want))

    for f in failures:
        print("FAIL", f)
    print("Helm chart: %d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
