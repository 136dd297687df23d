"""Accessibility checked, not assumed: axe-core (4.4, from PyPI's axe-core-python, which ships it) run inside the page
the browser shows. (axe-selenium-python ships axe-core 3.1, which predates `autocomplete="one-time-code"` and flags
the two-factor code field, valid HTML, as a serious violation.) A page with a serious or critical violation fails the test, with axe's own description of
each and the elements it names.

`scripts/browser-test.sh` installs the package into a virtual environment that sees Debian's Selenium; without it,
this module says so and the test fails: an audit that cannot run is not a passing one.
"""
import os

import importlib.util

_package = importlib.util.find_spec("axe_core_python")
if _package is None:  # the runner installs it
    raise SystemExit("axe-core-python is missing: run the browser test with scripts/browser-test.sh, which installs it")
AXE_SCRIPT = os.path.join(os.path.dirname(_package.origin), "axe.min.js")
FAILING = ("serious", "critical")

audited = []


def audit(browser, page):
    """Runs axe-core on what `browser` shows now; raises AssertionError naming every serious or critical violation."""
    with open(AXE_SCRIPT, encoding="utf8") as script:
        browser.execute_script(script.read())
    results = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(done, error => done({error: String(error)}));")
    assert "error" not in results, f"axe could not run on {page}: {results.get('error')}"
    failing = [v for v in results["violations"] if v.get("impact") in FAILING]
    report = "\n".join(
        f"  [{v['impact']}] {v['id']}: {v['help']} ({v['helpUrl']})\n"
        + "\n".join(f"      {' '.join(node['target'])}: {node.get('failureSummary', '').splitlines()[-1:]}" for node in v["nodes"][:5])
        for v in failing)
    assert not failing, f"accessibility violations on {page}:\n{report}"
    minor = sum(1 for v in results["violations"] if v.get("impact") not in FAILING)
    audited.append(page)
    print(f"axe-core {results.get('testEngine', {}).get('version', '?')}: {page}: no serious violation"
          + (f" ({minor} minor)" if minor else ""))
