"""The dashboard in a real browser against real brokers: every page loads with real data, actions taken
through the UI change the database, and an admin-only action is refused for a read-only token.
Screenshots of every page land in <run dir>/dashboard-screenshots."""
import time

import pytest

import auth_support

ADMIN = auth_support.hs256(roles=["admin"], sub="dash-admin")
READ_ONLY = auth_support.hs256("read-only", sub="dash-viewer")
# Longer than the page's refresh interval (5 s): a window in which a hidden tab must not refresh. Not a wait
# for something to happen: the behaviour under test is that nothing does.
HIDDEN_WINDOW_S = 6


def admin_get(broker, path):
    with broker.client() as client:
        resp = client.request("GET", path, headers=auth_support.bearer(ADMIN))
    assert resp.status == 200, resp
    return resp.body


def test_overview_shows_this_broker_its_spool_and_the_maintenance_flags(page, broker):
    page.open("overview")
    page.wait_text("[data-test=broker-row]", lambda t: "dash" in t and "healthy, database connected" in t,
                   "this broker's row, healthy")
    page.wait_text("[data-test=stat-buffered-value]", lambda t: t == "0", "no buffered events")
    page.wait_text("[data-test=flag-push-value]", lambda t: t == "off", "push maintenance off")
    page.wait_text("[data-test=flag-pop-value]", lambda t: t == "off", "pop maintenance off")
    assert page.all("[data-test=chart-hour]") and page.all("[data-test=chart-week]")
    page.shot("overview")
    page.wait_loaded(refreshes=2)  # the page re-reads its routes on its own (every 5 s while visible)


@pytest.mark.parametrize("route,marker", [
    ("queues", "page-queues"),
    ("groups", "page-groups"),
    ("messages", "page-messages"),
    ("dlq", "page-dlq"),
    ("traces", "page-traces"),
    ("analytics", "page-analytics"),
    ("kv", "page-kv"),
    ("timers", "page-timers"),
    ("system", "page-system"),
])
def test_every_page_loads(page, route, marker):
    loaded = page.open(route)
    assert loaded.get_attribute("data-test") == marker
    assert not page.all("#banner[data-kind=error]:not([hidden])")
    page.shot(route)


def test_the_spool_page_shows_the_drain_state(page):
    page.open("system")
    page.wait_text("[data-test=spool-pending-value]", lambda t: t == "0", "an empty spool")
    page.wait_text("[data-test=spool-drain-value]", lambda t: t.startswith("idle"), "an idle drain")
    page.wait_for("[data-test=flag-row-push][data-state=false]", "the push flag read as off")
    page.shot("system-spool", doc="system")


def test_without_a_token_the_page_says_one_is_needed_and_the_token_form_fixes_it(auth_page):
    auth_page.open("system")
    auth_page.wait_text("[data-test=system-spool] [data-test=section-error]", lambda t: "401" in t and "token" in t,
                        "the spool section asking for a token")
    auth_page.click("[data-test=token-status]")
    auth_page.wait_for("[data-test=token-input]").send_keys(ADMIN)
    auth_page.click("[data-test=token-save]")
    auth_page.wait_text("[data-test=token-status]", lambda t: "dash-admin" in t and "admin" in t, "the token's subject")
    auth_page.wait_text("[data-test=spool-pending-value]", lambda t: t == "0", "the spool read with the token")
    stored = auth_page.browser.execute_script("return sessionStorage.getItem('queen.dashboard.token')")
    assert stored == ADMIN


def test_a_read_only_token_may_look_but_not_toggle_maintenance(auth_page, auth_broker):
    auth_page.open("system", token=READ_ONLY)
    # The spool state is the operator's (docs/auth.md): refused like the flags.
    auth_page.wait_text("[data-test=system-spool] [data-test=section-error]", lambda t: "403" in t,
                        "the spool section refused")
    auth_page.wait_text("[data-test=system-maintenance] [data-test=section-error]", lambda t: "403" in t,
                        "the flags section refused")
    auth_page.click("[data-test=toggle-push]")
    auth_page.confirm()
    message = auth_page.banner("error")
    assert "403" in message and "role" in message, message
    auth_page.shot("system-read-only-refused")
    assert admin_get(auth_broker, "/api/v1/system/maintenance")["maintenanceMode"] is False


def test_an_admin_toggles_push_maintenance_with_confirmation(auth_page, auth_broker):
    auth_page.open("system", token=ADMIN)
    auth_page.wait_for("[data-test=flag-row-push][data-state=false]", "the push flag read as off")
    try:
        auth_page.click("[data-test=toggle-push]")
        auth_page.click("dialog[open] [data-test=dialog-cancel]")  # cancelling changes nothing
        assert admin_get(auth_broker, "/api/v1/system/maintenance")["maintenanceMode"] is False
        auth_page.click("[data-test=toggle-push]")
        auth_page.confirm()
        auth_page.banner("ok")
        auth_page.wait_for("[data-test=flag-row-push][data-state=true]", "the push flag read as on")
        assert admin_get(auth_broker, "/api/v1/system/maintenance")["maintenanceMode"] is True
        auth_page.shot("system-maintenance-on")
        auth_page.click("[data-test=toggle-push]")
        auth_page.confirm()
        auth_page.wait_for("[data-test=flag-row-push][data-state=false]", "the push flag read as off again")
    finally:
        with auth_broker.client() as client:
            client.request("POST", "/api/v1/system/maintenance", json={"enabled": False},
                           headers=auth_support.bearer(ADMIN))
    assert admin_get(auth_broker, "/api/v1/system/maintenance")["maintenanceMode"] is False


def test_the_refresh_loop_pauses_while_the_tab_is_hidden_and_resumes_when_it_shows(page):
    page.open("overview")
    page.browser.execute_script(
        "Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'));")
    page.until(lambda d: d.execute_script("return !document.body.dataset.refreshing"), "no refresh in flight")
    refreshes = int(page.wait_loaded().get_attribute("data-refreshes"))
    time.sleep(HIDDEN_WINDOW_S)
    assert int(page.wait_loaded().get_attribute("data-refreshes")) == refreshes
    page.browser.execute_script(
        "Object.defineProperty(document, 'visibilityState', {value: 'visible', configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'));")
    page.wait_loaded(refreshes=refreshes + 1)
