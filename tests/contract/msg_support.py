"""Helpers of the message-administration contract tests (traces, messages, DLQ admin)."""
import re

from harness import poll_until

MILLIS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def pushed(client, queue, payload, transaction_id, partition=None):
    """Push one message; return its push answer (messageId, partitionId ...)."""
    resp = client.push_one(queue, payload, partition=partition, transaction_id=transaction_id)
    assert resp.status == 201, resp
    return resp.body[0]


def popped(client, queue, **kw):
    return poll_until(lambda: client.pop_messages(queue, **kw), timeout=10, interval=0.05, what=f"pop {queue}")[0]


def dead_letter(client, queue, transaction_id, payload=None, partition=None, group=None, error="boom"):
    """Push one message to a queue with retryLimit 0, pop it and fail it: it lands in the DLQ. Returns the message."""
    assert client.configure(queue, {"retryLimit": 0, "retryDelay": 0, "leaseTime": 30}).status == 200
    pushed(client, queue, payload if payload is not None else {"n": 1}, transaction_id, partition)
    msg = popped(client, queue, partition=partition, consumer_group=group)
    resp = client.ack(msg["transactionId"], msg["partitionId"], lease_id=msg["leaseId"], status="failed",
                      error=error, consumer_group=group)
    assert resp.status == 200 and resp.body[0]["dlq"] is True, resp
    return msg
