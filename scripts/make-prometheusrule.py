#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes examples/integrations/prometheus/gpuverify-prometheusrule.yaml, the Prometheus
Operator's PrometheusRule holding the groups of gpuverify-alerts.yml unchanged: one source for
both (tests/integrations/test_kubernetes.py fails when they differ). Run it after editing the
rules:  scripts/make-prometheusrule.py"""
import os
import sys

import yaml

HEADER = """# SPDX-License-Identifier: Apache-2.0
# gpuverify's alerting rules for the Prometheus Operator (kube-prometheus-stack): the groups of
# gpuverify-alerts.yml unchanged, written by scripts/make-prometheusrule.py (edit that file and
# run the script; CI fails when the two differ). The label `release` is the one
# kube-prometheus-stack's default ruleSelector matches: set it to your Prometheus' selector.
"""


def literal(dumper, text):
    """Multi-line strings (the rules' expressions) as block literals, as in the rules file."""
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def main():
    yaml.SafeDumper.add_representer(str, literal)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                        "integrations", "prometheus")
    with open(os.path.join(here, "gpuverify-alerts.yml")) as f:
        rules = yaml.safe_load(f)
    doc = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
           "metadata": {"name": "gpuverify", "namespace": "gpu-monitoring",
                        "labels": {"release": "kube-prometheus-stack"}},
           "spec": {"groups": rules["groups"]}}
    with open(os.path.join(here, "gpuverify-prometheusrule.yaml"), "w") as f:
        f.write(HEADER)
        yaml.safe_dump(doc, f, sort_keys=False, width=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
