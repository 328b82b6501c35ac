"""What the dashboard's figures say (issue 25, item 4): charts have the buckets their titles name, cards and labels
say what they count, partitions are in natural order, options have readable names and units, each queue has rate
charts from the analytics routes, and traces and analytics have pages of their own."""
import re

from selenium.webdriver.common.by import By

from dashboard_support import ACCOUNT_PARTITIONS, TRACE_NAME, fail_until_dead, refresh_statistics
from harness import unique_name
from harness.api import quote

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
    page.shot("traces")


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
    page.shot("analytics")
    page.open(f"analytics?span=7d&queue={quote(statistics['orders'])}")
    week = page.wait_for("[data-test=chart-queues-pushed]")
    page.until(lambda d: week.get_attribute("data-bucket-minutes") == "60", "hour buckets over a week")
    assert "per hour" in week.text
