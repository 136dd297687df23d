#!/usr/bin/env python3
"""Fails when a source file imports across a layer it must not cross (docs/architecture.md, "Layers").

    scripts/check-layers.py          # prints each breach and exits 1 if there is one

The build's `--explicit-target-dependency-import-check error` (scripts/test.sh) already refuses an import of a
module the target does not declare in Package.swift. This check holds what Package.swift alone cannot:
- rules (Shared/Rules, Services/<svc>/Domain) import only pure libraries: nothing that speaks HTTP, reaches a
  database, reads configuration or runs a service, even if someone adds such a dependency to the target;
- a service's rules do not import another service's rules, and a service does not import another service: services
  talk over HTTP, through the clients generated from openapi/.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SERVICES = ["Verification", "TestResult", "Submission", "Portal"]

# What a rule may import: the language's libraries, crypto, formats, and the pure core. Each entry says why.
RULE_IMPORTS = {
    "Foundation": "values, dates, text",
    "Synchronization": "locks and atomics for rules that keep state (rate limits)",
    "Glibc": "the system's random source", "Musl": "the system's random source", "Darwin": "the system's random source",
    "Crypto": "hashing, HMAC, signatures", "_CryptoExtras": "the same",
    "JWTKit": "officer tokens are JWTs",
    "HummingbirdBcrypt": "password hashing only (no HTTP in this module)",
    "NIOPosix": "runs bcrypt on a thread pool, off the cooperative pool; no I/O",
    "SwiftProtobuf": "the wire messages rules validate", "ExposureProtocol": "the same",
    "ZIPFoundation": "export files are zips built in memory",
    "ExposureRules": "the pure core",
    "ExposureNaCl": "NaCl crypto_box from libsodium (CovidShield's sealed uploads)",
}
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|enum|class|func|protocol|typealias|var|let)\s+)?(\w+)", re.M)


def imports(path: pathlib.Path) -> list[str]:
    return IMPORT.findall(path.read_text(encoding="utf-8"))


def swift_files(folder: pathlib.Path):
    return sorted(folder.rglob("*.swift")) if folder.is_dir() else []


def breaches() -> list[str]:
    found = []
    rule_folders = [ROOT / "Shared/Rules"] + [ROOT / "Services" / name / "Domain" for name in SERVICES]
    for folder in rule_folders:
        for path in swift_files(folder):
            for module in imports(path):
                if module not in RULE_IMPORTS or (folder.name == "Rules" and module == "ExposureRules"):
                    found.append(f"{path.relative_to(ROOT)}: a rule imports {module}")
    for name in SERVICES:
        others = {other for other in SERVICES if other != name}
        forbidden = others | {other + "Domain" for other in others}
        # Every folder of the service: Domain, Sources, Main and, for submission, Core and the app families (Families/).
        service_folders = sorted(path for path in (ROOT / "Services" / name).iterdir() if path.is_dir()) if (ROOT / "Services" / name).is_dir() else []
        for folder in service_folders:
            for path in swift_files(folder):
                for module in imports(path):
                    if module in forbidden:
                        found.append(f"{path.relative_to(ROOT)}: {name} imports {module} (services talk over HTTP)")
    return found


def main() -> int:
    found = breaches()
    for line in found:
        print(line, file=sys.stderr)
    if found:
        print(f"{len(found)} layer breach(es); docs/architecture.md, \"Layers\", says which target may import which",
              file=sys.stderr)
        return 1
    print("layers hold: rules import only pure libraries, services import no other service")
    return 0


if __name__ == "__main__":
    sys.exit(main())
