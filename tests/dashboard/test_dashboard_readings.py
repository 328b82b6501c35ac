"""What an operator reads on the dashboard (issue 37), at the 1,400 x 900 window the defects were seen at: a young
queue's charts span the hour they asked for, row buttons are in view, the brokers of the cell are the live ones
(those that stopped are a muted count), broker errors are a card of their own, the message listing says how many
match, queue mode has one name, the header names the zone once, a sub-millisecond database ping is not "0 ms", and
a queue's pending and completed cards say whose they are."""
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from dashboard_support import refresh_statistics
from harness import unique_name
from harness.api import ack_item, quote
from harness.waiting import poll_until

HOUR_S = 3600
# A bucket starts at its whole minute, so the drawn range may begin up to a minute before the window asked for.
BUCKET_S = 60
QUEUE_CHARTS = ("chart-queue-rates", "chart-queue-depth", "chart-queue-lag")
# Brokers that flushed figures this long ago and not since: stopped (a rolling deploy, a crash or a test run).
GONE_MINUTES_AGO = (12, 25, 40)
# A broker flushes its figures every minute by default (BROKER_STATS_FLUSH_INTERVAL_MS), with slack for a busy machine.
LIVE_FLUSH_S = 120


def api_get(broker, path):
    with broker.client() as client:
        resp = client.get(path)
    assert resp.status == 200, resp
    return resp.body


def page_text(page):
    return page.browser.execute_script("return document.body.innerText")


def test_a_young_queues_charts_span_the_hour_they_asked_for(page, broker):
    queue = unique_name("dash-young")
    with broker.client() as client:
        assert client.push_one(queue, {"n": 1}, partition="p", transaction_id="young-1").status == 201
        refresh_statistics(client)
    poll_until(lambda: any(q["queue"] == queue and q["series"] for q in
                           api_get(broker, f"/api/v1/analytics/queue-ops?queue={quote(queue)}")["queues"]),
               timeout=30, interval=0.5, what="the young queue's first statistics point")
    page.open(f"queues/{quote(queue)}")
    opened = time.time()
    for chart in QUEUE_CHARTS:
        el = page.wait_for(f"[data-test={chart}] canvas", f"the {chart} drawn") and page.wait_for(f"[data-test={chart}]")
        page.until(lambda d, el=el: el.get_attribute("data-x-ticks"), f"the {chart}'s axis")
        points = int(el.get_attribute("data-points"))
        assert 1 <= points <= 2, f"{chart}: a queue a few seconds old has {points} points"
        low, high = float(el.get_attribute("data-x-min")), float(el.get_attribute("data-x-max"))
        assert HOUR_S <= high - low <= HOUR_S + BUCKET_S, f"{chart}: the x axis spans {high - low:.0f} s, not the hour asked for"
        assert abs(high - opened) < 5 * BUCKET_S, f"{chart}: the x axis ends at {high}, not now ({opened})"
        ticks = el.get_attribute("data-x-ticks").split("|")
        assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), f"{chart}: axis labels {ticks}"
        assert all(re.fullmatch(r"\d{2}:\d{2}", t) for t in ticks), f"{chart}: an hour's axis labelled {ticks}"


def buttons_out_of_view(page, css, limit):
    """The buttons matching css (the first `limit`) that are not wholly visible in their table's box and the window,
    or that something else covers at their centre."""
    return page.browser.execute_script("""
      const out = [];
      for (const button of [...document.querySelectorAll(arguments[0])].slice(0, arguments[1])) {
        const row = button.closest('tr');
        window.scrollTo(0, window.scrollY + row.getBoundingClientRect().top - window.innerHeight / 2);
        const box = button.closest('.table-scroll').getBoundingClientRect();
        const r = button.getBoundingClientRect();
        const inside = r.width > 0 && r.left >= Math.max(0, box.left) - 0.5 && r.right <= Math.min(box.right, window.innerWidth) + 0.5;
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!inside || !top || !button.contains(top)) {
          out.push(`${button.textContent} of ${row.dataset.group || row.dataset.transaction}: button ${Math.round(r.left)}..${Math.round(r.right)}, box ${Math.round(box.left)}..${Math.round(box.right)}`);
        }
      }
      return out;""", css, limit)


def test_row_buttons_are_in_view_at_1400_px(page, seeded, broker):
    # Names as long as real ones (the integration suites' queues, a service's group, the clients' UUID transaction
    # ids) make the tables wider than the window.
    queue = unique_name("integration-consumer-groups-subscription-from-timestamp")
    group = unique_name("analytics-pipeline-consumer")
    with broker.client() as client:
        assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0}).status == 200
        assert client.push([{"queue": queue, "partition": "eu-west-1", "payload": {"n": n}} for n in range(3)]).status == 201
        popped = client.pop_messages(queue, batch=3, consumer_group=group)
        assert len(popped) == 3, popped
        resp = client.ack_batch([ack_item(m, status="failed", error="the invoice renderer timed out") for m in popped],
                                consumer_group=group)
        assert resp.status == 200 and all(r["dlq"] for r in resp.body), resp
    assert page.browser.execute_script("return window.innerWidth") <= 1400
    page.open("groups")
    page.wait_for(f"[data-test=group-row][data-group='{group}']")
    for css in ("[data-test=group-seek]", "[data-test=group-delete]"):
        hidden = buttons_out_of_view(page, css, 50)
        assert not hidden, f"consumer-group buttons cut off: {hidden}"
    page.shot("groups-buttons")
    for dead in (queue, seeded["dead_many"]):
        page.open(f"dlq?queue={quote(dead)}")
        page.click("[data-test=dlq-apply]")
        page.wait_for("[data-test=dlq-row]")
        for css in ("[data-test=dlq-requeue]", "[data-test=dlq-delete]"):
            hidden = buttons_out_of_view(page, css, 10)
            assert not hidden, f"dead-letter buttons cut off: {hidden}"
    page.shot("dlq-buttons")


def test_the_brokers_of_the_cell_are_the_live_ones_and_a_muted_count_of_the_gone(page, broker, auth_broker, database):
    gone = [unique_name("dash-gone") for _ in GONE_MINUTES_AGO]
    for name, minutes in zip(gone, GONE_MINUTES_AGO):
        # As a broker of a previous deploy left them: its last figures, that many minutes ago.
        database.execute("SELECT queen.record_broker_minute(:'id', '{\"requests\": 5}'::jsonb, now() - make_interval(mins => :'ago'))",
                         id=name, ago=minutes)
    # The other live broker: its figures reach the statistics at its first flush (a minute after it started).
    poll_until(lambda: any(w["workerId"] == auth_broker.name for w in api_get(broker, "/api/v1/status")["workers"]),
               timeout=LIVE_FLUSH_S, interval=1, what="the auth broker's first figures")
    page.open("overview")
    summary = page.wait_for("[data-test=brokers-gone]", "the count of brokers gone")
    assert int(summary.get_attribute("data-count")) == len(gone), summary.get_attribute("data-count")
    assert summary.text.startswith(f"{len(gone)} brokers stopped reporting in the last hour"), summary.text
    assert summary.get_attribute("open") is None, "the gone brokers are folded away"
    assert "muted" in summary.get_attribute("class")
    rows = page.wait_text("[data-test=overview-brokers] table", lambda t: auth_broker.name in t, "the live brokers")
    assert not any(name in rows for name in gone), f"a gone broker listed as a row: {rows}"
    levels = {r.find_element(By.CSS_SELECTOR, "td").text: r.get_attribute("data-level") for r in page.all("[data-test=broker-row]")}
    assert levels.get(broker.name) == "ok" and levels.get(auth_broker.name) == "ok", levels
    assert not page.all("[data-test=overview-brokers] .badge.bad"), "a red badge among the brokers of a healthy cell"
    summary.find_element(By.CSS_SELECTOR, "summary").click()
    listed = [li.text for li in page.all("[data-test=broker-gone]")]
    assert [text.split(",")[0] for text in listed] == [gone[0], gone[1], gone[2]], listed  # the most recent first
    page.shot("overview-brokers")


def test_broker_errors_are_a_card_of_their_own(page, statistics, broker):
    page.open("overview")
    dead_lettered = page.wait_for("[data-test=stat-dead-lettered]")
    assert "error" not in dead_lettered.text.lower(), f"the dead-letter card speaks of errors: {dead_lettered.text!r}"
    page.until(lambda d: page.wait_for("[data-test=stat-errors-value]").text
               == f"{api_get(broker, '/api/v1/status')['errors']['total']:,}", "the broker errors of the hour")
    card = page.wait_for("[data-test=stat-errors]").text
    assert "Broker errors, last hour" in card and "database" in card and "acks refused" in card, card


def test_the_message_listing_says_how_many_match_not_the_page_size(page, seeded):
    page.open(f"messages?queue={quote(seeded['many'])}")
    page.click("[data-test=filter-apply]")
    count = page.wait_text("[data-test=message-count]", lambda t: "match" in t, "the listing's count")
    assert count.startswith("More than 100 messages match: #1 to #100 shown"), count
    assert len(page.all("[data-test=message-row]")) == 100
    page.click("[data-test=message-list] .toolbar button:last-child")  # older →
    count = page.wait_text("[data-test=message-count]", lambda t: "#101" in t, "the second page's count")
    assert count.startswith("120 messages match: #101 to #120 shown"), count
    assert len(page.all("[data-test=message-row]")) == 20
    page.open(f"messages?queue={quote(seeded['accounts'])}")
    page.click("[data-test=filter-apply]")
    count = page.wait_text("[data-test=message-count]", lambda t: "match" in t, "the listing's count")
    assert count.startswith("12 messages match;"), count


def test_queue_mode_has_one_name_on_every_page(page, seeded):
    page.open(f"queues/{quote(seeded['orders'])}")
    page.wait_text("[data-test=queue-group-row]", lambda t: t.startswith("queue mode"), "queue mode's group row")
    page.wait_text("[data-test=lag-row]", lambda t: "queue mode" in t, "queue mode's lag rows")
    assert "__QUEUE_MODE__" not in page_text(page)
    page.open("groups")
    page.wait_text("[data-test=group-row]", lambda t: t.startswith("queue mode"), "queue mode's group row")
    assert "__QUEUE_MODE__" not in page_text(page)
    page.open(f"dlq?queue={quote(seeded['dead_many'])}")
    page.click("[data-test=dlq-apply]")
    page.wait_text("[data-test=dlq-row]", lambda t: "queue mode" in t, "a queue-mode dead letter")
    page.click("[data-test=dlq-row] td")
    page.wait_text("[data-test=dlq-fields]", lambda t: "queue mode" in t, "the dead letter's group")
    assert "__QUEUE_MODE__" not in page_text(page)
    page.click("[data-test=dlq-detail] [data-test=drawer-close]")
    # The group filter takes the name the page shows.
    field = page.wait_for("[data-test=dlq-group]")
    field.clear()
    field.send_keys("queue mode")
    page.click("[data-test=dlq-apply]")
    page.wait_text("[data-test=dlq-total]", lambda t: t.startswith("120 dead letters match"), "queue mode's dead letters")
    page.open(f"messages?queue={quote(seeded['orders'])}")
    page.click("[data-test=filter-apply]")
    page.click("[data-test=message-row][data-transaction='order-1']")
    page.wait_text("[data-test=message-fields]", lambda t: "queue mode:" in t, "queue mode among the message's groups")
    assert "__QUEUE_MODE__" not in page_text(page)


def zone_header(page):
    """The header's zone control as a person reads it: the label, the chosen option and the offset shown."""
    return page.browser.execute_script("""
      const label = document.querySelector('[data-test=zone-label]');
      return [...label.childNodes].map((n) => n.tagName === 'SELECT' ? n.selectedOptions[0].text
        : n.nodeType === Node.ELEMENT_NODE && n.hidden ? '' : n.textContent).join(' ').replace(/\\s+/g, ' ').trim();""")


def test_the_header_names_the_zone_once(page):
    page.open("overview")
    try:
        assert zone_header(page) == "Times in UTC"
        Select(page.wait_for("[data-test=zone-select]")).select_by_value("Asia/Tokyo")
        page.wait_for("[data-test=zone-label][data-zone='Asia/Tokyo']")
        assert zone_header(page) == "Times in Asia/Tokyo UTC+9"
    finally:
        page.browser.execute_script("localStorage.removeItem('queen.dashboard.timeZone')")


def test_a_sub_millisecond_database_ping_is_not_shown_as_zero(page, broker):
    page.open("system")

    def latency(driver):
        for row in driver.find_elements(By.CSS_SELECTOR, "[data-test=spool-fields] tr"):
            if row.find_element(By.CSS_SELECTOR, "th").text == "Database latency":
                return row.find_element(By.CSS_SELECTOR, "td").text
        return False
    shown = page.until(latency, "the database latency")
    match = re.fullmatch(r"(<)?([\d.,]+) ms", shown)
    assert match and float(match.group(2).replace(",", "")) > 0, f"the database latency reads {shown!r}"
    # The formatter itself, on the values a ping gives: well under, about and over a millisecond.
    formatted = page.browser.execute_async_script("""
      const done = arguments[arguments.length - 1];
      const main = document.querySelector('script[type=module]').src;
      import(main.replace(/main\\.js$/, 'dom.js')).then((dom) => done([0.42, 0.004, 3.456, 120.4].map(dom.milliseconds)))
        .catch((error) => done(String(error)));""")
    assert formatted == ["0.42 ms", "<0.01 ms", "3.5 ms", "120 ms"], formatted


def test_a_queues_pending_and_completed_cards_say_they_are_the_slowest_groups(page, statistics, broker):
    orders = statistics["orders"]
    page.open(f"queues/{quote(orders)}")
    totals = api_get(broker, f"/api/v1/resources/queues/{quote(orders)}")["totals"]
    pending = page.wait_for("[data-test=queue-pending]").text
    completed = page.wait_for("[data-test=queue-completed]").text
    assert pending.split("\n") == ["Pending", f"{totals['pending']:,}", "for the slowest consumer group"], pending
    assert completed.split("\n") == ["Completed", f"{totals['completed']:,}", "by every consumer group"], completed
