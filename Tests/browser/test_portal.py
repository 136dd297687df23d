#!/usr/bin/env python3
"""End-to-end browser test of the portal: headless Chromium signs an officer in, issues a teleTAN, reads it from
the page, registers it at verification's app-facing API as a phone would, and signs out. A second test does the
officer administration with the keyboard alone: a supervisor sets up two-factor sign-in (the codes computed here
from the key on the page), adds an officer, who signs in with the temporary password and must choose their own before
anything else, and the supervisor signs in again with a recovery code.

It runs the real executables built by `swift build` (`.build/debug/portal-service`, `verification-service` and
`testresult-service`,
or `BUILD_DIR`) on free ports, with SQLite files in a temporary directory. Run it with `scripts/browser-test.sh`,
with `python3 Tests/browser/test_portal.py`, or with pytest.

  SCREENSHOT=path   where the screenshot of the teleTAN page goes (default: a temporary file, printed)
  KEEP_TEMP=1       keep the temporary directory (databases, logs) for a look afterwards
"""
import base64
import hashlib
import hmac
import json
import struct
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

import accessibility
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
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
    """verification-service, test-result-service and portal-service as child processes, each with its own SQLite file
    and log."""

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
        # Test-result, for the system administrators' lab credentials page: the portal's own token there.
        self.lab_port, self.testresult_internal_port = free_port(), free_port()
        testresult_token = secrets.token_hex(32)
        self.testresult_env = {
            **os.environ,
            "DATABASE_URL": f"sqlite://{workdir}/testresult.db",
            "PORT": str(self.lab_port),
            "INTERNAL_PORT": str(self.testresult_internal_port),
            "MANAGEMENT_PORT": str(free_port()),
            "BIND_HOST": "127.0.0.1",
            "INTERNAL_API_TOKENS": f"portal={testresult_token}",
        }
        data_dir = os.path.join(workdir, "portal-data")
        self.portal_env = {
            **os.environ,
            "DATABASE_URL": f"sqlite://{workdir}/portal.db",
            "PORT": str(self.portal_port),
            "BIND_HOST": "127.0.0.1",
            "PUBLIC_URL": f"http://localhost:{self.portal_port}",
            "VERIFICATION_URL": f"http://127.0.0.1:{self.internal_port}",
            "VERIFICATION_API_TOKEN": token,
            "MANAGEMENT_PORT": str(self.portal_management_port),
            "HEALTH_AUTHORITIES": "1.08.2.12.=Gesundheitsamt Heidelberg,1.11.0.01.=Gesundheitsamt Berlin-Mitte",
            "BCRYPT_COST": "10",
            "STATISTICS_API_TOKEN": statistics_token,
            "TESTRESULT_URL": f"http://127.0.0.1:{self.testresult_internal_port}",
            "TESTRESULT_API_TOKEN": testresult_token,
            "VERIFICATION_STATISTICS_URL": f"http://127.0.0.1:{self.verification_management_port}",
        }
        # No service makes a key: the suite's development keys, as the compose file's `keys` service makes them; the
        # portal signs with its key, and verification trusts the public half.
        subprocess.run([os.path.join(BUILD_DIR, "exposure-suite"), "development-keys", data_dir],
                       check=True, capture_output=True, text=True, timeout=120)
        self.portal_env["PORTAL_SIGNING_KEY_FILE"] = os.path.join(data_dir, "portal-signing-key.pem")
        self.portal_env["TOTP_ENCRYPTION_KEY_FILE"] = os.path.join(data_dir, "portal-totp-key.hex")
        public_key = os.path.join(data_dir, "portal-signing-key.pub.pem")
        with open(public_key) as written:
            assert self.portal("signing-key") == written.read(), "signing-key prints the public half of the portal's key"
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
            # CovidShield's codes, for the issuer key a supervisor creates.
            "COVIDSHIELD_ENABLED": "true",
            # Seals the private halves of the signing keys a supervisor makes.
            "SIGNING_KEY_ENCRYPTION_KEY_FILE": os.path.join(data_dir, "signing-key-encryption-key"),
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
        self.start("testresult-service", self.testresult_env, f"http://127.0.0.1:{self.lab_port}/health/live")
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
            base = f"http://localhost:{services.portal_port}"
            browser = make_browser()
            wait = WebDriverWait(browser, 20)
            try:
                # Sign in.
                browser.get(base + "/")
                wait.until(EC.presence_of_element_located((By.ID, "username")))
                accessibility.audit(browser, "sign-in page")
                browser.find_element(By.ID, "username").send_keys("officer")
                browser.find_element(By.ID, "password").send_keys(PASSWORD)
                browser.find_element(By.ID, "sign-in").click()
                wait.until(EC.presence_of_element_located((By.ID, "issue-test")))
                assert browser.find_element(By.ID, "officer").text == "officer"
                Select(browser.find_element(By.ID, "health-authority"))  # both roles: the EVENT form is offered too
                accessibility.audit(browser, "start page")

                # Issue a teleTAN and read it as the officer would, grouped.
                browser.find_element(By.ID, "issue-test").click()
                shown = wait.until(EC.visibility_of_element_located((By.ID, "teletan"))).text.strip()
                assert GROUPED_TELETAN.match(shown), f"teleTAN not shown grouped: {shown!r}"
                copy = browser.find_element(By.ID, "copy")
                assert copy.is_displayed(), "the copy button appears with JavaScript"
                copy.click()
                accessibility.audit(browser, "teleTAN page")
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

                # Code status: the registered teleTAN reads as used (to the hour), and the teleTAN is not on the page.
                browser.find_element(By.ID, "nav-codes").click()
                wait.until(EC.presence_of_element_located((By.ID, "codes")))
                status_cells = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#codes td.status")]
                assert len(status_cells) == 1 and status_cells[0].startswith("Used, "), status_cells
                assert shown.replace(" ", "") not in browser.page_source, "the code itself is never shown again"
                accessibility.audit(browser, "code status page")
                print(f"code status: {status_cells[0]}")

                # Sign out; the start page then asks for a sign-in again.
                browser.find_element(By.ID, "sign-out").click()
                wait.until(EC.presence_of_element_located((By.ID, "notice")))
                browser.get(base + "/")
                wait.until(EC.presence_of_element_located((By.ID, "username")))
                print("signed out")

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


def totp(base32_key, at=None):
    """The code an authenticator app shows (RFC 6238: HMAC-SHA-1, 30 s, 6 digits), computed here independently."""
    key = base64.b32decode(base32_key + "=" * (-len(base32_key) % 8))
    digest = hmac.new(key, struct.pack(">Q", int((at or time.time()) // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


class Keyboard:
    """Drives the page with keys only, as someone who cannot use a mouse: Tab moves the focus, typing goes to the
    focused field, Enter and Space press. Reaching an element by Tab is the check that it is keyboard-accessible."""

    def __init__(self, browser):
        self.browser = browser

    def press(self, *keys):
        ActionChains(self.browser).send_keys(*keys).perform()

    def focused(self):
        return self.browser.execute_script("return document.activeElement && document.activeElement.id")

    def tab_to(self, element_id, limit=80):
        for _ in range(limit):
            if self.focused() == element_id:
                return
            self.press(Keys.TAB)
        raise AssertionError(f"#{element_id} cannot be reached with Tab on {self.browser.current_url}")

    def type_into(self, element_id, text):
        self.tab_to(element_id)
        self.press(text)

    def activate(self, element_id, key=Keys.ENTER):
        self.tab_to(element_id)
        self.press(key)

    def sign_in(self, wait, name, password):
        wait.until(EC.presence_of_element_located((By.ID, "username")))
        self.type_into("username", name)
        self.type_into("password", password)
        self.press(Keys.ENTER)


def test_officer_administration_with_the_keyboard():
    workdir = tempfile.mkdtemp(prefix="portal-admin-browser-")
    try:
        with Services(workdir) as services:
            services.portal("users", "add", "chief", "--roles", "c19supervisor", stdin=PASSWORD + "\n")
            base = f"http://localhost:{services.portal_port}"
            browser = make_browser()
            wait = WebDriverWait(browser, 20)
            keys = Keyboard(browser)
            try:
                # The supervisor signs in and must set up two-factor sign-in first: the QR code and the key are shown.
                browser.get(base + "/login")
                keys.sign_in(wait, "chief", PASSWORD)
                wait.until(EC.presence_of_element_located((By.ID, "totp-required")))
                assert browser.find_element(By.CSS_SELECTOR, "#totp-qr svg").is_displayed()
                accessibility.audit(browser, "two-factor set-up page")
                key = browser.find_element(By.ID, "totp-key").text.strip()
                keys.type_into("totp-code", totp(key))
                keys.press(Keys.ENTER)
                wait.until(EC.presence_of_element_located((By.ID, "recovery-codes")))
                recovery = [code.text for code in browser.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
                assert len(recovery) == 10, recovery
                accessibility.audit(browser, "recovery codes page")
                keys.activate("continue")
                print("supervisor set up two-factor sign-in; ten recovery codes shown")
                wait.until(EC.presence_of_element_located((By.ID, "nav-officers")))
                keys.activate("nav-officers")
                wait.until(EC.presence_of_element_located((By.ID, "add-officer")))
                accessibility.audit(browser, "officers page")

                # Adds an officer with TEST teleTANs; the temporary password is shown once.
                keys.type_into("new-name", "nurse")
                keys.activate("new-role-c19hotline", Keys.SPACE)
                assert browser.find_element(By.ID, "new-role-c19hotline").is_selected()
                keys.activate("add")
                temporary = wait.until(EC.visibility_of_element_located((By.ID, "temporary-password"))).text.strip()
                assert re.match(r"^[A-Za-z0-9]{20}$", temporary), temporary
                accessibility.audit(browser, "temporary password page")
                print("supervisor added an officer; temporary password shown once")

                # An issuer key for one of the authority's systems, with the keyboard: its token is shown once.
                keys.activate("nav-issuers")
                wait.until(EC.presence_of_element_located((By.ID, "add-issuer-key")))
                accessibility.audit(browser, "issuer keys page")
                keys.type_into("new-issuer-name", "lab-system")
                keys.activate("create-issuer-key")
                token = wait.until(EC.visibility_of_element_located((By.ID, "issuer-token"))).text.strip()
                assert re.match(r"^iss_[A-Za-z0-9_-]{43}$", token), token
                accessibility.audit(browser, "issuer key token page")
                keys.activate("back-to-issuer-keys")
                wait.until(EC.presence_of_element_located((By.ID, "issuer-lab-system")))
                assert token not in browser.page_source
                print("supervisor created an issuer key; its token shown once")

                # Two versions of the authority's signing key, with the keyboard; the older one is retired.
                keys.activate("nav-signing-keys")
                wait.until(EC.presence_of_element_located((By.ID, "make-signing-key")))
                accessibility.audit(browser, "signing keys page")
                keys.activate("make-signing-key")
                wait.until(EC.presence_of_element_located((By.ID, "key-default-v1")))
                keys.activate("make-signing-key")
                wait.until(EC.presence_of_element_located((By.ID, "retire-default-v1")))
                accessibility.audit(browser, "signing keys page with versions")
                keys.activate("retire-default-v1")
                wait.until(EC.text_to_be_present_in_element((By.ID, "notice"), "default-v1"))
                assert "retired" in browser.find_element(By.ID, "key-default-v1").get_attribute("class")
                print("supervisor made two signing key versions and retired the older one")

                # The audit page has the step, with the supervisor's name and no password.
                keys.activate("nav-audit")
                wait.until(EC.presence_of_element_located((By.ID, "audit-filter")))
                rows = browser.find_element(By.ID, "audit").text
                assert "chief" in rows and "nurse" in rows and temporary not in rows, rows
                accessibility.audit(browser, "audit page")
                keys.type_into("filter-actor", "nobody")
                keys.activate("filter")
                wait.until(EC.presence_of_element_located((By.ID, "no-entries")))
                keys.activate("sign-out")
                wait.until(EC.presence_of_element_located((By.ID, "notice")))

                # The officer signs in with it and is held on the password page until they chose their own.
                browser.get(base + "/login")
                keys.sign_in(wait, "nurse", temporary)
                wait.until(EC.presence_of_element_located((By.ID, "forced")))
                browser.get(base + "/")
                wait.until(EC.presence_of_element_located((By.ID, "forced")))
                assert browser.current_url.endswith("/password"), browser.current_url
                accessibility.audit(browser, "password page")
                own = "the nurse's own passphrase"
                keys.type_into("current-password", temporary)
                keys.type_into("new-password", own)
                keys.type_into("repeat-password", own)
                keys.press(Keys.ENTER)
                wait.until(EC.presence_of_element_located((By.ID, "issue-test")))
                print("the officer chose their own password and reached the start page")
                assert not browser.find_elements(By.ID, "nav-statistics"), "no statistics link for an officer"
                keys.activate("sign-out")
                wait.until(EC.presence_of_element_located((By.ID, "notice")))
                browser.get(base + "/login")
                keys.sign_in(wait, "nurse", own)
                wait.until(EC.presence_of_element_located((By.ID, "issue-test")))
                keys.activate("sign-out")
                wait.until(EC.presence_of_element_located((By.ID, "notice")))

                # The supervisor signs in again: the password, then a recovery code instead of the app's code.
                browser.get(base + "/login")
                keys.sign_in(wait, "chief", PASSWORD)
                wait.until(EC.presence_of_element_located((By.ID, "verify-code")))
                accessibility.audit(browser, "sign-in code page")
                keys.type_into("code", recovery[0])
                keys.press(Keys.ENTER)
                wait.until(EC.presence_of_element_located((By.ID, "nav-officers")))
                print("supervisor signed in with a recovery code")

                # A supervisor reaches their authority's statistics with the keyboard alone: the header's link, the
                # period's select and its button, the download links. The services' national counts are not theirs.
                link = wait.until(EC.presence_of_element_located((By.ID, "nav-statistics")))
                link.send_keys(Keys.ENTER)
                wait.until(EC.presence_of_element_located((By.ID, "source-authority")))
                assert not browser.find_elements(By.ID, "source-verification"), browser.page_source[:2000]
                accessibility.audit(browser, "a supervisor's statistics page")
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

                # The language switcher, with the keyboard: the choice holds on the next page.
                keys.activate("language-pl")
                wait.until(lambda driver: driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "pl")
                assert "days=365" in browser.current_url, browser.current_url
                accessibility.audit(browser, "the statistics page in Polish")
                keys.activate("nav-audit")
                wait.until(EC.presence_of_element_located((By.ID, "audit-filter")))
                assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "pl"
                keys.activate("language-fr")
                wait.until(lambda driver: driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr")
                accessibility.audit(browser, "the audit page in French")
                keys.activate("language-en")
                wait.until(lambda driver: driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
                keys.activate("sign-out")
                wait.until(EC.presence_of_element_located((By.ID, "notice")))
                print("language switched to Polish and French and back, remembered across pages")

                # A system administrator: two-factor sign-in first, then the national statistics and every
                # authority's audit log; no officers page.
                services.portal("users", "add", "admin", "--roles", "c19sysadmin", stdin=PASSWORD + "\n")
                browser.get(base + "/login")
                keys.sign_in(wait, "admin", PASSWORD)
                wait.until(EC.presence_of_element_located((By.ID, "totp-required")))
                keys.type_into("totp-code", totp(browser.find_element(By.ID, "totp-key").text.strip()))
                keys.press(Keys.ENTER)
                wait.until(EC.presence_of_element_located((By.ID, "recovery-codes")))
                keys.activate("continue")
                wait.until(EC.presence_of_element_located((By.ID, "nav-statistics")))
                assert not browser.find_elements(By.ID, "nav-officers"), "a system administrator administers no officer"
                accessibility.audit(browser, "a system administrator's start page")
                keys.activate("nav-statistics")
                wait.until(EC.presence_of_element_located((By.ID, "source-verification")))
                assert not browser.find_elements(By.ID, "unavailable-verification"), browser.page_source[:2000]
                accessibility.audit(browser, "the national statistics page")
                # The health authorities: a new one with the keyboard, and its first supervisor.
                keys.activate("nav-authorities")
                wait.until(EC.presence_of_element_located((By.ID, "authority-default")))
                accessibility.audit(browser, "the health authorities page")
                keys.type_into("new-id", "north")
                keys.type_into("new-name", "Gesundheitsamt Nord")
                keys.activate("new-family-cwa", Keys.SPACE)
                assert browser.find_element(By.ID, "new-family-cwa").is_selected()
                keys.type_into("new-per-hour", "50")
                keys.activate("add")
                wait.until(EC.presence_of_element_located((By.ID, "authority-north")))
                notice = browser.find_element(By.ID, "notice").text
                assert "north" in notice, notice
                keys.type_into("supervisor-north", "nord-chief")
                keys.activate("appoint-north")
                first = wait.until(EC.visibility_of_element_located((By.ID, "temporary-password"))).text.strip()
                assert re.match(r"^[A-Za-z0-9]{20}$", first), first
                accessibility.audit(browser, "a first supervisor's temporary password")
                keys.activate("back-to-authorities")
                wait.until(EC.presence_of_element_located((By.ID, "authority-north")))
                print("system administrator added a health authority and appointed its first supervisor")
                # Its settings later, with the keyboard: the row's form opens with them as they are.
                keys.activate("change-north")
                assert browser.find_element(By.ID, "change-north-per-hour").get_attribute("value") == "50"
                keys.type_into("change-north-per-key-hour", "40")
                accessibility.audit(browser, "an authority's settings form")
                keys.activate("save-north")
                wait.until(EC.text_to_be_present_in_element((By.ID, "notice"), "north is changed"))
                row = browser.find_element(By.ID, "authority-north").text
                assert "50 an hour, 40 per issuer key an hour" in row, row
                print("system administrator changed an authority's settings")
                # The maintenance switch: on shows the banner on every page, off removes it.
                keys.activate("nav-maintenance")
                wait.until(EC.presence_of_element_located((By.ID, "start-maintenance")))
                accessibility.audit(browser, "the maintenance page")
                keys.activate("start-maintenance")
                wait.until(EC.presence_of_element_located((By.ID, "end-maintenance")))
                assert browser.find_element(By.ID, "maintenance-banner").is_displayed()
                accessibility.audit(browser, "the maintenance page in maintenance")
                keys.activate("end-maintenance")
                wait.until(EC.presence_of_element_located((By.ID, "start-maintenance")))
                assert not browser.find_elements(By.ID, "maintenance-banner")
                print("system administrator switched maintenance on and off")
                # Every authority's signing keys, to read: the supervisor's two versions, no button to change them.
                keys.activate("nav-signing-keys")
                wait.until(EC.presence_of_element_located((By.ID, "key-default-v2")))
                assert not browser.find_elements(By.ID, "make-signing-key") and not browser.find_elements(By.ID, "retire-default-v2")
                accessibility.audit(browser, "the national signing keys page")
                print("system administrator read every authority's signing keys")
                # A lab's API key, with the keyboard: shown once, then listed by its fingerprint, and revoked.
                keys.activate("nav-labs")
                wait.until(EC.presence_of_element_located((By.ID, "add-lab-key")))
                accessibility.audit(browser, "the lab credentials page")
                keys.type_into("new-lab-id", "lab-hamburg")
                keys.activate("create-lab-key")
                lab_key = wait.until(EC.visibility_of_element_located((By.ID, "lab-key"))).text.strip()
                assert re.match(r"^lab_[A-Za-z0-9_-]{43}$", lab_key), lab_key
                accessibility.audit(browser, "a lab key shown once")
                keys.activate("back-to-labs")
                wait.until(EC.presence_of_element_located((By.ID, "lab-credentials")))
                assert lab_key not in browser.page_source
                fingerprint = hashlib.sha256(lab_key.encode()).hexdigest()[:12]
                keys.activate("revoke-" + fingerprint)
                wait.until(EC.text_to_be_present_in_element((By.ID, "notice"), fingerprint))
                assert "revoked" in browser.find_element(By.ID, "credential-" + fingerprint).get_attribute("class")
                print("system administrator created a lab's API key, saw it once and revoked it")
                keys.activate("nav-audit")
                wait.until(EC.presence_of_element_located((By.ID, "audit-filter")))
                rows = browser.find_element(By.ID, "audit").text
                assert "chief" in rows and "north" in rows and first not in rows, rows
                print("system administrator: national statistics and audit log, no officers page")
            finally:
                browser.quit()
    finally:
        if os.environ.get("KEEP_TEMP") == "1":
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    test_portal()
    test_officer_administration_with_the_keyboard()
    print(f"browser test passed; axe-core found no serious violation on {len(accessibility.audited)} pages")
    sys.exit(0)
