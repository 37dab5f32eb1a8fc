#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Renders gpuverify's Helm chart (examples/integrations/kubernetes/chart/gpuverify) as
`helm template` would, for the tests and for the plain manifest, where no helm is installed
(Debian packages none). It implements the part of Helm's template language the chart uses and
refuses everything else, so a template it cannot render as Helm does is an error, never a
guess:
  {{ .Values.a.b }}, {{ .Chart.AppVersion }}, {{ .Release.Name }}, {{ .Release.Namespace }}
  pipelines of quote, toYaml, nindent N, indent N, default X, and add A B
  {{ if PIPELINE }} ... {{ else }} ... {{ end }}, {{/* comments */}}, {{- and -}} trimming
A missing value is an error (helm's --strict). toYaml writes what Helm's does for the values'
kinds: keys sorted, sequences not indented under their key, strings double-quoted where plain
text would read as another type.

    scripts/render-chart.py [--set key=value]... [-f values.yaml]... [-o FILE]
    scripts/render-chart.py --write-manifest   # examples/.../gpuverify-daemonset.yaml

Exit 0 rendered, 1 a template or value it cannot render, 2 usage."""
import argparse
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
KUBERNETES = os.path.join(HERE, "..", "examples", "integrations", "kubernetes")
CHART = os.path.join(KUBERNETES, "chart", "gpuverify")
MANIFEST = os.path.join(KUBERNETES, "gpuverify-daemonset.yaml")
# Helm's install order for the kinds the chart has.
KIND_ORDER = ["Namespace", "ConfigMap", "DaemonSet"]
MANIFEST_HEADER = """# SPDX-License-Identifier: Apache-2.0
# gpuverify's DaemonSet and its Namespace: the Helm chart in chart/gpuverify rendered with its
# default values by scripts/render-chart.py --write-manifest (edit the chart, then run it; CI
# fails when the two differ). `kubectl apply -f` this, or `helm install` the chart.
"""


class TemplateError(Exception):
    pass


ACTION = re.compile(r"\{\{(-\s)?\s*(.*?)\s*(\s-)?\}\}", re.S)


def tokens(text):
    """[("text", s) | ("action", s)] with Helm's trimming applied to the texts."""
    out, pos = [], 0
    for m in ACTION.finditer(text):
        before = text[pos:m.start()]
        if m.group(1):
            before = before.rstrip(" \t\r\n")
        out.append(["text", before])
        out.append(["action", m.group(2), bool(m.group(3))])
        pos = m.end()
    out.append(["text", text[pos:]])
    for i, t in enumerate(out):
        if t[0] == "action" and t[2] and i + 1 < len(out):
            out[i + 1][1] = out[i + 1][1].lstrip(" \t\r\n")
    return [(t[0], t[1]) for t in out]


def parse(toks, i=0, stop=("end",)):
    """A list of nodes until one of stop; returns (nodes, index of the stop, the stop)."""
    nodes = []
    while i < len(toks):
        kind, s = toks[i]
        if kind == "text":
            nodes.append(("text", s))
            i += 1
            continue
        if s.startswith("/*"):
            if not s.endswith("*/"):
                raise TemplateError("unterminated comment: {{%s}}" % s)
            i += 1
            continue
        word = s.split(None, 1)[0] if s else ""
        if word in stop:
            return nodes, i, word
        if word == "if":
            then, j, how = parse(toks, i + 1, ("else", "end"))
            other = []
            if how == "else":
                other, j, how = parse(toks, j + 1, ("end",))
            if how != "end":
                raise TemplateError("{{ if %s }} without {{ end }}" % s[3:])
            nodes.append(("if", s[3:].strip(), then, other))
            i = j + 1
            continue
        if word in ("else", "end", "range", "with", "define", "template", "include", "block"):
            raise TemplateError("{{ %s }}: not rendered here (scripts/render-chart.py renders "
                                "only what the chart uses)" % s)
        nodes.append(("value", s))
        i += 1
    return nodes, i, None


def lookup(context, path):
    value = context
    for part in path.lstrip(".").split("."):
        if not isinstance(value, dict) or part not in value:
            raise TemplateError("no value %s" % path)
        value = value[part]
    return value


def argument(context, word):
    if word.startswith("."):
        return lookup(context, word)
    if re.fullmatch(r"-?\d+", word):
        return int(word)
    if word.startswith('"') and word.endswith('"'):
        return json.loads(word)
    raise TemplateError("argument %r: a value path, a number or a string only" % word)


def scalar_text(v):
    """A value printed into the text as Go's template does."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        raise TemplateError("a null value printed")
    if isinstance(v, (dict, list)):
        raise TemplateError("a map or list printed without toYaml")
    return str(v)


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return str(v)
    s = str(v)
    plain = (s and re.fullmatch(r"[A-Za-z0-9_./][A-Za-z0-9_./ -]*", s) and not s.endswith(" ")
             and yaml.safe_load(s) == s)
    return s if plain else json.dumps(s)


def to_yaml(v, indent=0):
    pad = " " * indent
    lines = []
    if isinstance(v, dict):
        if not v:
            return pad + "{}"
        for k in sorted(v):
            item = v[k]
            if isinstance(item, (dict, list)) and item:
                lines.append("%s%s:" % (pad, yaml_scalar(k)))
                lines.append(to_yaml(item, indent + 2 if isinstance(item, dict) else indent))
            else:
                lines.append("%s%s: %s" % (pad, yaml_scalar(k), to_yaml(item).strip()))
        return "\n".join(lines)
    if isinstance(v, list):
        if not v:
            return pad + "[]"
        for item in v:
            text = to_yaml(item, indent + 2).lstrip(" ")
            lines.append("%s- %s" % (pad, text))
        return "\n".join(lines)
    return pad + yaml_scalar(v)


def call(context, fn, args):
    if fn == "quote":
        return json.dumps(scalar_text(args[0]))
    if fn == "toYaml":
        return to_yaml(args[0])
    if fn in ("nindent", "indent"):
        pad = " " * args[0]
        text = "\n".join(pad + line for line in scalar_text(args[1]).split("\n"))
        return "\n" + text if fn == "nindent" else text
    if fn == "default":
        return args[1] if args[1] not in (None, "", 0, False, [], {}) else args[0]
    if fn == "add":
        return sum(int(a) for a in args)
    raise TemplateError("function %s: not rendered here" % fn)


FUNCTIONS = {"quote": 1, "toYaml": 1, "nindent": 2, "indent": 2, "default": 2, "add": 2}


WORD = re.compile(r'"(?:[^"\\]|\\.)*"|\||[^\s|"]+')


def commands(text):
    """The pipeline's commands, each a list of words (string literals kept whole)."""
    out = [[]]
    for w in WORD.findall(text):
        if w == "|":
            out.append([])
        else:
            out[-1].append(w)
    return out


def pipeline(context, text):
    value, first = None, True
    for words in commands(text):
        command = " ".join(words)
        if not words:
            raise TemplateError("empty command in %r" % text)
        if words[0] in FUNCTIONS:
            args = [argument(context, w) for w in words[1:]] + ([] if first else [value])
            if len(args) != FUNCTIONS[words[0]]:
                raise TemplateError("%s takes %d argument(s): %r" % (words[0],
                                                                     FUNCTIONS[words[0]], text))
            value = call(context, words[0], args)
        elif first and len(words) == 1:
            value = argument(context, words[0])
        else:
            raise TemplateError("%r: not rendered here" % command.strip())
        first = False
    return value


def truthy(v):
    return v not in (None, False, 0, "", [], {})


def evaluate(nodes, context):
    out = []
    for node in nodes:
        if node[0] == "text":
            out.append(node[1])
        elif node[0] == "value":
            out.append(scalar_text(pipeline(context, node[1])))
        else:
            out.append(evaluate(node[2] if truthy(pipeline(context, node[1])) else node[3],
                                context))
    return "".join(out)


def render_template(text, context):
    nodes, i, how = parse(tokens(text))
    if how is not None:
        raise TemplateError("{{ %s }} without its {{ if }}" % how)
    return evaluate(nodes, context)


def merge(base, over):
    """Helm's coalescing: maps merge key by key, a null removes the key, the rest replaces."""
    for k, v in over.items():
        if v is None:
            base.pop(k, None)
        elif isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def set_value(values, assignment):
    """--set a.b=c as Helm reads it: numbers and true/false typed, the rest strings."""
    key, sep, raw = assignment.partition("=")
    if not sep or not key:
        raise ValueError("--set %r: key=value" % assignment)
    if re.fullmatch(r"-?\d+", raw):
        value = int(raw)
    elif raw in ("true", "false"):
        value = raw == "true"
    else:
        value = raw
    parts = key.split(".")
    node = values
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value


def render(chart=CHART, values=None, release="gpuverify", namespace="default"):
    """The chart's manifests as `helm template RELEASE CHART` prints them."""
    with open(os.path.join(chart, "Chart.yaml")) as f:
        meta = yaml.safe_load(f)
    with open(os.path.join(chart, "values.yaml")) as f:
        merged = merge(yaml.safe_load(f) or {}, values or {})
    context = {"Values": merged, "Release": {"Name": release, "Namespace": namespace},
               "Chart": {"Name": meta["name"], "Version": meta["version"],
                         "AppVersion": meta.get("appVersion", "")}}
    docs = []
    folder = os.path.join(chart, "templates")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(folder, name)) as f:
            try:
                text = render_template(f.read(), context)
            except TemplateError as e:
                raise TemplateError("%s: %s" % (name, e))
        if not text.strip() or not yaml.safe_load(text):
            continue
        kind = yaml.safe_load(text).get("kind", "")
        order = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
        docs.append((order, name, text.strip("\n")))
    return "".join("---\n# Source: %s/templates/%s\n%s\n" % (meta["name"], n, t)
                   for _, n, t in sorted(docs))


def main(argv=None):
    p = argparse.ArgumentParser(description="Renders gpuverify's Helm chart as helm template.")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("-f", "--values", action="append", default=[], metavar="FILE")
    p.add_argument("-o", "--output", metavar="FILE")
    p.add_argument("--write-manifest", action="store_true",
                   help="write the plain manifest from the default values")
    a = p.parse_args(argv)
    values = {}
    try:
        for path in a.values:
            with open(path) as f:
                merge(values, yaml.safe_load(f) or {})
        for s in a.set:
            set_value(values, s)
    except (OSError, ValueError, yaml.YAMLError) as e:
        print("render-chart.py: %s" % e, file=sys.stderr)
        return 2
    try:
        text = render(values=values)
    except TemplateError as e:
        print("render-chart.py: %s" % e, file=sys.stderr)
        return 1
    if a.write_manifest:
        with open(MANIFEST, "w") as f:
            f.write(MANIFEST_HEADER + text)
    elif a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
