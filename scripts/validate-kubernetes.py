#!/usr/bin/env python3
"""Renders the kustomizations under deploy/kubernetes and checks what they produce.

kubectl is not installed where the tests run, so this applies the parts of kustomize the manifests use (resources,
namespace, labels, images, replicas, JSON 6902 patches) and refuses any other field, rather than render something
kustomize would not. Then every object is validated against the Kubernetes schemas (kubernetes-validate, strict: an
unknown field fails), and the objects are checked against each other, which no schema does: every selector selects a
pod, every port named exists, network policies open only ports pods listen on and internal ports only to named pods,
every secret file a setting names is mounted, every container runs as the restricted Pod Security Standard asks.

    scripts/validate-kubernetes.py [--kubernetes-version 1.30.0 ...] [DIRECTORY ...]

With no directory, the base and every overlay are checked. Exit code 0 when everything holds, 1 otherwise, with one
line per problem.
"""

import argparse
import copy
import pathlib
import sys

import kubernetes_validate
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent / "deploy" / "kubernetes"
KUSTOMIZATION_FIELDS = {"apiVersion", "kind", "namespace", "labels", "resources", "images", "replicas", "patches"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "StorageClass", "PriorityClass"}
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}


class Problem(Exception):
    pass


def load_documents(path):
    with open(path, encoding="utf-8") as file:
        return [document for document in yaml.safe_load_all(file) if document is not None]


def render(directory):
    """The objects the kustomization in `directory` produces, in order."""
    directory = pathlib.Path(directory)
    kustomization_file = directory / "kustomization.yaml"
    if not kustomization_file.is_file():
        raise Problem(f"{directory}: no kustomization.yaml")
    kustomization = yaml.safe_load(kustomization_file.read_text(encoding="utf-8")) or {}
    unknown = set(kustomization) - KUSTOMIZATION_FIELDS
    if unknown:
        raise Problem(f"{kustomization_file}: fields this renderer does not apply: {', '.join(sorted(unknown))}")

    # Every manifest beside the kustomization is one of its resources: a file left out would silently not deploy.
    listed = kustomization.get("resources", [])
    files = {path.name for path in directory.glob("*.yaml") if path.name != "kustomization.yaml"}
    missing = files - set(listed)
    if missing:
        raise Problem(f"{kustomization_file}: not listed in resources: {', '.join(sorted(missing))}")

    objects = []
    for resource in listed:
        path = (directory / resource).resolve()
        if path.is_dir():
            objects += render(path)
        elif path.is_file():
            objects += load_documents(path)
        else:
            raise Problem(f"{kustomization_file}: resource {resource} does not exist")

    for patch in kustomization.get("patches", []):
        apply_patch(objects, patch, kustomization_file)
    for label in kustomization.get("labels", []):
        if label.get("includeSelectors") or label.get("includeTemplates"):
            raise Problem(f"{kustomization_file}: labels with includeSelectors or includeTemplates are not applied here")
        for item in objects:
            item.setdefault("metadata", {}).setdefault("labels", {}).update(label["pairs"])
    if "namespace" in kustomization:
        for item in objects:
            if item["kind"] not in CLUSTER_SCOPED:
                item.setdefault("metadata", {})["namespace"] = kustomization["namespace"]
    for image in kustomization.get("images", []):
        for container in all_containers(objects):
            name, _, _ = container["image"].partition(":")
            if name == image["name"]:
                container["image"] = image.get("newName", name) + (":" + image["newTag"] if "newTag" in image else "")
    for replicas in kustomization.get("replicas", []):
        targets = [item for item in objects if item["kind"] in {"Deployment", "StatefulSet"} and item["metadata"]["name"] == replicas["name"]]
        if not targets:
            raise Problem(f"{kustomization_file}: replicas for {replicas['name']}, which is no Deployment or StatefulSet")
        for item in targets:
            item["spec"]["replicas"] = replicas["count"]
    return objects


def apply_patch(objects, patch, origin):
    target = patch.get("target", {})
    if set(patch) != {"target", "patch"} or not {"kind", "name"} <= set(target):
        raise Problem(f"{origin}: only JSON 6902 patches with a target kind and name are applied here")
    matches = [item for item in objects if item["kind"] == target["kind"] and item["metadata"]["name"] == target["name"]]
    if not matches:
        raise Problem(f"{origin}: patch target {target['kind']}/{target['name']} does not exist")
    for operation in yaml.safe_load(patch["patch"]):
        for item in matches:
            apply_operation(item, operation, f"{origin}: patch of {target['kind']}/{target['name']}")


def apply_operation(document, operation, origin):
    """One JSON 6902 operation: add, replace or remove."""
    op, path = operation.get("op"), operation.get("path", "")
    if op not in {"add", "replace", "remove"}:
        raise Problem(f"{origin}: operation {op} is not applied here")
    keys = [key.replace("~1", "/").replace("~0", "~") for key in path.split("/")[1:]]
    parent = document
    try:
        for key in keys[:-1]:
            parent = parent[int(key)] if isinstance(parent, list) else parent[key]
        last = keys[-1]
        if isinstance(parent, list):
            if op == "add":
                parent.insert(len(parent) if last == "-" else int(last), copy.deepcopy(operation["value"]))
            elif op == "replace":
                parent[int(last)] = copy.deepcopy(operation["value"])
            else:
                del parent[int(last)]
        else:
            if op != "add" and last not in parent:
                raise KeyError(last)
            if op == "remove":
                del parent[last]
            else:
                parent[last] = copy.deepcopy(operation["value"])
    except (KeyError, IndexError, ValueError, TypeError) as error:
        raise Problem(f"{origin}: path {path} does not exist ({error})")


def pod_spec(item):
    if item["kind"] == "CronJob":
        return item["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    if item["kind"] in WORKLOADS:
        return item["spec"]["template"]["spec"]
    return None


def pod_labels(item):
    if item["kind"] == "CronJob":
        return item["spec"]["jobTemplate"]["spec"]["template"]["metadata"].get("labels", {})
    return item["spec"]["template"]["metadata"].get("labels", {})


def all_containers(objects):
    for item in objects:
        spec = pod_spec(item)
        if spec:
            yield from spec.get("initContainers", [])
            yield from spec["containers"]


def selects(selector, labels):
    """Whether a label selector (matchLabels only; matchExpressions are refused) selects `labels`."""
    if "matchExpressions" in selector:
        raise Problem("matchExpressions are not checked here")
    match = selector.get("matchLabels", selector)
    return all(labels.get(key) == value for key, value in match.items())


def check_consistency(objects, name):
    problems = []
    pods = [(item, pod_labels(item), pod_spec(item)) for item in objects if item["kind"] in WORKLOADS]
    services = {item["metadata"]["name"]: item for item in objects if item["kind"] == "Service"}
    where = lambda item: f"{name}: {item['kind']}/{item['metadata']['name']}"

    def selected(selector):
        return [(item, spec) for item, labels, spec in pods if selects(selector, labels)]

    for item, labels, spec in pods:
        if item["kind"] != "CronJob" and not selects(item["spec"]["selector"], labels):
            problems.append(f"{where(item)}: its selector does not select its own pod template")
        volumes = {volume["name"] for volume in spec.get("volumes", [])}
        security = spec.get("securityContext", {})
        for container in spec.get("initContainers", []) + spec["containers"]:
            at = f"{where(item)}, container {container['name']}"
            context = container.get("securityContext", {})
            if not (security.get("runAsNonRoot") and isinstance(security.get("runAsUser"), int) and security["runAsUser"] > 0):
                problems.append(f"{at}: the pod must run as a numeric non-root user")
            if security.get("seccompProfile", {}).get("type") != "RuntimeDefault":
                problems.append(f"{at}: the pod needs the RuntimeDefault seccomp profile")
            if context.get("allowPrivilegeEscalation") is not False or context.get("readOnlyRootFilesystem") is not True \
                    or context.get("capabilities", {}).get("drop") != ["ALL"]:
                problems.append(f"{at}: needs allowPrivilegeEscalation false, a read-only root file system and all capabilities dropped")
            if "memory" not in container.get("resources", {}).get("limits", {}) or "cpu" not in container.get("resources", {}).get("requests", {}):
                problems.append(f"{at}: needs a CPU request and a memory limit")
            mounts = container.get("volumeMounts", [])
            for mount in mounts:
                if mount["name"] not in volumes:
                    problems.append(f"{at}: mounts {mount['name']}, which is no volume of the pod")
            # A secret given as a file must be where a volume is mounted, or the service stops at start-up.
            for variable in container.get("env", []):
                if variable["name"].endswith("_FILE") and "value" in variable:
                    path = variable["value"]
                    if not any(path.startswith(mount["mountPath"].rstrip("/") + "/") for mount in mounts):
                        problems.append(f"{at}: {variable['name']}={path} lies in no mounted volume")
            ports = {port.get("name") for port in container.get("ports", [])}
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                port = container.get(probe, {}).get("httpGet", {}).get("port")
                if isinstance(port, str) and port not in ports:
                    problems.append(f"{at}: {probe} asks port {port}, which the container does not name")

    for item in objects:
        kind = item["kind"]
        if kind == "Service":
            targets = selected(item["spec"]["selector"])
            if not targets:
                problems.append(f"{where(item)}: selects no pod")
            names = {port.get("name") for _, spec in targets for container in spec["containers"] for port in container.get("ports", [])}
            for port in item["spec"]["ports"]:
                if isinstance(port.get("targetPort"), str) and port["targetPort"] not in names:
                    problems.append(f"{where(item)}: targetPort {port['targetPort']} is no port of the pods it selects")
        elif kind == "PodDisruptionBudget" and not selected(item["spec"]["selector"]):
            problems.append(f"{where(item)}: selects no pod")
        elif kind == "NetworkPolicy":
            if item["spec"]["podSelector"] and not selected(item["spec"]["podSelector"]):
                problems.append(f"{where(item)}: selects no pod")
            # A port the policy opens that no selected pod listens on is a typo, and the real port stays shut.
            listening = {port["containerPort"] for _, spec in selected(item["spec"]["podSelector"]) for container in spec["containers"]
                         for port in container.get("ports", [])}
            # Internal listeners answer only the services named for them: a rule that opens one to every peer, or to
            # peers outside the namespace, undoes that.
            internal = {port["containerPort"] for _, spec in selected(item["spec"]["podSelector"]) for container in spec["containers"]
                        for port in container.get("ports", []) if port.get("name") == "internal"}
            for rule in item["spec"].get("ingress", []):
                opened = {port.get("port") for port in rule.get("ports", [])} if rule.get("ports") else listening
                peers = rule.get("from", [])
                if opened & internal and (not peers or any(set(peer) != {"podSelector"} or not peer["podSelector"] for peer in peers)):
                    problems.append(f"{where(item)}: opens the internal port(s) {sorted(opened & internal)} to more than named pods of this namespace")
                for port in rule.get("ports", []):
                    if isinstance(port.get("port"), int) and port["port"] not in listening:
                        problems.append(f"{where(item)}: opens port {port['port']}, on which no pod it selects listens")
                for peer in rule.get("from", []):
                    if peer.get("podSelector") and not selected(peer["podSelector"]):
                        problems.append(f"{where(item)}: admits pods that do not exist: {peer['podSelector']}")
        elif kind == "Ingress":
            for rule in item["spec"]["rules"]:
                for path in rule["http"]["paths"]:
                    backend = path["backend"]["service"]
                    service = services.get(backend["name"])
                    if service is None:
                        problems.append(f"{where(item)}: routes to service {backend['name']}, which does not exist")
                    elif "name" in backend["port"] and backend["port"]["name"] not in {port.get("name") for port in service["spec"]["ports"]}:
                        problems.append(f"{where(item)}: routes to port {backend['port']['name']} of {backend['name']}, which it does not have")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubernetes-version", action="append", help="validate against this version (repeatable)")
    parser.add_argument("directories", nargs="*")
    arguments = parser.parse_args()
    versions = arguments.kubernetes_version or ["1.30.0", kubernetes_validate.latest_version()]
    directories = arguments.directories or [ROOT / "base"] + sorted(path for path in (ROOT / "overlays").iterdir() if path.is_dir())

    problems = []
    for directory in directories:
        name = str(pathlib.Path(directory).resolve().relative_to(ROOT.parent.parent)) if pathlib.Path(directory).resolve().is_relative_to(ROOT.parent.parent) else str(directory)
        try:
            objects = render(directory)
        except Problem as problem:
            problems.append(str(problem))
            continue
        for item in objects:
            for version in versions:
                try:
                    kubernetes_validate.validate(item, version, strict=True)
                except kubernetes_validate.ValidationError as error:
                    location = "/".join(str(part) for part in error.path)
                    problems.append(f"{name}: {item.get('kind')}/{item.get('metadata', {}).get('name')} (Kubernetes {version}): {location}: {error.message}")
                except (kubernetes_validate.SchemaNotFoundError, kubernetes_validate.InvalidSchemaError) as error:
                    problems.append(f"{name}: {item.get('kind')}/{item.get('metadata', {}).get('name')} (Kubernetes {version}): {error}")
        try:
            problems += check_consistency(objects, name)
        except Problem as problem:
            problems.append(f"{name}: {problem}")
        print(f"{name}: {len(objects)} objects rendered, checked against Kubernetes {', '.join(versions)}")

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(problems)} problem(s)" if problems else "every manifest holds")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
