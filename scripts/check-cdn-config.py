#!/usr/bin/env python3
"""Requests every kind of file the distribution writes through deploy/nginx-cdn.conf, the CDN origin of the export
tree, and checks that each is served as `submission-service serve` serves it with SERVE_EXPORTS (ExportFileRoutes):

- JSON indexes (versions, countries, dates, hours, batch parts): application/json, kept five minutes;
- key files (a day's zip, an hour's zip, batch N of a split bundle, a ProteGO Safe zip): application/zip, a day;
- the signed app configuration: application/zip, five minutes (every run writes it again);
- ProteGO Safe's index.txt: text/plain, five minutes, also as the apps ask for it ("<base>//index.txt" and
  "<base>/%2Findex.txt").

It builds a small tree the way ExportTreeWriter stores one (a file's content is "<path>/index"), rewrites the
configuration's `listen` and `root` to a free loopback port and that tree, and runs nginx in a temporary prefix (as
root or not). nginx: NGINX, else /usr/sbin/nginx, else the first on PATH. Without it the check is reported as left
out, and REQUIRE_NGINX=1 makes that a failure.

Exit code 1 on any problem. scripts/test.sh runs it.

    scripts/check-cdn-config.py                        # deploy/nginx-cdn.conf
    scripts/check-cdn-config.py --config other.conf    # another origin configuration
"""
import argparse
import http.client
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

JSON = ("application/json", "public, max-age=300")
KEY_FILE = ("application/zip", "public, max-age=86400")
APP_CONFIG = ("application/zip", "public, max-age=300")
TEXT_INDEX = ("text/plain; charset=utf-8", "public, max-age=300")

ZIP = b"PK\x03\x04" + b"\x00" * 26
DATE = "2026-11-20"
DAY = f"version/v1/diagnosis-keys/country/DE/date/{DATE}"
PROTEGO = "protego/PL"  # PROTEGO_EXPORT_PATH's default for the region PL
PROTEGO_ZIP = "1795132800-00001.zip"  # ProteGOExportLayout.fileName: 10-digit seconds, 5-digit batch

# (what it is, path in the tree, content) — the paths of ExportTreeLayout and ProteGOExportLayout.
TREE = [
    ("version index", "version", b'["v1"]'),
    ("country index", "version/v1/diagnosis-keys/country", b'["DE"]'),
    ("date index", "version/v1/diagnosis-keys/country/DE/date", f'["{DATE}"]'.encode()),
    ("daily key file", DAY, ZIP),
    ("batch parts index", f"{DAY}/parts", b"[1,2]"),
    ("batch 2 of a split daily key file", f"{DAY}/part/2", ZIP),
    ("hour index", f"{DAY}/hour", b"[0,13]"),
    ("hourly key file", f"{DAY}/hour/13", ZIP),
    ("app configuration", "version/v1/configuration/country/DE/app_config", ZIP),
    ("ProteGO index.txt", f"{PROTEGO}/index.txt", f"/{PROTEGO_ZIP}".encode()),
    ("ProteGO key file", f"{PROTEGO}/{PROTEGO_ZIP}", ZIP),
]

# (what it is, request path, expected (Content-Type, Cache-Control), expected body path in the tree)
REQUESTS = [
    ("version index", "/version", JSON, "version"),
    ("country index", "/version/v1/diagnosis-keys/country", JSON, "version/v1/diagnosis-keys/country"),
    ("date index", "/version/v1/diagnosis-keys/country/DE/date", JSON, "version/v1/diagnosis-keys/country/DE/date"),
    ("daily key file", f"/{DAY}", KEY_FILE, DAY),
    ("batch parts index", f"/{DAY}/parts", JSON, f"{DAY}/parts"),
    ("batch 2 of a split daily key file", f"/{DAY}/part/2", KEY_FILE, f"{DAY}/part/2"),
    ("hour index", f"/{DAY}/hour", JSON, f"{DAY}/hour"),
    ("hourly key file", f"/{DAY}/hour/13", KEY_FILE, f"{DAY}/hour/13"),
    ("app configuration", "/version/v1/configuration/country/DE/app_config", APP_CONFIG,
     "version/v1/configuration/country/DE/app_config"),
    ("ProteGO index.txt", f"/{PROTEGO}/index.txt", TEXT_INDEX, f"{PROTEGO}/index.txt"),
    ("ProteGO index.txt as iOS asks (//index.txt)", f"/{PROTEGO}//index.txt", TEXT_INDEX, f"{PROTEGO}/index.txt"),
    ("ProteGO index.txt as Android asks (/%2Findex.txt)", f"/{PROTEGO}/%2Findex.txt", TEXT_INDEX, f"{PROTEGO}/index.txt"),
    ("ProteGO key file", f"/{PROTEGO}/{PROTEGO_ZIP}", KEY_FILE, f"{PROTEGO}/{PROTEGO_ZIP}"),
]

MISSING = ["/version/v1/diagnosis-keys/country/DE/date/2026-11-19", f"/{PROTEGO}/0000000000-00001.zip"]


def find_nginx():
    if os.environ.get("NGINX"):
        return os.environ["NGINX"] if os.access(os.environ["NGINX"], os.X_OK) else None
    if os.access("/usr/sbin/nginx", os.X_OK):
        return "/usr/sbin/nginx"
    return shutil.which("nginx")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def origin_server(config, port, tree):
    """The configuration's server block with its `listen` and `root` pointed at the test's port and tree."""
    problems = []
    for directive in ("listen", "root"):
        if len(re.findall(rf"^\s*{directive}\s+[^;]+;", config, flags=re.M)) != 1:
            problems.append(f"expected exactly one `{directive}` directive in the configuration")
    config = re.sub(r"^(\s*)listen\s+[^;]+;", rf"\g<1>listen 127.0.0.1:{port};", config, flags=re.M)
    config = re.sub(r"^(\s*)root\s+[^;]+;", lambda match: f"{match.group(1)}root {tree};", config, flags=re.M)
    return config, problems


def main_configuration(directory, server_file):
    # The workers of a master started as root would run as nobody, who cannot read the temporary directory.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"""{user}worker_processes 1;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {directory}/client_body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    include {server_file};
}}
"""


def write_tree(tree):
    for _, path, content in TREE:
        folder = tree / path
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "index").write_bytes(content)


def wait_until_listening(port, process, deadline=10):
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def get(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path)  # sent as written: no client-side normalisation of "//" or "%2F"
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.getheader("Cache-Control"), response.read()
    finally:
        connection.close()


def check(nginx, config_path):
    problems = []
    with tempfile.TemporaryDirectory(prefix="cdn-origin-") as temporary:
        directory = pathlib.Path(temporary)
        tree = directory / "exports"
        write_tree(tree)
        port = free_port()
        server, problems = origin_server(config_path.read_text(), port, tree)
        if problems:
            return [f"{config_path}: {problem}" for problem in problems]
        (directory / "server.conf").write_text(server)
        (directory / "nginx.conf").write_text(main_configuration(directory, directory / "server.conf"))
        error_log = directory / "error.log"
        command = [nginx, "-p", str(directory), "-e", str(error_log), "-c", str(directory / "nginx.conf"),
                   "-g", f"daemon off; pid {directory}/nginx.pid; error_log {error_log} warn;"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            if not wait_until_listening(port, process):
                output = process.stdout.read().decode(errors="replace") if process.poll() is not None else ""
                log = error_log.read_text(errors="replace") if error_log.exists() else ""
                return [f"nginx did not start with {config_path}:\n{output}{log}"]
            for what, path, (content_type, cache_control), stored in REQUESTS:
                status, got_type, got_cache, body = get(port, path)
                expected_body = (tree / stored / "index").read_bytes()
                if status != 200:
                    problems.append(f"{what}: GET {path} answered {status}, expected 200")
                    continue
                if got_type != content_type:
                    problems.append(f"{what}: GET {path} has Content-Type {got_type!r}, expected {content_type!r}")
                if got_cache != cache_control:
                    problems.append(f"{what}: GET {path} has Cache-Control {got_cache!r}, expected {cache_control!r}")
                if body != expected_body:
                    problems.append(f"{what}: GET {path} answered other content than {stored}/index")
            for path in MISSING:
                status = get(port, path)[0]
                if status != 404:
                    problems.append(f"GET {path} (not in the tree) answered {status}, expected 404")
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=pathlib.Path, default=ROOT / "deploy" / "nginx-cdn.conf")
    arguments = parser.parse_args()
    nginx = find_nginx()
    if not nginx:
        if os.environ.get("REQUIRE_NGINX") == "1":
            print("check-cdn-config: nginx is not installed (Debian: apt-get install nginx, or set NGINX to its path) "
                  "and REQUIRE_NGINX=1", file=sys.stderr)
            return 1
        print("check-cdn-config: nginx not found, the CDN origin configuration was not checked", file=sys.stderr)
        return 0
    problems = check(nginx, arguments.config)
    for problem in problems:
        print(f"check-cdn-config: {problem}", file=sys.stderr)
    if not problems:
        print(f"check-cdn-config: {len(REQUESTS)} kinds of request served as SERVE_EXPORTS serves them by {arguments.config.name}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
