"""The upgrade under load (docs/upgrading.md): producers and consumer groups run through the previous release's
broker while `sqitch deploy` moves its messages into the current schema, keep running while the current broker
takes over and the previous one stops, and every group then has every message exactly once, in push order per
partition.

One sequential producer per partition (order is promised per partition), retrying a request that failed with
the same transaction ids; three groups (queue mode and two consumer groups), each one thread that pops and acks
through whichever broker is current. Each group's cursor stands at a different position when the deploy starts.
"""
import threading
import time

import pytest

from harness import Broker, TempDatabase, poll_until
from harness import env as harness_env
from harness.api import ack_item
from harness.waiting import Deadline

QUEUE = "upgrade-load"
PARTITIONS = ("p0", "p1", "p2", "p3")
GROUPS = (None, "g1", "g2")  # None: queue mode
PREFILL = 120                # per partition, pushed before the load starts
PREFILL_POPPED = {None: 0, "g1": 30, "g2": 90}   # what each group consumed of the prefill before the load
PUSH_BATCH = 5
POP_BATCH = 10
LEASE_S = 30                 # a pop answered after its client gave up is redelivered after this
REQUEST_TIMEOUT_S = 60.0
BACKOFF_S = 0.2
RETRY_FOR_S = 120            # a request still failing after this long fails the test
LOAD_BEFORE_DEPLOY = 100     # items each producer pushes through the previous broker before the deploy starts
LOAD_AFTER_SWITCH = 100      # items each producer pushes through the current broker before the producers stop
DRAIN_TIMEOUT_S = 120
# Producers and consumers wait for the deploy's locks as long as it runs; with the few thousand messages of this
# database it takes seconds.
DEPLOY_PAUSE_BOUND_S = 30


def txid(partition, n):
    return f"{partition}-{n}"


def partition_of(transaction_id):
    return transaction_id.rsplit("-", 1)[0]


class Traffic:
    """The clients' side: which broker is current, what was pushed and what each group got."""

    def __init__(self, broker):
        self.broker = broker
        self.stop = threading.Event()            # the consumers' (and a failed thread's) stop
        self.stop_producing = threading.Event()
        self.lock = threading.Lock()
        self.pushed = {p: [] for p in PARTITIONS}        # accepted transaction ids in push order
        self.statuses = {}
        self.delivered = {g: [] for g in GROUPS}         # transaction ids in delivery order
        self.errors = []                                 # request failures seen (retried)
        self.threads = []

    def client(self):
        return self.broker.client(timeout=REQUEST_TIMEOUT_S, retry_stale=False)

    def request(self, send):
        """send(client) until it answers below 500; connection errors and 5xx are retried with the same body, for
        RETRY_FOR_S at most."""
        deadline = Deadline(RETRY_FOR_S)
        while not deadline.expired():
            try:
                with self.client() as client:
                    response = send(client)
                if response.status < 500:
                    return response
                failure = f"{response.status} {response.body}"
            except OSError as exc:
                failure = repr(exc)
            with self.lock:
                self.errors.append(failure)
            time.sleep(BACKOFF_S)
        raise AssertionError(f"a request failed for {RETRY_FOR_S} s; last failures: {self.errors[-3:]}")

    def push_items(self, partition, first, count):
        items = [{"queue": QUEUE, "partition": partition, "transactionId": txid(partition, n), "payload": {"n": n}}
                 for n in range(first, first + count)]
        response = self.request(lambda c: c.push(items))
        assert response.status == 201, response
        for item, result in zip(items, response.body):
            assert result.get("status") in ("queued", "duplicate", "buffered"), (item, result)
        with self.lock:
            for result in response.body:
                self.statuses[result["status"]] = self.statuses.get(result["status"], 0) + 1
            self.pushed[partition].extend(item["transactionId"] for item in items)

    def produce(self, partition, first):
        while not (self.stop.is_set() or self.stop_producing.is_set()):
            self.push_items(partition, first, PUSH_BATCH)
            first += PUSH_BATCH

    def pushed_count(self, partition):
        with self.lock:
            return len(self.pushed[partition])

    def consume_once(self, group):
        response = self.request(lambda c: c.pop(QUEUE, batch=POP_BATCH, wait=True, timeout_ms=500,
                                                consumer_group=group))
        if response.status == 204:
            return 0
        assert response.status == 200, response
        messages = response.body["messages"]
        acks = [ack_item(m) for m in messages]
        popped_by = self.broker.name
        answer = self.request(lambda c: c.ack_batch(acks, consumer_group=group))
        assert answer.status == 200 and all(r.get("success") for r in answer.body), \
            f"group {group}: ack through {self.broker.name} of a pop through {popped_by}: " \
            f"{[(r.get('transactionId'), r.get('error')) for r in answer.body] if answer.status == 200 else answer}; " \
            f"failed requests so far: {self.errors[-3:]}"
        with self.lock:
            self.delivered[group].extend(m["transactionId"] for m in messages)
        return len(messages)

    def consume(self, group):
        while not self.stop.is_set():
            self.consume_once(group)

    def start(self, target, *args):
        thread = threading.Thread(target=self.guarded, args=(target, *args), daemon=True)
        thread.start()
        self.threads.append(thread)

    def guarded(self, target, *args):
        try:
            target(*args)
        except BaseException as exc:  # reported by join(): a failed thread must fail the test
            with self.lock:
                self.errors.append(f"FATAL {exc!r}")
            self.stop.set()
            raise

    def join(self):
        for thread in self.threads:
            thread.join(REQUEST_TIMEOUT_S * 2)
            assert not thread.is_alive(), f"{thread} still running"
        self.threads = []
        fatal = [e for e in self.errors if e.startswith("FATAL")]
        assert not fatal, fatal

    def delivered_count(self, group):
        with self.lock:
            return len(self.delivered[group])


@pytest.fixture
def database(release, pg):
    database = TempDatabase(pg, deploy_to=release.target).create()
    yield database.target
    database.drop()


def test_deploy_under_load_delivers_every_message_once_in_order_to_every_group(release, database):
    previous = Broker(pg=database, name="load-prev", binary=release.broker_binary).start()
    current = None
    try:
        traffic = Traffic(previous)
        with previous.client() as client:
            assert client.configure(QUEUE, dict(leaseTime=LEASE_S)).status == 200
        for partition in PARTITIONS:
            for first in range(0, PREFILL, PUSH_BATCH):
                traffic.push_items(partition, first, PUSH_BATCH)
        for group, count in PREFILL_POPPED.items():
            while traffic.delivered_count(group) < count:
                traffic.consume_once(group)

        # Load through the previous broker; the deploy starts while it runs.
        for partition in PARTITIONS:
            traffic.start(traffic.produce, partition, PREFILL)
        producers = list(traffic.threads)
        for group in GROUPS:
            traffic.start(traffic.consume, group)
        poll_until(lambda: min(traffic.pushed_count(p) for p in PARTITIONS) >= PREFILL + LOAD_BEFORE_DEPLOY
                   or traffic.stop.is_set(), timeout=60, what="the load through the previous broker")
        started = time.monotonic()
        database.sqitch("deploy")
        deploy_s = time.monotonic() - started
        assert deploy_s < DEPLOY_PAUSE_BOUND_S, f"sqitch deploy under load took {deploy_s:.1f} s"

        # The current broker takes the traffic; the previous one stops.
        current = Broker(pg=database, name="load-current", binary=harness_env.broker_binary()).start()
        traffic.broker = current
        previous.stop()
        switched = {p: traffic.pushed_count(p) for p in PARTITIONS}
        poll_until(lambda: all(traffic.pushed_count(p) >= switched[p] + LOAD_AFTER_SWITCH for p in PARTITIONS)
                   or traffic.stop.is_set(), timeout=60, what="the load through the current broker")
        traffic.stop_producing.set()
        for thread in producers:
            thread.join(REQUEST_TIMEOUT_S * 2)
            assert not thread.is_alive(), "a producer did not finish"

        # Every group drains what was pushed.
        total = sum(traffic.pushed_count(p) for p in PARTITIONS)
        for group in GROUPS:
            poll_until(lambda g=group: traffic.delivered_count(g) >= total or traffic.stop.is_set(),
                       timeout=DRAIN_TIMEOUT_S,
                       what=f"group {group or 'queue mode'} delivered {total} "
                            f"(delivered: { {g: traffic.delivered_count(g) for g in GROUPS} }, "
                            f"push statuses {traffic.statuses}, request errors {traffic.errors[:5]})")
        traffic.stop.set()
        traffic.join()

        for group in GROUPS:
            delivered = traffic.delivered[group]
            assert len(delivered) == len(set(delivered)), \
                f"group {group}: {len(delivered) - len(set(delivered))} deliveries repeated"
            for partition in PARTITIONS:
                got = [t for t in delivered if partition_of(t) == partition]
                assert got == traffic.pushed[partition], \
                    f"group {group}, {partition}: first difference at " \
                    f"{next(i for i, (a, b) in enumerate(zip(got + [None], traffic.pushed[partition] + [None])) if a != b)}"
    finally:
        for broker in (previous, current):
            if broker is not None:
                broker.stop()
