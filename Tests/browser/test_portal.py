#!/usr/bin/env python3
"""End-to-end browser test of the portal: headless Chromium signs an officer in, issues a teleTAN, reads it from
the page, registers it at verification's app-facing API as a phone would, and signs out.

It runs the real executables built by `swift build` (`.build/debug/portal-service` and `verification-service`,
or `BUILD_DIR`) on free ports, with SQLite files in a temporary directory. Run it with `scripts/browser-test.sh`,
with `python3 Tests/browser/test_portal.py`, or with pytest.

  SCREENSHOT=path   where the screenshot of the teleTAN page goes (default: a temporary file, printed)
  KEEP_TEMP=1       keep the temporary directory (databases, logs) for a look afterwards
"""
import base64
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.environ.get("BUILD_DIR", os.path.join(ROOT, ".build", "debug"))
PASSWORD = "browser test passphrase"
GROUPED_TELETAN = re.compile(r"^[2-9A-HJKMNP-Z]{3} [2-9A-HJKMNP-Z]{3} [2-9A-HJKMNP-Z]{4}$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_live(url, process, log, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url} exited with {process.returncode}:\n{open(log).read()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up:\n{open(log).read()}")


def post_json(url, body, headers):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


class Services:
    """verification-service and portal-service as child processes, each with its own SQLite file and log."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.processes = []
        self.app_port, self.internal_port, self.portal_port = free_port(), free_port(), free_port()
        self.portal_management_port = free_port()
        # The portal's token at verification's internal listener, and its reader token at the statistics API, made
        # for this run.
        token = secrets.token_hex(32)
        statistics_token = secrets.token_hex(32)
        self.verification_management_port = free_port()
        data_dir = os.path.join(workdir, "portal-data")
        self.portal_env = {
            **os.environ,
            "DATABASE_URL": f"sqlite://{workdir}/portal.db",
            "DATA_DIR": data_dir,
            "PORT": str(self.portal_port),
            "BIND_HOST": "127.0.0.1",
            "PUBLIC_URL": f"http://localhost:{self.portal_port}",
            "VERIFICATION_URL": f"http://127.0.0.1:{self.internal_port}",
            "VERIFICATION_API_TOKEN": token,
            "MANAGEMENT_PORT": str(self.portal_management_port),
            "HEALTH_AUTHORITIES": "1.08.2.12.=Gesundheitsamt Heidelberg,1.11.0.01.=Gesundheitsamt Berlin-Mitte",
            "BCRYPT_COST": "10",
            "STATISTICS_API_TOKEN": statistics_token,
            "VERIFICATION_STATISTICS_URL": f"http://127.0.0.1:{self.verification_management_port}",
        }
        # What the suite's launcher does: create the portal's key first and let verification trust its public half.
        public_key = self.portal("signing-key").strip()
        self.verification_env = {
            **os.environ,
            "DATABASE_URL": f"sqlite://{workdir}/verification.db",
            "PORT": str(self.app_port),
            "INTERNAL_PORT": str(self.internal_port),
            "ISSUER_PORT": str(free_port()),
            "MANAGEMENT_PORT": str(self.verification_management_port),
            "INTERNAL_API_TOKENS": f"portal={token}",
            "STATISTICS_API_TOKENS": f"portal={statistics_token}",
            "TESTRESULT_API_TOKEN": secrets.token_hex(32),
            "BIND_HOST": "127.0.0.1",
            "JWT_PUBLIC_KEY_FILES": f"{public_key}|exposuresuite-portal|exposuresuite-verification",
            "TELETAN_HASH_KEYS": "browser:" + base64.b64encode(os.urandom(32)).decode(),
            # Registering a teleTAN never asks test-result.
            "TESTRESULT_URL": "http://127.0.0.1:1",
        }

    def portal(self, *arguments, stdin=None):
        result = subprocess.run([os.path.join(BUILD_DIR, "portal-service"), *arguments], env=self.portal_env,
                                input=stdin, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"portal-service {' '.join(arguments)} failed:\n{result.stderr}")
        return result.stdout

    def start(self, executable, env, health_url):
        log = os.path.join(self.workdir, f"{executable}.log")
        process = subprocess.Popen([os.path.join(BUILD_DIR, executable), "serve"], env=env,
                                   stdout=open(log, "w"), stderr=subprocess.STDOUT)
        self.processes.append(process)
        wait_until_live(health_url, process, log)

    def __enter__(self):
        self.start("verification-service", self.verification_env, f"http://127.0.0.1:{self.app_port}/health/live")
        self.start("portal-service", self.portal_env, f"http://127.0.0.1:{self.portal_management_port}/health/ready")
        return self

    def __exit__(self, *_):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def make_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900",
                     "--lang=en-US", "--disable-gpu"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver), options=options)


def test_portal():
    workdir = tempfile.mkdtemp(prefix="portal-browser-")
    screenshot = os.environ.get("SCREENSHOT") or os.path.join(workdir, "portal-teletan.png")
    try:
        with Services(workdir) as services:
            print(services.portal("users", "add", "officer", "--roles", "c19hotline,c19hotline_event",
                                  stdin=PASSWORD + "\n").strip())
            print(services.portal("users", "add", "supervisor", "--roles", "c19supervisor",
                                  stdin=PASSWORD + "\n").strip())
            base = f"http://localhost:{services.portal_port}"
            browser = make_browser()
            wait = WebDriverWait(browser, 20)
            try:
                # Sign in.
                browser.get(base + "/")
                wait.until(EC.presence_of_element_located((By.ID, "username"))).send_keys("officer")
                browser.find_element(By.ID, "password").send_keys(PASSWORD)
                browser.find_element(By.ID, "sign-in").click()
                wait.until(EC.presence_of_element_located((By.ID, "issue-test")))
                assert browser.find_element(By.ID, "officer").text == "officer"
                Select(browser.find_element(By.ID, "health-authority"))  # both roles: the EVENT form is offered too

                # Issue a teleTAN and read it as the officer would, grouped.
                browser.find_element(By.ID, "issue-test").click()
                shown = wait.until(EC.visibility_of_element_located((By.ID, "teletan"))).text.strip()
                assert GROUPED_TELETAN.match(shown), f"teleTAN not shown grouped: {shown!r}"
                copy = browser.find_element(By.ID, "copy")
                assert copy.is_displayed(), "the copy button appears with JavaScript"
                copy.click()
                os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
                browser.save_screenshot(screenshot)
                print(f"teleTAN shown as {shown}; screenshot: {screenshot}")

                # The phone's side: the teleTAN is accepted once by verification's app-facing API.
                status, body = post_json(f"http://127.0.0.1:{services.app_port}/version/v1/registrationToken",
                                         {"key": shown.replace(" ", ""), "keyType": "TELETAN"}, {"cwa-fake": "0"})
                assert status == 201 and re.match(r"^[0-9a-f-]{36}$", body["registrationToken"]), body
                print("registered at verification: got a registration token")

                # After the display time the code leaves the page. Rather than wait ten minutes, move the page's
                # clock past the deadline (the script compares with Date.now(), as it must for throttled tabs).
                browser.execute_script("const later = Date.now() + 11 * 60 * 1000; Date.now = () => later;"
                                       "document.dispatchEvent(new Event('visibilitychange'));")
                wait.until(EC.visibility_of_element_located((By.ID, "teletan-hidden")))
                assert not browser.find_elements(By.ID, "teletan"), "the code is removed from the page"
                print("teleTAN hidden after the display time")

                # Sign out; the start page then asks for a sign-in again.
                browser.find_element(By.ID, "sign-out").click()
                wait.until(EC.presence_of_element_located((By.ID, "notice")))
                browser.get(base + "/")
                wait.until(EC.presence_of_element_located((By.ID, "username")))
                print("signed out")

                # A supervisor reaches the statistics page with the keyboard alone: the header's link, the period's
                # select and its button, the download links.
                assert not browser.find_elements(By.ID, "nav-statistics"), "no statistics link for signed-out visitors"
                browser.find_element(By.ID, "username").send_keys("supervisor")
                browser.find_element(By.ID, "password").send_keys(PASSWORD + Keys.ENTER)
                link = wait.until(EC.presence_of_element_located((By.ID, "nav-statistics")))
                link.send_keys(Keys.ENTER)
                wait.until(EC.presence_of_element_located((By.ID, "source-verification")))
                assert not browser.find_elements(By.ID, "unavailable-verification"), browser.page_source[:2000]
                period = browser.find_element(By.ID, "period")
                period.send_keys(Keys.END)  # the longest period, chosen with the keyboard
                browser.find_element(By.ID, "show-period").send_keys(Keys.ENTER)
                wait.until(EC.url_contains("days=365"))
                assert Select(browser.find_element(By.ID, "period")).first_selected_option.get_attribute("value") == "365"
                csv_link = browser.find_element(By.ID, "download-csv").get_attribute("href")
                cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
                with urllib.request.urlopen(urllib.request.Request(csv_link, headers={"Cookie": cookies}), timeout=10) as response:
                    lines = response.read().decode().splitlines()
                assert lines[0] == "service,day,figure,breakdown,count", lines
                print(f"statistics page and CSV download: {len(lines) - 1} count(s) of finished days")
            finally:
                browser.quit()
            audit = services.portal("audit")
            assert "officer" in audit and "issued" in audit and shown.replace(" ", "") not in audit, audit
    finally:
        if os.environ.get("KEEP_TEMP") == "1":
            print(f"kept {workdir}")
        elif not os.environ.get("SCREENSHOT"):
            # Keep only the screenshot.
            for name in os.listdir(workdir):
                path = os.path.join(workdir, name)
                if path != screenshot:
                    shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    test_portal()
    print("browser test passed")
    sys.exit(0)
