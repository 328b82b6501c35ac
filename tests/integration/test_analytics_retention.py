"""GET /api/v1/analytics/retention, a catalogue view (src/db/catalogue.h, CONTRIBUTING.md): the
route reads from, to and queue into the view's parameters and answers the view's body."""
import datetime

from harness import unique_name


def iso(delta_minutes=0):
    at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=delta_minutes)
    return at.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def test_retention_shows_the_queue_asked_for_with_its_policy(client):
    kept, other = unique_name("ret-kept"), unique_name("ret-other")
    assert client.configure(kept, options={"retentionEnabled": True, "retentionSeconds": 3600}).status == 200
    assert client.configure(other).status == 200
    resp = client.get("/api/v1/analytics/retention", params={"queue": kept, "from": iso(-60), "to": iso(1)})
    assert resp.status == 200, resp
    assert set(resp.body) == {"timeRange", "jobs", "queues"}
    [queue] = resp.body["queues"]
    assert queue["queue"] == kept
    assert queue["retentionEnabled"] is True and queue["retentionSeconds"] == 3600


def test_retention_refuses_an_unreadable_time(client):
    resp = client.get("/api/v1/analytics/retention", params={"from": "yesterday"})
    assert resp.status == 400, resp
    assert "from" in resp.body["error"]
