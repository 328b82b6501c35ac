"""Driving the dashboard in the browser: open a route with a token, wait on what the page shows, confirm
dialogs, read the banner, take screenshots. Every wait is a WebDriverWait on a condition."""
import http.server
import os
import threading

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import free_port
from harness.waiting import poll_until

WAIT_S = 20
# The window the defects of issue 37 were seen at, and the size of the screenshots in docs/img.
WINDOW = (1400, 900)
# The screenshots docs/dashboard.md shows (docs/img/dashboard-<name>.png): the test that reaches each view writes it
# to <run dir>/dashboard-screenshots/docs/, and `make dashboard-screenshots` copies the newest run's into docs/img.
DOC_SCREENSHOTS = ("overview", "queues", "queue", "groups", "message-detail", "dlq", "traces", "analytics", "kv",
                   "timers", "system", "outage", "dark")
# Seeded data (conftest.seeded): a listing longer than the page of 100 rows the dashboard asks for, so a detail
# drawn under the list is out of view; partitions acct-1..acct-12 (natural order); a trace name.
LONG_LIST = 120
ACCOUNT_PARTITIONS = 12
TRACE_NAME = "dash-checkout"
# A KV key that expires in an hour, and a timer due two seconds after the seed.
KV_TTL_MS = 3_600_000
TIMER_DELAY_MS = 2000


def fail_until_dead(client, queue, partition, transaction_id, attempts):
    """Pop and fail the message `attempts` times (its retryLimit + 1): the last failure dead-letters it."""
    for attempt in range(attempts):
        msgs = poll_until(lambda: client.pop_messages(queue, partition=partition), timeout=10, interval=0.05,
                          what=f"{transaction_id} delivery {attempt}")
        assert msgs[0]["transactionId"] == transaction_id
        resp = client.ack(transaction_id, msgs[0]["partitionId"], lease_id=msgs[0]["leaseId"], status="failed",
                          error=f"card declined ({attempt})")
        assert resp.status == 200 and resp.body[0]["dlq"] is (attempt == attempts - 1), resp


def refresh_statistics(client):
    """POST /api/v1/stats/refresh until it ran (it answers skipped while a reconciler batch is writing)."""
    poll_until(lambda: (lambda r: r.status == 200 and r.body.get("skipped") is False)(
        client.post("/api/v1/stats/refresh")), timeout=30, interval=0.2, what="a statistics refresh")


class Page:
    """The dashboard of one broker in the shared browser, with waits on what the page shows."""

    def __init__(self, browser, broker, shots=None):
        self.browser = browser
        self.base = broker.url.rstrip("/") + "/"
        self.shots = shots

    def open(self, route, token=None, remember=False):
        """Loads the dashboard at #/route (a fresh page: no state kept from the last test) with `token`
        stored as the dashboard stores it, then waits for the page's first refresh."""
        self.browser.get(self.base + "#/overview")
        self.wait_for("[data-page][data-loaded]")
        self.browser.execute_script(
            "sessionStorage.clear(); localStorage.clear();"
            "if (arguments[0]) (arguments[1] ? localStorage : sessionStorage).setItem('queen.dashboard.token', arguments[0]);",
            token, remember)
        self.browser.get(self.base + "#/" + route)
        self.browser.refresh()
        return self.wait_loaded()

    def wait_loaded(self, refreshes=1):
        """The current page after at least `refreshes` completed refreshes."""
        def loaded(driver):
            for el in driver.find_elements(By.CSS_SELECTOR, "#page > [data-page][data-loaded]"):
                if int(el.get_attribute("data-refreshes") or 0) >= refreshes:
                    return el
            return False
        return self.until(loaded, f"a page refreshed {refreshes} times")

    def until(self, condition, what, timeout=WAIT_S):
        return WebDriverWait(self.browser, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(
            condition, message=f"waiting for {what}")

    def wait_for(self, css, what=None, timeout=WAIT_S):
        """The first element matching css that is displayed."""
        def found(driver):
            for el in driver.find_elements(By.CSS_SELECTOR, css):
                if el.is_displayed():
                    return el
            return False
        return self.until(found, what or css, timeout)

    def wait_text(self, css, predicate, what):
        """The text of the first element matching css once predicate(text) holds."""
        def check(driver):
            for el in driver.find_elements(By.CSS_SELECTOR, css):
                text = el.text
                if predicate(text):
                    return text
            return False
        return self.until(check, what)

    def all(self, css):
        return self.browser.find_elements(By.CSS_SELECTOR, css)

    def click(self, css, within=None):
        """Clicks the first displayed element matching css. Finding and clicking are one attempt: a list the page
        re-renders in between (its polling, an answer arriving) is searched again instead of failing as stale."""
        root = within or self.browser

        def clicked(driver):
            for el in root.find_elements(By.CSS_SELECTOR, css):
                if el.is_displayed():
                    el.click()
                    return el
            return False
        return self.until(clicked, css)

    def confirm(self):
        """Confirms the open confirmation dialog and waits for it to close."""
        self.click("dialog[open] [data-test=dialog-confirm]")
        self.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the dialog to close")

    def banner(self, kind):
        """The banner's text once it shows an outcome of this kind (ok, error)."""
        el = self.wait_for(f"#banner[data-kind={kind}]", f"a {kind} banner")
        return el.text

    def in_viewport(self, el):
        """True when the element's box lies wholly inside the window's visible area."""
        return self.browser.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0"
            " && r.bottom <= window.innerHeight && r.right <= window.innerWidth;", el)

    def color_scheme(self, scheme):
        """Emulates prefers-color-scheme (light or dark) for this browser, as the system setting would."""
        self.browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                     {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def time_zone(self, zone):
        """The browser's own time zone (what a page's `local` is), as the system setting would set it."""
        self.browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})

    def shot(self, name, doc=None):
        """Saves the window as <shots>/<name>.png, and as docs/dashboard-<doc>.png there when it is the view
        docs/dashboard.md shows for `doc` (one of DOC_SCREENSHOTS)."""
        if not self.shots:
            return
        self.browser.save_screenshot(os.path.join(self.shots, f"{name}.png"))
        if doc:
            assert doc in DOC_SCREENSHOTS, doc
            os.makedirs(os.path.join(self.shots, "docs"), exist_ok=True)
            self.browser.save_screenshot(os.path.join(self.shots, "docs", f"dashboard-{doc}.png"))


class OtherOrigin:
    """A page served from 127.0.0.1 on a port of its own: another origin than any broker's (the same site as a
    broker on 127.0.0.1). `site_origin` is the same page as http://localhost:<port>: another site as well."""

    def __init__(self):
        page = b"<!doctype html><title>another origin</title><p>nothing to see</p>"

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.site_origin = f"http://localhost:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
