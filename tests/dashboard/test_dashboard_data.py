"""The data pages against real data (the `seeded` fixture): the numbers shown are the broker's, and a
consumer-group seek and a dead-letter requeue done through the page change the database."""
from selenium.webdriver.common.by import By

from harness.api import quote


def api(broker, method, path, body=None):
    with broker.client() as client:
        resp = client.request(method, path, json=body)
    return resp


def test_the_overview_shows_the_statistics_and_the_throughput_charts(page, statistics):
    page.open("overview")
    page.wait_text("[data-test=stat-queues-value]", lambda t: t not in ("–", "0"), "the queue count")
    page.wait_text("[data-test=stat-pending-value]", lambda t: t not in ("–", "0"), "pending messages")
    page.wait_text("[data-test=stat-dlq-value]", lambda t: t not in ("–", "0"), "dead letters")
    page.wait_text("[data-test=stat-age-value]", lambda t: t != "–", "the statistics' age")
    for chart in ("chart-hour", "chart-week"):
        page.wait_for(f"[data-test={chart}] canvas", f"the {chart} drawn")
        assert int(page.wait_for(f"[data-test={chart}]").get_attribute("data-points")) > 0
    legend = page.wait_for("[data-test=chart-hour] .u-legend").text
    assert all(name in legend for name in ("pushed", "popped", "acked", "dead-lettered")), legend
    page.shot("overview-data", doc="overview")


def test_the_queues_page_lists_sorts_and_searches(page, statistics):
    seeded = statistics
    page.open("queues")
    row = page.wait_for(f"[data-test=queue-row][data-queue='{seeded['orders']}']")
    assert "8" in row.text  # messages in total
    page.click("th[data-sort='messages.total']")
    page.wait_for("th[data-sort='messages.total']")
    page.shot("queues-sorted", doc="queues")
    page.wait_for("[data-test=queue-search]").send_keys(seeded["dead"])
    page.wait_text("[data-test=queue-count]", lambda t: t.startswith("1 of"), "one queue left by the search")
    assert [r.get_attribute("data-queue") for r in page.all("[data-test=queue-row]")] == [seeded["dead"]]
    page.shot("queues-data")


def test_the_queue_page_shows_partitions_lag_groups_and_options(page, seeded):
    page.open(f"queues/{quote(seeded['orders'])}")
    for partition, total in (("region-0", "4"), ("region-1", "4")):
        row = page.wait_for(f"[data-test=partition-row][data-partition='{partition}']")
        assert row.find_elements(By.CSS_SELECTOR, "td")[1].text == total, row.text
    options = page.wait_for("[data-test=options-table]").text
    assert "leaseTime" in options and "60" in options, options
    page.wait_text("[data-test=queue-group-row]", lambda t: seeded["group"] in t, "the consumer group")
    page.wait_text("[data-test=lag-row]", lambda t: seeded["group"] in t, "the group's lag per partition")
    page.shot("queue-data", doc="queue")


def test_a_seek_to_the_end_through_the_page_moves_the_group_past_every_message(page, seeded, broker):
    orders, group = seeded["orders"], seeded["group"]
    detail = api(broker, "GET", f"/api/v1/consumer-groups/{quote(group)}")
    assert sum(p["offsetLag"] for p in detail.body[orders]["partitions"]) > 0, detail
    page.open(f"groups?queue={quote(orders)}")
    row = page.wait_for(f"[data-test=group-row][data-group='{group}'][data-queue='{orders}']")
    page.shot("groups-data", doc="groups")
    page.click("[data-test=group-seek]", within=row)
    page.click("dialog[open] [data-test=seek-end]")
    page.confirm()
    assert "partitions moved" in page.banner("ok")
    with broker.client() as client:
        assert client.pop_messages(orders, batch=10, consumer_group=group) == []
    detail = api(broker, "GET", f"/api/v1/consumer-groups/{quote(group)}")
    assert sum(p["offsetLag"] for p in detail.body[orders]["partitions"]) == 0, detail


def test_messages_are_filtered_and_shown_with_their_payload(page, seeded):
    page.open(f"messages?queue={quote(seeded['orders'])}")
    page.click("[data-test=filter-apply]")
    page.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-test=message-row]")) == 8, "eight messages")
    page.click("[data-test=message-row][data-transaction='order-5']")
    payload = page.wait_text("[data-test=message-payload]", lambda t: '"amount": 50' in t, "the payload")
    assert '"order": 5' in payload
    page.shot("messages-data", doc="message-detail")


def test_a_dead_letter_requeued_through_the_page_leaves_the_dlq_and_is_delivered_again(page, seeded, broker):
    dead = seeded["dead"]
    assert api(broker, "GET", f"/api/v1/dlq?queue={quote(dead)}").body["total"] == 2
    page.open(f"dlq?queue={quote(dead)}")
    page.click("[data-test=dlq-apply]")
    page.click("[data-test=dlq-row][data-transaction='inv-1']")
    page.wait_text("[data-test=dlq-payload]", lambda t: '"invoice": 1' in t, "the dead letter's payload")
    page.wait_text("[data-test=dlq-fields]", lambda t: "card declined (1)" in t, "the error")
    page.shot("dlq-data", doc="dlq")
    page.click("[data-test=dlq-detail-requeue]")
    page.confirm()
    assert "Requeued 1" in page.banner("ok")
    listing = api(broker, "GET", f"/api/v1/dlq?queue={quote(dead)}").body
    assert listing["total"] == 1 and listing["messages"][0]["transactionId"] == "inv-2", listing
    with broker.client() as client:
        again = client.pop_messages(dead, partition="eu", batch=10)
    assert [m["data"] for m in again] == [{"invoice": 1}], again


def test_a_message_deleted_through_the_page_is_gone(page, seeded, broker):
    orders = seeded["orders"]
    listing = api(broker, "GET", f"/api/v1/messages?queue={quote(orders)}").body["messages"]
    partition_id = next(m["partitionId"] for m in listing if m["transactionId"] == "order-7")
    page.open(f"messages?queue={quote(orders)}")
    page.click("[data-test=filter-apply]")
    page.click("[data-test=message-row][data-transaction='order-7']")
    page.wait_text("[data-test=message-detail-title]", lambda t: t.endswith("order-7"), "order-7's detail")
    page.click("[data-test=message-delete]")
    page.confirm()
    page.banner("ok")
    page.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-test=message-row][data-transaction='order-7']"),
               "order-7 gone from the listing")
    assert api(broker, "GET", f"/api/v1/messages/{partition_id}/order-7").status == 404
