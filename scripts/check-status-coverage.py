#!/usr/bin/env python3
"""Every documented status of every operation has a test that produces it.

Lists each operation × response status of `openapi/*.yaml` (`$ref` responses resolved, `default` left out) and of the
portal's pages (`PORTAL_ROUTES` below: they are HTML, in no OpenAPI document), and finds in `Tests/` the calls

    Covers.status(400, of: "POST /version/v1/tan", response)

with which a test claims, and checks at run time, that `response` is that operation's answer with that status and the
documented body (Shared/TestSupport/Covers.swift). Prints a table and fails when a documented status has no such call,
when a call names an operation or status that is not documented (a stale marker), or when an exemption is not needed
or names nothing documented.

    scripts/check-status-coverage.py            # the table of every pair, then the verdict
    scripts/check-status-coverage.py --gaps     # only what is missing or stale
"""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")

# The portal's routes (Services/Portal/Sources/API/PortalWeb.swift registers them) and the statuses their handlers
# answer. Host checks (400), the body limit (413) and the 500 page of a database failure come from middleware that is
# the same for every route: each is listed once, on the route its test uses.
PORTAL_ROUTES = {
    "GET /": [200, 303, 500],
    "POST /teletan": [200, 303, 400, 403, 429, 502, 503],
    "POST /code": [200, 303, 400, 403, 429, 502, 503],
    "GET /login": [200, 303, 400],
    "POST /login": [303, 400, 401, 403, 404, 413, 429],
    "POST /logout": [303, 400, 403],
    "GET /login/oidc": [303, 404, 503],
    "GET /login/oidc/callback": [200, 303, 404],
    "GET /static/{file}": [200, 404],
    "GET /login/code": [200, 303],
    "POST /login/code": [303, 401, 403, 429],
    "GET /totp": [200, 303, 404],
    "POST /totp": [200, 303, 400, 403],
    "GET /password": [200, 303, 404],
    "POST /password": [303, 400, 401, 403, 429],
    "GET /officers": [200, 303, 403],
    "POST /officers": [200, 303, 400, 403, 409],
    "POST /officers/disable": [303, 403, 404, 409],
    "POST /officers/enable": [303, 403, 404],
    "POST /officers/reset-password": [200, 303, 403, 404, 409],
    "POST /officers/roles": [303, 403, 404, 409],
    "GET /audit": [200, 303, 400, 403],
    "GET /audit.csv": [200, 303, 400, 403],
    "GET /statistics": [200, 303, 400, 403],
    "GET /statistics.csv": [200, 303, 403, 503],
    "GET /statistics.json": [200, 303, 403, 503],
    "GET /language": [303, 400],
    "GET /authorities": [200, 303, 403, 503],
    "GET /maintenance": [200, 303, 403],
    "POST /maintenance": [303, 400, 403],
    "POST /authorities": [303, 400, 403, 409, 503],
    "POST /authorities/disable": [303, 403, 404, 503],
    "POST /authorities/enable": [303, 403, 404, 503],
    "POST /authorities/change": [303, 400, 403, 404, 503],
    "POST /authorities/supervisor": [200, 303, 400, 403, 404, 409, 503],
    "GET /issuers": [200, 303, 403, 503],
    "POST /issuers": [200, 303, 400, 403, 409, 503],
    "POST /issuers/revoke": [200, 303, 403, 404, 503],
    "GET /signing-keys": [200, 303, 403, 503],
    "POST /signing-keys": [200, 303, 403, 503],
    "POST /signing-keys/retire": [200, 303, 400, 403, 404, 409, 503],
    "GET /labs": [200, 303, 403, 503],
    "POST /labs": [200, 303, 400, 403, 503],
    "POST /labs/revoke": [200, 303, 400, 403, 404, 503],
    "GET /codes": [200, 303, 400, 403, 503],
    "POST /codes/expire": [200, 303, 400, 403, 404, 409, 503],
}

# Documented statuses no test can produce, each with the reason. Keep this short: a status that some input or some
# injected failure can cause gets a test instead.
EXEMPT = {
    # The ProteGO callable's INTERNAL: the answer to an error no request and no dependency can cause (every dependency
    # failure is a 503 UNAVAILABLE, so that Android retries), documented because the callable contract has it.
    ("POST /getAccessToken", 500): "only an unexpected error (a bug) answers INTERNAL; dependency failures are 503",
    ("POST /uploadDiagnosisKeys", 500): "only an unexpected error (a bug) answers INTERNAL; dependency failures are 503",
}

MARKER = re.compile(r'Covers\.status\(\s*(\d{3})\s*,\s*of:\s*"([A-Z]+ [^"]+)"')


def documented():
    """{(source, "METHOD /path", status)} of every OpenAPI document and of the portal."""
    pairs = set()
    for path in sorted((ROOT / "openapi").glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        for route, item in (document.get("paths") or {}).items():
            for method in METHODS:
                operation = item.get(method)
                if operation is None:
                    continue
                for status, response in (operation.get("responses") or {}).items():
                    if str(status) == "default":
                        continue
                    resolve(document, response)  # a dangling $ref fails here, not silently
                    pairs.add((path.name, f"{method.upper()} {route}", int(status)))
    for route, statuses in PORTAL_ROUTES.items():
        pairs.update(("portal", route, status) for status in statuses)
    return pairs


def resolve(document, node):
    """The response object a `$ref` names (local references only, as the documents use)."""
    seen = set()
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in seen:
            raise SystemExit(f"cannot resolve {ref!r}")
        seen.add(ref)
        node = document
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def markers():
    """{("METHOD /path", status): ["Tests/…/File.swift:line", …]} of every `Covers.status` call in Tests/ (not in
    a `//` comment)."""
    found = {}
    for path in sorted((ROOT / "Tests").rglob("*.swift")):
        text = path.read_text()
        for match in MARKER.finditer(text):
            # A marker in a comment runs no check: it covers nothing.
            if "//" in text[text.rfind("\n", 0, match.start()) + 1:match.start()]:
                continue
            line = text.count("\n", 0, match.start()) + 1
            key = (match.group(2), int(match.group(1)))
            found.setdefault(key, []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def main():
    only_gaps = "--gaps" in sys.argv[1:]
    pairs = documented()
    found = markers()
    known = {(operation, status) for _, operation, status in pairs}
    problems = []

    rows = []
    for source, operation, status in sorted(pairs, key=lambda p: (p[0], p[1], p[2])):
        key = (operation, status)
        where = found.get(key, [])
        if where:
            verdict = "covered"
            if key in EXEMPT:
                problems.append(f"{operation} {status} is exempt but has a test ({where[0]}): remove the exemption")
        elif key in EXEMPT:
            verdict = "exempt"
        else:
            verdict = "MISSING"
            problems.append(f"{operation} {status} ({source}) has no test with Covers.status({status}, of: \"{operation}\", …)")
        rows.append((source, operation, status, verdict, f"{len(where)} test(s), first {where[0]}" if where else EXEMPT.get(key, "")))
    for key, where in sorted(found.items()):
        if key not in known:
            problems.append(f"{key[0]} {key[1]} is not documented, but {', '.join(where)} marks it (stale marker?)")
    for key in sorted(EXEMPT):
        if key not in known:
            problems.append(f"exemption {key[0]} {key[1]} names nothing documented")

    width = max(len(row[1]) for row in rows)
    for source, operation, status, verdict, note in rows:
        if not only_gaps or verdict == "MISSING":
            print(f"{source:17} {operation:{width}} {status}  {verdict:8} {note}")
    covered = sum(1 for row in rows if row[3] == "covered")
    exempt = sum(1 for row in rows if row[3] == "exempt")
    print(f"\n{len(rows)} documented operation × status pairs: {covered} covered by a test, {exempt} exempt, "
          f"{len(rows) - covered - exempt} missing")
    if problems:
        print("\n" + "\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
