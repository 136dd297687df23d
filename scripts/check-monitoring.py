#!/usr/bin/env python3
"""Checks deploy/monitoring against the code, so that a renamed metric cannot leave a panel or an alert reading
nothing:

- every metric that a panel of grafana-dashboard.json or a rule of alerts.yaml reads is one the services publish
  (a `label:` or hourly-tally name in the Swift sources, with the histogram suffixes), or one of the few outside
  metrics named below (Prometheus' `up`, kube-state-metrics' CronJob times);
- the dashboard is what scripts/make-dashboard.py writes (it is generated, not edited);
- with promtool (Debian: prometheus), `promtool check rules` and `promtool test rules alerts.test.yaml` pass. Without
  it the promtool part is reported as left out, and REQUIRE_PROMTOOL=1 makes that a failure.

Exit code 1 on any problem. scripts/test.sh runs it.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
MONITORING = ROOT / "deploy" / "monitoring"
OUTSIDE = {"up", "kube_cronjob_status_last_successful_time", "kube_cronjob_status_last_schedule_time"}
PROMQL_WORDS = {
    "sum", "max", "min", "avg", "count", "by", "without", "rate", "increase", "irate", "histogram_quantile", "time",
    "and", "or", "unless", "on", "ignoring", "group_left", "group_right", "max_over_time", "min_over_time",
    "avg_over_time", "absent", "changes", "offset", "bool",
}


def published_metrics():
    names = set()
    pattern = re.compile(r'(?:label:\s*|\.init\()"([a-z_][a-z0-9_]*)"')
    for folder in ("Services", "Shared"):
        for path in (ROOT / folder).rglob("*.swift"):
            names.update(pattern.findall(path.read_text()))
    histograms = {f"{name}{suffix}" for name in names for suffix in ("_bucket", "_sum", "_count")}
    return names | histograms


def metrics_read(expr):
    # Label matchers, `by (...)` lists, strings and durations name no metric.
    stripped = re.sub(r'\{[^}]*\}', ' ', expr)
    stripped = re.sub(r'\b(by|without|on|ignoring)\s*\([^)]*\)', ' ', stripped)
    stripped = re.sub(r'"[^"]*"', ' ', stripped)
    stripped = re.sub(r'\[[^\]]*\]', ' ', stripped)
    words = re.findall(r'\b[a-zA-Z_][a-zA-Z0-9_]*\b', stripped)
    return {word for word in words if word not in PROMQL_WORDS and not re.fullmatch(r'\d+[smhd]?', word)}


def main():
    problems = []
    known = published_metrics() | OUTSIDE
    dashboard_path = MONITORING / "grafana-dashboard.json"
    dashboard = json.loads(dashboard_path.read_text())
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "make-dashboard.py")], capture_output=True, text=True, check=True).stdout
    if json.loads(generated) != dashboard:
        problems.append(f"{dashboard_path.relative_to(ROOT)} differs from what scripts/make-dashboard.py writes: run it")
    expressions = [(f"panel '{panel['title']}'", target["expr"]) for panel in dashboard["panels"] for target in panel.get("targets", [])]
    rules = yaml.safe_load((MONITORING / "alerts.yaml").read_text())
    expressions += [(f"alert {rule['alert']}", rule["expr"]) for group in rules["groups"] for rule in group["rules"]]
    for where, expr in expressions:
        for metric in sorted(metrics_read(expr) - known):
            problems.append(f"{where} reads {metric}, which no service publishes")

    promtool = shutil.which("promtool")
    if promtool:
        for arguments in (["check", "rules", "alerts.yaml"], ["test", "rules", "alerts.test.yaml"]):
            run = subprocess.run([promtool, *arguments], cwd=MONITORING, capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"promtool {' '.join(arguments)} failed:\n{run.stdout}{run.stderr}")
    elif os.environ.get("REQUIRE_PROMTOOL") == "1":
        problems.append("promtool is not installed (Debian: apt-get install prometheus) and REQUIRE_PROMTOOL=1")
    else:
        print("check-monitoring: promtool not found, the alert rules' own tests were left out", file=sys.stderr)

    for problem in problems:
        print(f"check-monitoring: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-monitoring: {len(expressions)} expressions read published metrics" + (", promtool passed" if promtool else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
