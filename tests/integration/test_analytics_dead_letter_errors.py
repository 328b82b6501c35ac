"""GET /api/v1/analytics/dead-letter-errors, a catalogue view (src/db/catalogue.h, CONTRIBUTING.md): why messages
fail, the window's dead letters grouped by queue, consumer group and error (docs/api-extensions.md)."""
from harness import unique_name
from test_dlq_route import exhaust, make_dead_letters


def errors(client, **params):
    resp = client.get("/api/v1/analytics/dead-letter-errors", params=params)
    assert resp.status == 200, resp
    assert set(resp.body) == {"timeRange", "errors", "deadLetters", "total", "pagination"}
    return resp.body


def test_dead_letters_are_grouped_by_queue_group_and_error_most_frequent_first(client):
    queue = unique_name("dle")
    make_dead_letters(client, queue)  # d1 (no error), d2 "smtp 451" (queue mode), d3 "boom" (group g1)
    assert client.push_one(queue, {"n": 4}, partition="p2", transaction_id="d4").status == 201
    exhaust(client, queue, "p2", "d4", error="smtp 451")
    body = errors(client, queue=queue)
    assert body["deadLetters"] == 4 and body["total"] == 3
    first = body["errors"][0]
    assert (first["queue"], first["consumerGroup"], first["error"], first["count"]) == (queue, None, "smtp 451", 2)
    assert first["firstFailedAt"] <= first["lastFailedAt"]
    assert {(e["consumerGroup"], e["count"]) for e in body["errors"][1:]} == {("g1", 1), (None, 1)}
    assert body["pagination"] == {"limit": 50, "offset": 0}
    page = errors(client, queue=queue, limit=1, offset=1)
    assert len(page["errors"]) == 1 and page["total"] == 3 and page["errors"][0] in body["errors"][1:]


def test_a_window_before_the_failures_is_empty_and_a_bad_time_is_refused(client):
    queue = unique_name("dle-win")
    make_dead_letters(client, queue)
    body = errors(client, queue=queue, **{"from": "2020-01-01T00:00:00.000Z", "to": "2020-01-01T01:00:00.000Z"})
    assert body["errors"] == [] and body["deadLetters"] == 0
    resp = client.get("/api/v1/analytics/dead-letter-errors", params={"to": "tomorrow"})
    assert resp.status == 400 and "to" in resp.body["error"], resp
