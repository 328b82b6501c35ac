"""Timers across brokers (docs/operations-ha.md, "The sweeper and timers"): every replica fires timers,
sharing the work with FOR UPDATE ... SKIP LOCKED; a timer fires exactly once and never before its
deliverAt, and the claims of a broker that dies fire on another one once their lease expires."""
import collections
import datetime
import random
import signal
import time

from ha_support import (HeldPartitionLock, lock_waiters, pending_timer_count, stored_with_creation,
                        timer_claims)
from harness import BackgroundWorker, Deadline, ack_item, poll_until, unique_name

# A short claim lease keeps the killed-broker cases fast (default 30 s).
LEASE_MS = 3000
TIMER_ENV = {"QUEEN_SWEEPER_LEASE_MS": LEASE_MS}
TIMER_COUNT = 1000
SCHEDULE_BATCH = 100
SCHEDULE_TIMEOUT_S = 10
PARTITIONS = 4
# deliverAt of each timer: this long after it was scheduled, uniformly.
DELAY_RANGE_MS = (1500, 9000)
# After the last timer is due: the lease of orphaned claims, a sweeper sleep ceiling, slack for 2 busy cores.
FIRE_SLACK_S = LEASE_MS / 1000 + 1 + 12


def now_ms():
    return int(time.time() * 1000)


def iso_utc(epoch_ms):
    moment = datetime.datetime.fromtimestamp(epoch_ms / 1000, tz=datetime.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def timer_item(queue, index, deliver_at_ms, partition=None):
    """A push item carrying deliverAt: epoch ms for even indexes, an ISO-8601 string for odd ones
    (both forms are accepted)."""
    return {"queue": queue, "partition": partition or f"p{index % PARTITIONS}", "payload": {"i": index},
            "transactionId": f"t{index}",
            "deliverAt": deliver_at_ms if index % 2 == 0 else iso_utc(deliver_at_ms)}


def schedule(client, items):
    # Scheduling writes timer rows only and takes no partition lock, so it answers at once even while
    # a test holds one (a deliverAt item stored as a plain message would wait for it).
    resp = client.push(items, timeout=SCHEDULE_TIMEOUT_S)
    assert resp.status == 201, resp
    assert [r["status"] for r in resp.body] == ["queued"] * len(items), resp.body


class Consumer:
    """Pops and acks a queue on one broker in the background, remembering when each message arrived."""

    def __init__(self, broker, queue, limit_s=120):
        self.broker, self.queue, self.limit_s = broker, queue, limit_s
        self.received = []  # (transactionId, wall clock ms when the pop answered)
        self.worker = BackgroundWorker(self._run, name=f"consume-{queue}")

    def _run(self, stop):
        deadline = Deadline(self.limit_s)
        with self.broker.client() as c:
            while not stop.is_set() and not deadline.expired():
                msgs = c.pop_messages(self.queue, batch=100, wait=True, timeout_ms=500)
                arrived = now_ms()
                self.received.extend((m["transactionId"], arrived) for m in msgs)
                if msgs:
                    acked = c.ack_batch([ack_item(m) for m in msgs])
                    assert acked.status == 200 and all(r.get("success") for r in acked.body), acked

    def start(self):
        self.worker.start()
        return self

    def stop(self):
        self.worker.stop()

    def deliveries(self):
        return collections.Counter(txid for txid, _ in self.received)


def everything_fired_was_received(pg, queue, consumer):
    """No timer row is left (firing deletes it with the insert, so the stored count is final) and
    the consumer has received at least as many messages as are stored."""
    return pending_timer_count(pg, queue) == 0 and len(consumer.received) >= len(stored_with_creation(pg, queue))


def assert_fired_once_and_never_early(pg, queue, deliver_at_ms, extra_stored=()):
    """Each timer is one stored message created at or after its deliverAt; no timer row is left."""
    stored = stored_with_creation(pg, queue)
    counts = collections.Counter(row["transaction_id"] for row in stored)
    assert sorted(counts) == sorted(list(deliver_at_ms) + list(extra_stored))
    assert [txid for txid, n in counts.items() if n > 1] == []
    early = [(row["transaction_id"], row["created_us"], deliver_at_ms[row["transaction_id"]] * 1000)
             for row in stored
             if row["transaction_id"] in deliver_at_ms
             and row["created_us"] < deliver_at_ms[row["transaction_id"]] * 1000]
    assert early == [], f"fired before deliverAt (txid, created us, due us): {early[:10]}"
    assert pending_timer_count(pg, queue) == 0
    return stored


def test_a_thousand_timers_on_two_brokers_fire_once_never_early_even_when_one_is_killed(mesh_factory, ha_db):
    a, b = mesh_factory(2, env=TIMER_ENV)
    queue = unique_name("ha-timers")
    rng = random.Random(0x51EE9)
    deliver_at_ms = {}
    consumer = Consumer(b, queue).start()  # B survives; timers were scheduled on both
    try:
        with a.client() as ca, b.client() as cb:
            for first in range(0, TIMER_COUNT, SCHEDULE_BATCH):
                items = []
                for index in range(first, first + SCHEDULE_BATCH):
                    due = now_ms() + rng.randint(*DELAY_RANGE_MS)
                    deliver_at_ms[f"t{index}"] = due
                    items.append(timer_item(queue, index, due))
                schedule(ca if (first // SCHEDULE_BATCH) % 2 == 0 else cb, items)
        # Mid-run, with timers still pending on both sides: A dies without any cleanup.
        poll_until(lambda: len(consumer.received) >= TIMER_COUNT // 3, timeout=30,
                   what="a third of the timers delivered")
        a.kill()
        last_due_s = (max(deliver_at_ms.values()) - now_ms()) / 1000
        poll_until(lambda: len(consumer.deliveries()) >= TIMER_COUNT, timeout=max(0, last_due_s) + FIRE_SLACK_S,
                   what=f"all {TIMER_COUNT} timers delivered")
        # A timer firing twice would show up once nothing can fire any more and the consumer got all
        # that was stored (A's orphaned claims fire on B only after their lease).
        poll_until(lambda: everything_fired_was_received(ha_db, queue, consumer),
                   timeout=LEASE_MS / 1000 + FIRE_SLACK_S, what="no timer left and every stored message received")
    finally:
        consumer.stop()

    deliveries = consumer.deliveries()
    assert sorted(deliveries) == sorted(deliver_at_ms)
    assert {txid: n for txid, n in deliveries.items() if n > 1} == {}
    popped_early = [txid for txid, arrived in consumer.received if arrived < deliver_at_ms[txid]]
    assert popped_early == []
    assert_fired_once_and_never_early(ha_db, queue, deliver_at_ms)


def test_timers_claimed_by_a_killed_broker_fire_on_the_other_after_their_claim_lease(mesh_factory, ha_db):
    # Lock waits of a fire must outlast the test's hold on the partition.
    a, b = mesh_factory(2, env=dict(TIMER_ENV, DB_LOCK_TIMEOUT=60000))
    queue, partition, count = unique_name("ha-orphans"), "p", 20
    with a.client() as ca:
        seeded = ca.push_one(queue, {"seed": True}, partition=partition, transaction_id="seed")
        assert seeded.status == 201, seeded  # creates the partition row the lock below holds
    due = now_ms() + 1000
    deliver_at_ms = {f"t{i}": due for i in range(count)}

    # The partition lock blocks A's fire after its claim committed; B is frozen so that A is the
    # one claiming. Killing A then leaves committed claims and no fire.
    with HeldPartitionLock(ha_db, queue, partition):
        b.signal(signal.SIGSTOP)
        try:
            with a.client() as ca:
                schedule(ca, [timer_item(queue, i, due, partition=partition) for i in range(count)])

            def claims_of_a_blocked_in_their_fire():
                claims = {row["transaction_id"]: row["claim_expires_us"] for row in timer_claims(ha_db, queue)
                          if row["claimed_by"] == a.name}
                return claims if claims and lock_waiters(ha_db) >= 1 else None

            orphaned = poll_until(claims_of_a_blocked_in_their_fire, timeout=15,
                                  what="A holding claimed timers, its fire blocked on the partition lock")
            a.kill()
            poll_until(lambda: lock_waiters(ha_db) == 0, timeout=10,
                       what="PostgreSQL dropping the killed broker's blocked fire")
        finally:
            b.signal(signal.SIGCONT)

    longest_claim_s = (max(orphaned.values()) / 1000 - now_ms()) / 1000
    poll_until(lambda: pending_timer_count(ha_db, queue) == 0, timeout=max(0, longest_claim_s) + FIRE_SLACK_S,
               what="every timer fired by B")
    stored = assert_fired_once_and_never_early(ha_db, queue, deliver_at_ms, extra_stored=["seed"])
    fired_before_lease = [(row["transaction_id"], row["created_us"], orphaned[row["transaction_id"]])
                          for row in stored
                          if row["transaction_id"] in orphaned
                          and row["created_us"] < orphaned[row["transaction_id"]]]
    assert fired_before_lease == [], f"A's claims fired before their lease expired: {fired_before_lease}"

    with b.client() as cb:
        popped = cb.pop_messages(queue, partition=partition, batch=count + 5)
    assert collections.Counter(m["transactionId"] for m in popped) == collections.Counter(["seed", *deliver_at_ms])
