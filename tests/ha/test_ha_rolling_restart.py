"""A rolling restart (docs/operations-ha.md, "Rolling restarts": replicas cover it):
under a push/pop load, brokers are restarted one at a time; clients that retry on the other broker
see no error, every accepted message is stored once and delivered, and acks land on whichever broker
is up, not necessarily the one that handed the message out."""
import threading

from ha_support import FailoverClient, FailoverExhausted
from harness import BackgroundWorker, Deadline, Ledger, ack_item, poll_until, unique_name

PRODUCERS = 3
CONSUMERS = 2
ITEMS_PER_PUSH = 5
PARTITIONS = 4
# A pop whose answer was lost in a restart is redelivered after this lease, well inside the final wait.
LEASE_TIME_S = 10
LOAD_LIMIT_S = 120
PROGRESS_BETWEEN_RESTARTS = 500


class LoadClients:
    """Producers and consumers behind a 'load balancer' of two brokers, recording what they were told."""

    def __init__(self, brokers, queue):
        self.brokers, self.queue = brokers, queue
        self.ledger = Ledger()
        self.errors = []            # what a client would have surfaced to its caller
        self.failover_clients = []  # one per worker thread
        self._lock = threading.Lock()
        self.producers = [BackgroundWorker(self._producer(w), name=f"producer-{w}") for w in range(PRODUCERS)]
        self.consumers = [BackgroundWorker(self._consumer(c), name=f"consumer-{c}") for c in range(CONSUMERS)]

    def failovers(self):
        with self._lock:
            return sum(fc.failovers for fc in self.failover_clients)

    def queued(self):
        return self.ledger.status_counts().get("queued", 0)

    def _client(self, preferred):
        client = FailoverClient.for_brokers(self.brokers, preferred=preferred)
        with self._lock:
            self.failover_clients.append(client)
        return client

    def _error(self, text):
        with self._lock:
            self.errors.append(text)

    def _producer(self, w):
        def run(stop):
            client, stream, n = self._client(preferred=w % 2), f"w{w}", 0
            deadline = Deadline(LOAD_LIMIT_S)
            try:
                while not stop.is_set() and not deadline.expired():
                    items = [{"queue": self.queue, "partition": f"p{(n + k) % PARTITIONS}",
                              "payload": {"w": w, "n": n + k}, "transactionId": f"{stream}-{n + k}"}
                             for k in range(ITEMS_PER_PUSH)]
                    n += ITEMS_PER_PUSH
                    try:
                        resp, _ = client.call(lambda c: c.push(items))
                    except FailoverExhausted as exc:
                        self.ledger.record_push(stream, items, error=exc)
                        self._error(f"push {items[0]['transactionId']}: {exc}")
                        continue
                    self.ledger.record_push(stream, items, response=resp)
                    refused = [r for r in (resp.body if isinstance(resp.body, list) else [])
                               if r.get("status") not in ("queued", "duplicate", "buffered")]
                    if resp.status != 201 or refused:
                        self._error(f"push {items[0]['transactionId']}: {resp!r}")
            finally:
                client.close()
        return run

    def _consumer(self, index):
        def run(stop):
            client = self._client(preferred=index % 2)
            deadline = Deadline(LOAD_LIMIT_S)
            try:
                while not stop.is_set() and not deadline.expired():
                    try:
                        self._consume_once(client)
                    except FailoverExhausted as exc:
                        self._error(f"consume: {exc}")
            finally:
                client.close()
        return run

    def _consume_once(self, client):
        resp, popped_on = client.call(lambda c: c.pop(self.queue, batch=50, wait=True, timeout_ms=500))
        if resp.status == 204:
            return
        if resp.status != 200:
            self._error(f"pop: {resp!r}")
            return
        messages = resp.body["messages"]
        self.ledger.record_delivery(messages, queue=self.queue)
        # Ack on the other broker first: a lease lives in PostgreSQL, not in the broker that granted it.
        acks = [ack_item(m) for m in messages]
        acked, _ = client.call(lambda c: c.ack_batch(acks), order=client.other_order(popped_on))
        failed = [r for r in (acked.body if isinstance(acked.body, list) else []) if not r.get("success")]
        if acked.status != 200 or failed:
            self._error(f"ack: {acked!r}")

    def start(self):
        for worker in self.producers + self.consumers:
            worker.start()

    @staticmethod
    def stop_all(workers):
        failures = []
        for worker in workers:
            try:
                worker.stop()
            except Exception as exc:  # every worker is stopped before anything is reported
                failures.append(exc)
        if failures:
            raise failures[0]

    def undelivered(self):
        delivered = self.ledger.deliveries()
        return [key for key in self.ledger.accepted_keys() if key not in delivered]


def test_a_rolling_restart_under_load_loses_nothing_and_retrying_clients_see_no_error(mesh_factory, ha_db):
    brokers = mesh_factory(2)
    queue = unique_name("ha-rolling")
    with brokers[0].client() as c:
        assert c.configure(queue, {"leaseTime": LEASE_TIME_S}).status == 200
    load = LoadClients(brokers, queue)
    load.start()
    try:
        poll_until(lambda: load.queued() >= PROGRESS_BETWEEN_RESTARTS, timeout=30, what="load running")
        for broker in brokers:  # one at a time: the other one serves meanwhile
            failovers_before, queued_before = load.failovers(), load.queued()
            assert broker.stop() == 0, broker.log_tail()
            assert not broker.stop_timed_out, f"{broker.name} did not drain within the stop timeout"
            poll_until(lambda: load.failovers() > failovers_before, timeout=10,
                       what=f"clients moving to the other broker while {broker.name} is down")
            poll_until(lambda: load.queued() >= queued_before + PROGRESS_BETWEEN_RESTARTS, timeout=30,
                       what=f"the other broker alone carrying the load while {broker.name} is down")
            broker.start()
            queued_after_start = load.queued()
            poll_until(lambda: load.queued() >= queued_after_start + PROGRESS_BETWEEN_RESTARTS, timeout=30,
                       what=f"load progressing after {broker.name} came back")
    finally:
        LoadClients.stop_all(load.producers)
    try:
        poll_until(lambda: not load.undelivered(), timeout=LEASE_TIME_S + 20,
                   what="every accepted message delivered")
    finally:
        LoadClients.stop_all(load.consumers)

    assert load.errors == [], f"{len(load.errors)} client-visible errors: {load.errors[:5]}"
    assert set(load.ledger.status_counts()) <= {"queued", "duplicate", "buffered"}, load.ledger.status_counts()
    load.ledger.assert_consistent(ha_db, timeout=30, check_delivery=True)
