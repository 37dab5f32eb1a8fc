# SPDX-License-Identifier: Apache-2.0
"""Compares gv-check's and the Python binding's reports of the same level on one machine:
the same checks with the same verdicts, and each run's wall time against the level's budget.
Usage: python3 bench/compare_quick.py GV_CHECK_JSON PYTHON_JSON [TIMES_FILE]"""
import json
import sys


def rows(path):
    doc = json.load(open(path))
    return doc, [(c["id"], c["subject"], c["verdict"]) for c in doc["checks"]]


def main():
    (c_doc, c_rows), (p_doc, p_rows) = rows(sys.argv[1]), rows(sys.argv[2])
    differ = [(a, b) for a, b in zip(c_rows, p_rows) if a != b]
    out = {"level": c_doc["level"], "budget_s": c_doc["budget_s"], "checks": len(c_rows),
           "same_checks_and_verdicts": c_rows == p_rows, "differences": differ,
           "gv_check": {"verdict": c_doc["verdict"], "duration_s": c_doc["duration_s"],
                        "summary": c_doc["summary"]},
           "python": {"verdict": p_doc["verdict"], "duration_s": p_doc["duration_s"],
                      "summary": p_doc["summary"]},
           "within_budget": max(c_doc["duration_s"], p_doc["duration_s"]) <= c_doc["budget_s"]}
    print(json.dumps(out, indent=2))
    return 0 if out["same_checks_and_verdicts"] and out["within_budget"] else 1


if __name__ == "__main__":
    sys.exit(main())
