"""Lease expiry and renewal (docs/procedures.md pop_messages, extend_lease)."""
import datetime
import time
import uuid

from harness import Deadline, poll_until, unique_name
from harness.assertions import assert_no_content, parse_iso

# Past the original lease's end before the test looks for a redelivery (clocks of test and database).
EXPIRY_MARGIN_S = 0.5


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc)


def test_an_expired_lease_redelivers_the_batch(client):
    queue = unique_name("expiry")
    assert client.configure(queue, {"leaseTime": 1, "retryDelay": 0}).status == 200
    pushed = client.push_one(queue, {"x": 1})
    first = client.pop_messages(queue)
    assert len(first) == 1
    assert_no_content(client.pop(queue))  # still leased

    again = poll_until(lambda: client.pop_messages(queue), timeout=10, interval=0.1,
                       what="redelivery after a 1 s lease")
    assert [m["transactionId"] for m in again] == [first[0]["transactionId"]]
    assert again[0]["id"] == pushed.body[0]["message_id"]
    assert again[0]["leaseId"] != first[0]["leaseId"]
    assert again[0]["retryCount"] == 0, "lease expiry is not a failure"

    stale = client.ack(first[0]["transactionId"], first[0]["partitionId"], lease_id=first[0]["leaseId"])
    assert stale.body[0]["success"] is False
    assert stale.body[0]["error"] == "Invalid or expired lease"
    fresh = client.ack(again[0]["transactionId"], again[0]["partitionId"], lease_id=again[0]["leaseId"])
    assert fresh.body[0]["success"] is True, fresh.body
    assert_no_content(client.pop(queue))


def test_extending_a_lease_keeps_the_batch_leased(client):
    lease_seconds = 2
    queue = unique_name("extend")
    assert client.configure(queue, {"leaseTime": lease_seconds, "retryDelay": 0}).status == 200
    client.push_one(queue, {"x": 1})
    original_lease = Deadline(lease_seconds + EXPIRY_MARGIN_S)
    msgs = client.pop_messages(queue)
    lease_id = msgs[0]["leaseId"]

    resp = client.extend_lease(lease_id, seconds=30)
    assert resp.status == 200, resp
    assert isinstance(resp.body, dict), f"extend must answer an object, got {resp.body!r}"
    assert resp.body["leaseId"] == lease_id
    assert resp.body["success"] is True
    assert resp.body["error"] is None
    new_expiry = parse_iso(resp.body["newExpiresAt"])
    assert parse_iso(resp.body["expiresAt"]) == new_expiry
    assert new_expiry > now_utc() + datetime.timedelta(seconds=25)

    # Outlive the original lease, then see that nothing is redelivered: the check is that nothing
    # happens, so there is no condition to wait on, only the lease to outlive.
    time.sleep(original_lease.remaining())
    assert_no_content(client.pop(queue))
    acked = client.ack(msgs[0]["transactionId"], msgs[0]["partitionId"], lease_id=lease_id)
    assert acked.body[0]["success"] is True, acked.body


def test_extend_without_a_body_defaults_to_sixty_seconds(client):
    queue = unique_name("extend-default")
    assert client.configure(queue, {"leaseTime": 5}).status == 200
    client.push_one(queue, {"x": 1})
    lease_id = client.pop_messages(queue)[0]["leaseId"]
    resp = client.extend_lease(lease_id)  # Python clients send no body at all
    assert resp.status == 200, resp
    assert resp.body["success"] is True
    remaining = (parse_iso(resp.body["newExpiresAt"]) - now_utc()).total_seconds()
    assert 50 < remaining <= 61, remaining


def test_extending_an_unknown_lease_fails_in_the_body(client):
    lease_id = str(uuid.uuid4())
    resp = client.extend_lease(lease_id, seconds=30)
    assert resp.status == 200, resp
    assert resp.body["leaseId"] == lease_id
    assert resp.body["success"] is False
    assert resp.body["newExpiresAt"] is None
    assert isinstance(resp.body["error"], str) and resp.body["error"]
