#!/usr/bin/env python3
"""Fails when what the code reads and what the deployment files require is not written down where an operator looks:

- every setting the services read (Services/ and Shared/, test support left out) is named in docs/operations.md;
- every command of every executable (`CommandConfiguration(commandName: …)`, with its subcommands) is in
  docs/operations.md's table of commands ("| Executable | Commands |"), in that executable's row;
- every variable docker-compose.yml requires (`${NAME:?…}`) is named in the compose file's header comment;
- every Secret key the Kubernetes manifests mount or reference is in deploy/kubernetes/README.md's table of secrets.

    scripts/check-docs-drift.py      # prints each omission, naming what is missing and where, and exits 1 if any

A setting is found where the code reads it: `settings.<accessor>("NAME"…)` for every accessor of Settings,
`prefix + "NAME"` with each prefix passed to such a reader (`prefix: "PROTEGO_"`), helpers that take the settings and
a name (`hexKey(settings, "NAME"…)`, `callerToken(settings, variable: "NAME")`), `variable: "NAME"` in errors and
helpers, names listed on a line that reads settings, and the all-in-one launcher's `environment["NAME"]` and
`required("NAME")`. scripts/test.sh runs it before the build.
"""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPERATIONS = ROOT / "docs" / "operations.md"
COMPOSE = ROOT / "docker-compose.yml"
KUBERNETES = ROOT / "deploy" / "kubernetes"

NAME = r'[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*'
ACCESSORS = "string|optionalString|stringOrEmpty|requiredString|raw|int|port|bool|duration|list|choice|url|networks|file|lookUp"
SETTING_READS = [
    # settings.int("NAME", …), Settings.int("NAME", …), $0.string("NAME", …); not SQL (`connection.raw("BEGIN")`)
    re.compile(rf'(?<!connection)(?<!database)(?<!transaction)\.(?:{ACCESSORS})\(\s*"({NAME})"'),
    # a helper given the settings and a name: hexKey(settings, "NAME", …), callerToken(settings, variable: "NAME")
    re.compile(rf'\(\s*settings\s*,\s*(?:variable:\s*)?"({NAME})"'),
    # ConfigurationError(variable: "NAME", …), SecretHashKey.parseList(…, variable: "NAME")
    re.compile(rf'\bvariable:\s*"({NAME})"'),
    # the all-in-one launcher reads its own few variables from the environment
    re.compile(rf'\benvironment\["({NAME})"\]'),
    re.compile(rf'\brequired\(\s*"({NAME})"\s*\)'),
]
PREFIXED_READ = re.compile(rf'\bprefix\s*\+\s*"({NAME})"')
PREFIX_ARGUMENT = re.compile(r'\bprefix:\s*"([A-Z][A-Z0-9_]*_)"')
# Names listed on a line that also reads settings: `for (…, variable) in [(…, "NAME"), …] where settings.raw(variable)`.
LISTED_NAME = re.compile(rf'"({NAME}_[A-Z0-9_]+|{NAME})"')


def swift_sources():
    for folder in ("Services", "Shared"):
        for path in sorted((ROOT / folder).rglob("*.swift")):
            if "TestSupport" in path.parts:
                continue
            yield path


def settings_read():
    """{name: first "file:line" that reads it}"""
    found = {}
    prefixed = {}
    prefixes = {""}
    for path in swift_sources():
        relative = path.relative_to(ROOT)
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            where = f"{relative}:{number}"
            names = [name for pattern in SETTING_READS for name in pattern.findall(code)]
            if re.search(rf'\bsettings\.(?:{ACCESSORS})\(', code):
                names += [name for name in LISTED_NAME.findall(code) if "_" in name]
            for name in names:
                found.setdefault(name, where)
            for name in PREFIXED_READ.findall(code):
                prefixed.setdefault(name, where)
            prefixes.update(PREFIX_ARGUMENT.findall(code))
    for name, where in prefixed.items():
        for prefix in sorted(prefixes):
            found.setdefault(prefix + name, where)
    return found


def documented_names(text):
    return set(re.findall(rf'\b{NAME}\b', text))


# --- commands -----------------------------------------------------------------------------------------------------

def balanced(text, start):
    """The text inside the parentheses opening at text[start]."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:index]
    return text[start + 1:]


def command_types():
    """{file: {type name: (commandName, [subcommand type names])}} for every ParsableCommand configuration."""
    folders = [ROOT / "Shared" / "Core" / "CommandLine", ROOT / "Services" / "Suite"]
    folders += sorted((ROOT / "Services").glob("*/Sources/Commands"))
    result = {}
    for folder in folders:
        for path in sorted(folder.glob("*.swift")):
            text = path.read_text()
            types = {}
            for match in re.finditer(r'static\s+(?:let|var)\s+configuration\b', text):
                owner = re.findall(r'\b(?:struct|enum|class)\s+(\w+)', text[:match.start()])
                start = text.find("CommandConfiguration(", match.end())
                if not owner or start < 0:
                    continue
                arguments = balanced(text, start + len("CommandConfiguration"))
                name = re.search(r'commandName:\s*"([^"]+)"', arguments)
                subcommands = re.search(r'subcommands:\s*\[(.*?)\]', arguments, flags=re.S)
                types[owner[-1]] = (
                    name.group(1) if name else None,
                    re.findall(r'(\w+)(?:<[^>]*>)?\.self', subcommands.group(1)) if subcommands else [],
                )
            if types:
                result[path] = types
    return result


def executables():
    """{executable: [command paths, e.g. "serve", "issuers add"]}, each leaf command of each executable."""
    by_file = command_types()
    unique = {}
    for types in by_file.values():
        for type_name, value in types.items():
            unique.setdefault(type_name, []).append(value)

    def resolve(type_name, file_types):
        if type_name in file_types:
            return file_types[type_name], file_types
        candidates = [(path, types) for path, types in by_file.items() if type_name in types]
        if len(candidates) == 1:
            return candidates[0][1][type_name], candidates[0][1]
        raise SystemExit(f"check-docs-drift: cannot tell which command type {type_name} is ({len(candidates)} candidates)")

    def leaves(entry, file_types, path):
        name, subcommands = entry
        if not subcommands:
            return [" ".join(path + [name])]
        found = []
        for sub in subcommands:
            sub_entry, sub_types = resolve(sub, file_types)
            found += leaves(sub_entry, sub_types, path + [name])
        return found

    referenced = {sub for types in by_file.values() for _, subs in types.values() for sub in subs}
    result = {}
    for types in by_file.values():
        for type_name, entry in types.items():
            if type_name not in referenced and entry[1]:  # a root: an executable's top command
                result[entry[0]] = [leaf.split(" ", 1)[1] for leaf in leaves(entry, types, [])]
    return result


def command_table(text):
    """{executable: its row's text} from the "| Executable | Commands |" table."""
    rows = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if re.match(r'\|\s*Executable\s*\|\s*Commands\s*\|', line):
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                cells = row.split("|")
                executable = re.search(r'`([^`]+)`', cells[1])
                if executable:
                    rows[executable.group(1)] = "|".join(cells[2:])
            break
    return rows


# --- docker compose and Kubernetes ----------------------------------------------------------------------------------

def compose_required():
    text = COMPOSE.read_text()
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    required = {}
    for number, line in enumerate(text.splitlines(), 1):
        for name in re.findall(rf'\$\{{({NAME}):\?', line):
            required.setdefault(name, number)
    return required, documented_names("\n".join(header))


def kubernetes_secret_keys():
    """{(secret, key): "file"} for every Secret key a manifest mounts, references or names for TLS."""
    used = {}
    for path in sorted(KUBERNETES.rglob("*.yaml")):
        relative = path.relative_to(ROOT)
        for document in yaml.safe_load_all(path.read_text()):
            if not isinstance(document, dict):
                continue
            for tls in (document.get("spec") or {}).get("tls") or []:
                if tls.get("secretName"):
                    for key in ("tls.crt", "tls.key"):
                        used.setdefault((tls["secretName"], key), str(relative))
            for pod in pod_specs(document):
                collect_pod_secret_keys(pod, used, str(relative))
    return used


def pod_specs(document):
    spec = document.get("spec") or {}
    if document.get("kind") == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec") or {})
    template = (spec.get("template") or {}).get("spec")
    return [template] if template else []


def collect_pod_secret_keys(pod, used, where):
    whole = {}  # volume name -> secret mounted with all its keys
    for volume in pod.get("volumes") or []:
        secret = volume.get("secret")
        if not secret:
            continue
        if secret.get("items"):
            for item in secret["items"]:
                used.setdefault((secret["secretName"], item["key"]), where)
        else:
            whole[volume["name"]] = secret["secretName"]
    for container in (pod.get("containers") or []) + (pod.get("initContainers") or []):
        mounts = {mount["mountPath"].rstrip("/"): whole[mount["name"]]
                  for mount in container.get("volumeMounts") or [] if mount["name"] in whole}
        for variable in container.get("env") or []:
            reference = (variable.get("valueFrom") or {}).get("secretKeyRef")
            if reference:
                used.setdefault((reference["name"], reference["key"]), where)
            value = variable.get("value")
            if not isinstance(value, str):
                continue
            for entry in re.split(r'[,\s]+', value):
                file = entry.split("|", 1)[0]
                for mount_path, secret in mounts.items():
                    if file.startswith(mount_path + "/"):
                        used.setdefault((secret, file[len(mount_path) + 1:].split("/", 1)[0]), where)


def secrets_table():
    """{secret: its row's "keys" cell} from deploy/kubernetes/README.md's "| Secret | keys | used by |" table."""
    rows = {}
    lines = (KUBERNETES / "README.md").read_text().splitlines()
    for index, line in enumerate(lines):
        if re.match(r'\|\s*Secret\s*\|\s*keys\s*\|', line):
            for row in lines[index + 2:]:
                if not row.startswith("|"):
                    break
                cells = row.split("|")
                for secret in re.findall(r'`([^`]+)`', cells[1]):
                    rows[secret] = cells[2]
            break
    return rows


def main():
    problems = []
    operations_text = OPERATIONS.read_text()
    documented = documented_names(operations_text)
    for name, where in sorted(settings_read().items()):
        if name not in documented:
            problems.append(f"setting {name} (read at {where}) is not named in docs/operations.md")

    table = command_table(operations_text)
    if not table:
        problems.append("docs/operations.md has no '| Executable | Commands |' table")
    for executable, commands in sorted(executables().items()):
        row = table.get(executable)
        if row is None:
            problems.append(f"executable {executable} has no row in docs/operations.md's '| Executable | Commands |' table")
            continue
        spans = re.findall(r'`([^`]+)`', row)
        for command in commands:
            if not any(span == command or span.startswith(command + " ") for span in spans):
                problems.append(f"command `{executable} {command}` is missing from its row of docs/operations.md's '| Executable | Commands |' table")

    required, header = compose_required()
    for name, line in sorted(required.items()):
        if name not in header:
            problems.append(f"docker-compose.yml requires {name} (${{{name}:?…}} on line {line}) but its header comment does not name it")

    rows = secrets_table()
    if not rows:
        problems.append("deploy/kubernetes/README.md has no '| Secret | keys | used by |' table")
    for (secret, key), where in sorted(kubernetes_secret_keys().items()):
        if secret not in rows:
            problems.append(f"Secret `{secret}` (used in {where}) has no row in deploy/kubernetes/README.md's secrets table")
        elif f"`{key}`" not in rows[secret]:
            problems.append(f"key `{key}` of Secret `{secret}` (used in {where}) is missing from its row in deploy/kubernetes/README.md's secrets table")

    for problem in problems:
        print(f"check-docs-drift: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
