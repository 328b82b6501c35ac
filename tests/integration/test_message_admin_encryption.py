"""Message administration reads decrypt (docs/encryption.md): the message detail's payload and the by-name
traces' message_payload are plaintext for an encryptionEnabled queue, and a requeued dead letter stays
encrypted at rest and pops as plaintext."""
import pytest

from harness import Broker, poll_until, unique_name
from harness.api import quote

KEY = "5d" * 16 + "c0ffee11" * 4  # 64 hex characters


@pytest.fixture(scope="module")
def client(pg):
    instance = Broker(pg=pg, name="it-msg-encryption", env={"QUEEN_ENCRYPTION_KEY": KEY}).start()
    with instance.client() as c:
        yield c
    instance.stop()


def test_detail_traces_and_requeue_of_an_encrypted_queue(client, pg):
    queue = unique_name("enc-admin")
    assert client.configure(queue, {"encryptionEnabled": True, "retryLimit": 0, "retryDelay": 0}).status == 200
    assert client.push_one(queue, {"card": "4111"}, transaction_id="e-1").body[0]["status"] == "queued"
    msg = poll_until(lambda: client.pop_messages(queue), what="pop")[0]
    pid = msg["partitionId"]

    detail = client.get(f"/api/v1/messages/{quote(pid)}/e-1").body
    assert detail["isEncrypted"] is True and detail["payload"] == {"card": "4111"}

    name = unique_name("enc-trace")
    assert client.post("/api/v1/traces", {"transactionId": "e-1", "partitionId": pid, "data": {},
                                          "traceNames": [name]}).status == 201
    trace = client.get(f"/api/v1/traces/by-name/{quote(name)}").body["traces"][0]
    assert trace["message_payload"] == {"card": "4111"} and "message_encrypted" not in trace

    assert client.ack("e-1", pid, lease_id=msg["leaseId"], status="failed").body[0]["dlq"] is True
    assert client.post("/api/v1/dlq/requeue", {"queue": queue}).body == {"requeued": 1}
    again = poll_until(lambda: client.pop_messages(queue), what="requeued pop")[0]
    assert again["data"] == {"card": "4111"}
    row = pg.query("select payload::text as payload, is_encrypted from queen.stored_messages where transaction_id = :'t'",
                   t=again["transactionId"])[0]
    assert row["is_encrypted"] is True and "4111" not in row["payload"], "the requeued copy is encrypted at rest"
