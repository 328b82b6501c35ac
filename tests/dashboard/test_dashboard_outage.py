"""The outage banner (issue 25, item 4): with PostgreSQL down, and with the broker that served the page down, every
page says so in a banner, not in a small section error; the banner goes when the database is back. PostgreSQL and
the broker are stopped for real, on a cluster of this test's own (as tests/fault does)."""
from dashboard_support import Page

# The page reads /health every 5 s; a banner must follow an outage within a few of those.
OUTAGE_SEEN_S = 30


def outage_state(page):
    return page.browser.execute_script("const el = document.querySelector('[data-test=outage]'); return el ? el.dataset.state : null")


def test_a_banner_says_when_the_database_or_the_broker_is_down(browser, pg_cluster, broker_factory, shots):
    cluster = pg_cluster()
    broker = broker_factory(pg=cluster.target, name="dash-outage")
    page = Page(browser, broker, shots)
    page.open("overview")
    page.until(lambda d: outage_state(page) == "ok", "no outage while all is up")
    assert not page.all("[data-test=outage]:not([hidden])")

    cluster.stop(mode="immediate")
    page.until(lambda d: outage_state(page) == "down", "the database outage in the banner", timeout=OUTAGE_SEEN_S)
    text = page.wait_for("[data-test=outage]").text
    assert "database is unreachable" in text, text
    page.shot("outage-database", doc="outage")
    page.open("queues")  # every page shows it, not only the overview
    page.until(lambda d: outage_state(page) == "down", "the banner on another page", timeout=OUTAGE_SEEN_S)

    cluster.start()
    page.until(lambda d: outage_state(page) == "ok", "the banner gone with the database back", timeout=OUTAGE_SEEN_S)

    broker.stop()
    page.until(lambda d: outage_state(page) == "down", "the broker outage in the banner", timeout=OUTAGE_SEEN_S)
    text = page.wait_for("[data-test=outage]").text
    assert "broker does not answer" in text, text
    page.shot("outage-broker")
