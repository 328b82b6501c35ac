"""What the dashboard's figures say (issue 25, item 4): charts have the buckets their titles name, cards and labels
say what they count, partitions are in natural order, options have readable names and units, each queue has rate
charts from the analytics routes, and traces, analytics, the KV store and timers have pages of their own."""
import datetime
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import auth_support
from dashboard_support import ACCOUNT_PARTITIONS, TRACE_NAME, fail_until_dead, refresh_statistics
from harness import unique_name
from harness.api import quote
from harness.waiting import poll_until

ADMIN = auth_support.hs256(roles=["admin"], sub="dash-admin")

HOUR_POINTS = 60    # an hour in 1-minute buckets: 60 or 61 points (the first bucket holds the window's start)
WEEK_POINTS = 168   # a week in 1-hour buckets


def api_get(broker, path):
    with broker.client() as client:
        resp = client.get(path)
    assert resp.status == 200, resp
    return resp.body


def test_the_throughput_charts_have_the_buckets_their_titles_name(page, statistics):
    page.open("overview")
    hour = page.wait_for("[data-test=chart-hour]")
    page.until(lambda d: int(hour.get_attribute("data-points") or 0) > 0, "the hour chart's points")
    points = int(hour.get_attribute("data-points"))
    assert HOUR_POINTS <= points <= HOUR_POINTS + 1, f"the hour chart has {points} points: not 1-minute buckets"
    assert "per minute" in hour.find_element(By.CSS_SELECTOR, "h3").text
    week = page.wait_for("[data-test=chart-week]")
    page.until(lambda d: int(week.get_attribute("data-points") or 0) > 0, "the week chart's points")
    points = int(week.get_attribute("data-points"))
    assert WEEK_POINTS <= points <= WEEK_POINTS + 1, f"the week chart has {points} points: not 1-hour buckets"
    assert "per hour" in week.find_element(By.CSS_SELECTOR, "h3").text


def test_dead_lettered_in_the_hour_and_dead_letters_now_are_different_cards(page, seeded, broker):
    # A message dead-lettered and then requeued: it counts as dead-lettered in the hour, and is no longer in the
    # dead-letter queue. The statistics are refreshed in between, as the statistics job would.
    queue = unique_name("dash-requeued")
    with broker.client() as client:
        assert client.configure(queue, {"retryLimit": 1, "retryDelay": 0}).status == 200
        assert client.push_one(queue, {"n": 1}, partition="p", transaction_id="requeued-1").status == 201
        fail_until_dead(client, queue, "p", "requeued-1", attempts=2)
        refresh_statistics(client)
        entry = client.get(f"/api/v1/dlq?queue={quote(queue)}").body["messages"][0]
        resp = client.post(f"/api/v1/dlq/{entry['id']}/requeue", json={"consumerGroup": entry["consumerGroup"]})
        assert resp.status == 200, resp
        refresh_statistics(client)
    status = api_get(broker, "/api/v1/status")
    in_hour, now = status["deadLetterQueue"]["addedInRange"], api_get(broker, "/api/v1/dlq")["total"]
    assert in_hour > now, status["deadLetterQueue"]
    page.open("overview")
    page.wait_text("[data-test=stat-dead-lettered-value]", lambda t: t == str(in_hour), f"{in_hour} dead-lettered in the hour")
    page.wait_text("[data-test=stat-dlq-value]", lambda t: t == str(now), f"{now} dead letters now")


def test_the_group_listing_counts_partitions_and_an_idle_group_is_not_dead(page, seeded):
    page.open("groups")
    header = page.wait_for("th[data-sort=members]").text
    assert header.startswith("Partitions"), f"the column of `members` (cursor rows) is headed {header!r}"
    idle = page.wait_for(f"[data-test=group-row][data-group='{seeded['idle']}'][data-queue='{seeded['empty']}']")
    state = idle.find_element(By.CSS_SELECTOR, "[data-test=group-state]").text
    assert state == "Idle", f"an idle group on an empty queue shows {state!r}"
    active = page.wait_for(f"[data-test=group-row][data-group='{seeded['group']}'][data-queue='{seeded['orders']}']")
    assert active.find_element(By.CSS_SELECTOR, "[data-test=group-state]").text != "Dead"
    active.click()
    consumers = page.wait_text("[data-test=group-consumers]", lambda t: "consumer" in t, "the group's consumers")
    assert re.match(r"^\d+ consumers? reading now", consumers), consumers
    assert page.in_viewport(page.wait_for("[data-test=group-detail-title]"))
    page.shot("groups-detail")


def test_partitions_are_in_natural_order(page, seeded):
    page.open(f"queues/{quote(seeded['accounts'])}")
    page.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-test=partition-row]")) == ACCOUNT_PARTITIONS,
               "every partition")
    names = [r.get_attribute("data-partition") for r in page.all("[data-test=partition-row]")]
    assert names == [f"acct-{n}" for n in range(1, ACCOUNT_PARTITIONS + 1)], names


def test_queue_options_have_readable_names_and_units(page, seeded):
    page.open(f"queues/{quote(seeded['orders'])}")
    page.wait_for("[data-test=options-table]")
    rows = {r.get_attribute("data-option"): r.text for r in page.all("[data-test=option-row]")}
    assert "Lease time" in rows["leaseTime"] and "60 s" in rows["leaseTime"], rows
    assert "Retry delay" in rows["retryDelay"] and "ms" in rows["retryDelay"], rows
    assert "Time to live" in rows["ttl"] and "3,600 s (60 min)" in rows["ttl"], rows


def test_each_queue_has_rate_depth_and_lag_charts_from_the_analytics_routes(page, statistics, broker):
    orders = statistics["orders"]
    ops = api_get(broker, f"/api/v1/analytics/queue-ops?queue={quote(orders)}")
    assert ops["queues"] and ops["queues"][0]["series"], ops
    page.open(f"queues/{quote(orders)}")
    for chart in ("chart-queue-rates", "chart-queue-depth", "chart-queue-lag"):
        page.wait_for(f"[data-test={chart}] canvas", f"the {chart} drawn")
        assert int(page.wait_for(f"[data-test={chart}]").get_attribute("data-points")) > 0
    legend = page.wait_for("[data-test=chart-queue-rates] .u-legend").text
    assert "pushed/s" in legend and "acked/s" in legend, legend
    page.shot("queue-charts")


def test_the_traces_page_lists_names_traces_by_name_and_a_messages_traces(page, seeded):
    page.open("traces")
    page.wait_for(f"[data-test=trace-name-row][data-name='{TRACE_NAME}']")
    page.click(f"[data-test=trace-name-row][data-name='{TRACE_NAME}'] [data-test=trace-name-link]")
    page.wait_text("[data-test=traces-by-name] [data-test=trace-row]", lambda t: seeded["traced"] in t,
                   "the named trace with its message")
    page.shot("traces-by-name")
    page.click("[data-test=traces-by-name] [data-test=trace-message-link]")
    page.wait_text("[data-test=traces-of-message-title]", lambda t: seeded["traced"] in t, "the message's traces")
    assert "charged" in page.wait_for("[data-test=traces-of-message] [data-test=trace-row]").text
    page.shot("traces", doc="traces")


def test_a_message_detail_links_to_its_traces(page, seeded):
    page.open(f"messages?queue={quote(seeded['orders'])}")
    page.click("[data-test=filter-apply]")
    page.click(f"[data-test=message-row][data-transaction='{seeded['traced']}']")
    page.wait_text("[data-test=message-detail] [data-test=trace-row]", lambda t: "charged" in t, "the trace in the detail")
    page.click("[data-test=message-traces-link]")
    page.wait_text("[data-test=traces-of-message] [data-test=trace-row]", lambda t: "charged" in t, "the traces page")


def test_the_analytics_page_draws_queues_brokers_jobs_and_the_database(page, statistics):
    page.open("analytics")
    for chart in ("chart-queues-pushed", "chart-queues-pending", "chart-brokers-cpu", "chart-brokers-requests"):
        page.wait_for(f"[data-test={chart}] canvas", f"the {chart} drawn")
    legend = page.wait_for("[data-test=chart-queues-pushed] .u-legend").text
    assert statistics["orders"] in legend or "quieter" in page.wait_for("[data-test=analytics-queue-note]").text, legend
    page.wait_for("[data-test=job-row]", "a maintenance job's runs")
    assert page.all("[data-test=database-row]")
    page.shot("analytics", doc="analytics")
    page.open(f"analytics?span=7d&queue={quote(statistics['orders'])}")
    week = page.wait_for("[data-test=chart-queues-pushed]")
    page.until(lambda d: week.get_attribute("data-bucket-minutes") == "60", "hour buckets over a week")
    assert "per hour" in week.text


def right_aligned(page, css):
    """For each numeric cell of the first row of the table at css: (its header's text, header and cell aligned right)."""
    return page.browser.execute_script("""
      const table = document.querySelector(arguments[0]), heads = table.querySelectorAll('thead th');
      return [...table.querySelectorAll('tbody tr:first-child td.n')].map((td) => [heads[td.cellIndex].textContent,
        getComputedStyle(heads[td.cellIndex]).textAlign === 'right' && getComputedStyle(td).textAlign === 'right']);""", css)


def test_the_kv_page_lists_the_keys_looked_up_in_natural_order_with_their_expiry_in_the_chosen_zone(page, seeded):
    from zoneinfo import ZoneInfo
    kv, zone = seeded["kv"], "Asia/Tokyo"
    page.open("kv")
    page.wait_text("[data-test=kv-list] td.empty", lambda t: "No key looked up yet" in t, "the empty state")
    page.shot("kv-empty")
    try:
        Select(page.wait_for("[data-test=zone-select]")).select_by_value(zone)
        page.wait_for(f"[data-test=zone-label][data-zone='{zone}']", f"the zone shown as {zone}")
        for key in (f"{kv}-10", f"{kv}-2", f"{kv}-missing"):
            field = page.wait_for("[data-test=kv-key-input]")
            field.clear()
            field.send_keys(key)
            page.click("[data-test=kv-lookup]")
            page.wait_text("[data-test=kv-detail-title]", lambda t, key=key: t == key, f"{key}'s detail")
        page.click("[data-test=kv-detail] [data-test=drawer-close]")
        page.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-test=kv-row]")) == 3, "three keys listed")
        keys = [r.get_attribute("data-key") for r in page.all("[data-test=kv-row]")]
        assert keys == [f"{kv}-2", f"{kv}-10", f"{kv}-missing"], keys
        states = [r.get_attribute("data-state") for r in page.all("[data-test=kv-row]")]
        assert states == ["present", "present", "absent"], states
        expires = datetime.datetime.fromisoformat(seeded["kv_expires_at"].replace("Z", "+00:00"))
        expected = expires.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")
        cells = [c.text for c in page.wait_for(f"[data-test=kv-row][data-key='{kv}-2']").find_elements(By.CSS_SELECTOR, "td")]
        assert cells[2] == expected, (cells, expected)
        assert cells[3].endswith(" min") or cells[3].endswith(" h"), cells  # time left of an hour's TTL
        assert page.wait_for(f"[data-test=kv-row][data-key='{kv}-10']").find_elements(By.CSS_SELECTOR, "td")[2].text == "never"
        assert zone in page.wait_for("[data-test=kv-list] th:nth-child(3)").text
        aligned = right_aligned(page, "[data-test=kv-list] table")
        assert aligned and all(ok for _, ok in aligned), aligned
        page.click(f"[data-test=kv-row][data-key='{kv}-2'] td")
        page.wait_text("[data-test=kv-value]", lambda t: '"seats": 12' in t, "the value in the side panel")
        assert page.in_viewport(page.wait_for("[data-test=kv-detail-title]"))
        assert expected in page.wait_for("[data-test=kv-fields]").text
        page.shot("kv", doc="kv")
    finally:
        page.browser.execute_script("localStorage.removeItem('queen.dashboard.timeZone')")


def shared_state(instance):
    with instance.client() as client:
        resp = client.request("GET", "/api/v1/system/shared-state", headers=auth_support.bearer(ADMIN))
    assert resp.status == 200, resp
    return resp.body


def test_the_timers_page_shows_the_sweeper_of_the_broker_that_fired_the_seeded_timer(page, auth_page, seeded, broker,
                                                                                     auth_broker):
    queue = seeded["timer_queue"]

    def fired_counts():
        # Both brokers run a sweeper on the database; either may have fired it.
        return {name: shared_state(instance)["sweeper"]["timers_fired"]
                for name, instance in (("broker", broker), ("auth", auth_broker))}
    fired = poll_until(lambda: (lambda f: sum(f.values()) >= 1 and f)(fired_counts()), timeout=30, interval=0.2,
                       what="a sweeper that fired the seeded timer")
    with broker.client() as client:
        listed = client.get(f"/api/v1/messages?queue={quote(queue)}").body["messages"]
    assert [m["transactionId"] for m in listed if m.get("queue", m.get("queueName")) == queue] == ["timer-1"], listed
    name = max(fired, key=fired.get)
    view = page if name == "broker" else auth_page
    view.open("timers", token=None if name == "broker" else ADMIN)
    row = view.wait_for("[data-test=timer-row][data-counter=timers_fired]")
    view.until(lambda d: int(row.find_elements(By.CSS_SELECTOR, "td")[1].text.replace(",", "")) >= fired[name],
               f"at least {fired[name]} timers fired")
    assert "fired" in view.wait_for("[data-test=timers-summary]").text
    aligned = right_aligned(view, "[data-test=timer-list] table")
    assert len(aligned) == 2 and all(ok for _, ok in aligned), aligned
    view.click("[data-test=timer-row][data-counter=timers_fired] td")
    title = view.wait_text("[data-test=timer-detail-title]", lambda t: t == "Timers fired", "the counter's detail")
    assert title and view.in_viewport(view.wait_for("[data-test=timer-detail-title]"))
    assert "queen_sweeper_timers_fired_total" in view.wait_for("[data-test=timer-fields]").text
    view.shot("timers", doc="timers")
