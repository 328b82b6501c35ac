"""QueenClient: HttpClient plus one method per broker route used by the tests.

Methods return the raw Response (status, headers, body) so tests assert on the wire shape
themselves; helpers that assume success (`pop_messages`, `drain`) say so in their names.
"""
import urllib.parse
import uuid

from .httpclient import HttpClient
from .waiting import Deadline

QUEUE_MODE = "__QUEUE_MODE__"


def unique_name(prefix="it"):
    """A queue (or group) name no other test uses, so tests can share one database."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def quote(segment):
    return urllib.parse.quote(segment, safe="")


class QueenClient(HttpClient):
    # --- health and metrics -------------------------------------------------------------
    def health(self):
        return self.get("/health")

    def metrics(self):
        return self.get("/metrics")

    def prometheus(self):
        return self.get("/metrics/prometheus")

    def gauges(self):
        """Every unlabelled sample of GET /metrics/prometheus as {name: value}."""
        resp = self.prometheus()
        assert resp.status == 200, resp
        values = {}
        for line in resp.body.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            name, _, value = line.rpartition(" ")
            if "{" not in name:
                values[name.strip()] = float(value)
        return values

    def labelled(self, name):
        """Every labelled sample of one family of GET /metrics/prometheus as {labels text: value},
        e.g. {'lane="push",reason="timeout"': 3.0}."""
        resp = self.prometheus()
        assert resp.status == 200, resp
        prefix = name + "{"
        values = {}
        for line in resp.body.splitlines():
            if line.startswith(prefix):
                labels, _, value = line[len(prefix):].rpartition("} ")
                values[labels] = float(value)
        return values

    # --- queues ---------------------------------------------------------------------------
    def configure(self, queue, options=None, namespace=None, task=None):
        body = {"queue": queue}
        if namespace is not None:
            body["namespace"] = namespace
        if task is not None:
            body["task"] = task
        if options is not None:
            body["options"] = options
        return self.post("/api/v1/configure", body)

    # --- push -----------------------------------------------------------------------------
    def push(self, items, **kw):
        return self.post("/api/v1/push", {"items": items}, **kw)

    def push_one(self, queue, payload=None, partition=None, transaction_id=None, **extra):
        item = {"queue": queue, "payload": {} if payload is None else payload}
        if partition is not None:
            item["partition"] = partition
        if transaction_id is not None:
            item["transactionId"] = transaction_id
        item.update(extra)
        return self.push([item])

    # --- pop ------------------------------------------------------------------------------
    def pop(self, queue, partition=None, batch=None, wait=None, timeout_ms=None, consumer_group=None,
            auto_ack=None, subscription_mode=None, subscription_from=None, partitions=None,
            http_timeout=None):
        """GET /api/v1/pop/queue/:queue[/partition/:partition]. The socket timeout follows the
        long-poll timeout (timeout_ms + 5 s), as the official clients do."""
        path = f"/api/v1/pop/queue/{quote(queue)}"
        if partition is not None:
            path += f"/partition/{quote(partition)}"
        params = {"batch": batch, "wait": wait, "timeout": timeout_ms, "consumerGroup": consumer_group,
                  "autoAck": auto_ack, "subscriptionMode": subscription_mode,
                  "subscriptionFrom": subscription_from, "partitions": partitions}
        if http_timeout is None and wait:
            http_timeout = (timeout_ms if timeout_ms is not None else 30000) / 1000.0 + 5.0
        return self.get(path, params=params, timeout=http_timeout)

    def pop_messages(self, queue, **kw):
        """Pop and return the message list ([] on 204); any other status is an AssertionError."""
        resp = self.pop(queue, **kw)
        if resp.status == 204:
            return []
        assert resp.status == 200, f"pop {queue}: {resp!r}"
        return resp.body["messages"]

    def drain(self, queue, expected, timeout=20.0, batch=100, consumer_group=None, ack=True, **kw):
        """Pop (and ack as completed) until `expected` messages arrived or `timeout` passed.

        Returns the messages in delivery order; the caller asserts on the count.
        """
        deadline = Deadline(timeout)
        got = []
        while len(got) < expected and not deadline.expired():
            wait_ms = int(min(1000, max(100, deadline.remaining() * 1000)))
            msgs = self.pop_messages(queue, batch=batch, wait=True, timeout_ms=wait_ms,
                                     consumer_group=consumer_group, **kw)
            got.extend(msgs)
            if ack and msgs:
                resp = self.ack_batch([ack_item(m) for m in msgs], consumer_group=consumer_group)
                assert resp.status == 200, f"ack batch: {resp!r}"
                failed = [r for r in resp.body if not r.get("success")]
                assert not failed, f"acks failed: {failed}"
        return got

    # --- ack and lease --------------------------------------------------------------------
    def ack(self, transaction_id, partition_id, lease_id=None, status=None, error=None,
            consumer_group=None):
        body = {"transactionId": transaction_id, "partitionId": partition_id}
        if lease_id is not None:
            body["leaseId"] = lease_id
        if status is not None:
            body["status"] = status
        if error is not None:
            body["error"] = error
        if consumer_group is not None:
            body["consumerGroup"] = consumer_group
        return self.post("/api/v1/ack", body)

    def ack_batch(self, acknowledgments, consumer_group=None):
        body = {"acknowledgments": acknowledgments}
        if consumer_group is not None:
            body["consumerGroup"] = consumer_group
        return self.post("/api/v1/ack/batch", body)

    def extend_lease(self, lease_id, seconds=None):
        body = None if seconds is None else {"seconds": seconds}
        return self.post(f"/api/v1/lease/{quote(lease_id)}/extend", body)

    # --- dlq and maintenance --------------------------------------------------------------
    def dlq(self, queue=None, consumer_group=None, limit=None, offset=None):
        return self.get("/api/v1/dlq", params={"queue": queue, "consumerGroup": consumer_group,
                                               "limit": limit, "offset": offset})

    def maintenance(self):
        return self.get("/api/v1/system/maintenance")

    def set_maintenance(self, enabled):
        return self.post("/api/v1/system/maintenance", {"enabled": enabled})

    def pop_maintenance(self):
        return self.get("/api/v1/system/maintenance/pop")

    def set_pop_maintenance(self, enabled):
        return self.post("/api/v1/system/maintenance/pop", {"enabled": enabled})


def ack_item(message, status="completed", error=None):
    """The acknowledgment a client builds from a popped message (transactionId + partitionId + leaseId)."""
    item = {"transactionId": message["transactionId"], "partitionId": message["partitionId"],
            "status": status}
    if message.get("leaseId"):
        item["leaseId"] = message["leaseId"]
    if error is not None:
        item["error"] = error
    return item
