"""Helpers of the failover suite: a primary with a synchronous streaming standby on loopback ports,
brokers that list both servers in PG_HOST, and producers/consumers that record what they were told in
a ledger (docs/operations-ha.md, "When PostgreSQL fails over").

The standby is a real physical replica (pg_basebackup -R from the primary); the primary names it in
synchronous_standby_names with synchronous_commit=on, so a commit is flushed on both before the
primary acknowledges it. Failover is PostgreSQL's own: `pg_ctl stop -m immediate` on the primary,
`pg_ctl promote` on the standby. Brokers are never restarted.
"""
import os
import shutil
import subprocess
import threading
import time

from harness import BackgroundWorker, Deadline, PgCluster, PgError, ack_item, attempts, poll_until
from harness import env as harness_env
from harness.pg import PGBIN, _as_postgres

# The standby's application name (its cluster_name), which the primary's synchronous_standby_names names.
STANDBY_NAME = "queen_standby"
BASEBACKUP_TIMEOUT_S = 120
PROMOTE_TIMEOUT_S = 60
SYNC_STANDBY_TIMEOUT_S = 30

# Broker settings that make the failover visible quickly on a test box (defaults in parentheses):
# the spool pings the database every 50 ms while it is down (100), the maintenance flags are re-read
# every 200 ms (2000), an idle sweeper looks for due timers every 200 ms (1000).
FAILOVER_BROKER_ENV = {
    "FILE_BUFFER_FLUSH_MS": 50,
    "SYSTEM_FLAG_REFRESH_MS": 200,
    "QUEEN_SWEEPER_MAX_SLEEP_MS": 200,
    "DB_POOL_SIZE": 10,
}

# A push answer during the gap must come from the spool, quickly.
PUSH_TIMEOUT_S = 30.0
# Pause after a request error so a client does not spin (the broker itself never goes away here).
ERROR_BACKOFF_S = 0.05
POP_WAIT_MS = 500


class StandbyCluster(PgCluster):
    """A streaming standby of `primary`, made by pg_basebackup -R (primary_conninfo and standby.signal)."""

    def __init__(self, primary, **kwargs):
        settings = dict(kwargs.pop("settings", {}) or {})
        # Its walreceiver reports cluster_name as application_name: the name the primary waits for.
        settings.setdefault("cluster_name", STANDBY_NAME)
        super().__init__(dbname=primary.dbname, durable=primary.durable, deploy=False, settings=settings,
                         use_template=False, **kwargs)
        self.primary = primary

    def create(self):
        self.base_dir = harness_env.new_tmp_dir(f"pg-standby-{self.port}")
        harness_env.make_enterable(self.base_dir)
        self.data_dir = os.path.join(self.base_dir, "data")
        log_dir = os.path.join(self.base_dir, "log")
        os.makedirs(log_dir)
        os.makedirs(self.data_dir)
        self.log_path = os.path.join(log_dir, "server.log")
        if os.geteuid() == 0:
            shutil.chown(log_dir, "postgres", "postgres")
            shutil.chown(self.data_dir, "postgres", "postgres")
        os.chmod(self.data_dir, 0o700)
        proc = subprocess.run(
            _as_postgres([f"{PGBIN}/pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port), "-U", "postgres",
                          "-D", self.data_dir, "-R", "-X", "stream", "-c", "fast", "--no-sync"]),
            capture_output=True, text=True, timeout=BASEBACKUP_TIMEOUT_S)
        if proc.returncode != 0:
            raise PgError(f"pg_basebackup from port {self.primary.port} failed: {proc.stdout}{proc.stderr}")
        self.start()
        return self

    def promote(self):
        """pg_ctl promote, waiting until the server takes writes."""
        proc = self._pg_ctl("-w", "-t", str(PROMOTE_TIMEOUT_S), "promote", timeout=PROMOTE_TIMEOUT_S + 10)
        if proc.returncode != 0:
            raise PgError(f"pg_ctl promote failed: {proc.stdout}{proc.stderr}\n{self.log_tail()}")
        poll_until(lambda: self.target.scalar("select not pg_is_in_recovery() as primary") is True,
                   timeout=PROMOTE_TIMEOUT_S, what=f"the standby on port {self.port} out of recovery")


def start_replicated_pair(make_cluster, clusters):
    """A primary whose commits wait for a synchronous standby, and that standby, streaming.

    make_cluster: the pg_cluster fixture's factory (the primary is created through it so it is destroyed
    at teardown); clusters: a list the standby is appended to, for the same teardown.
    """
    primary = make_cluster(settings={"synchronous_standby_names": STANDBY_NAME, "synchronous_commit": "on",
                                     "wal_level": "replica", "max_wal_senders": 4})
    standby = StandbyCluster(primary)
    clusters.append(standby)
    standby.create()
    poll_until(lambda: primary.target.scalar(
        "select sync_state from pg_stat_replication where application_name = :'name'",
        name=STANDBY_NAME) == "sync", timeout=SYNC_STANDBY_TIMEOUT_S, what="the standby streaming synchronously")
    return primary, standby


def multi_host_env(*clusters):
    """PG_HOST and PG_PORT listing every server in order: libpq keeps the first that takes writes."""
    return {"PG_HOST": ",".join("127.0.0.1" for _ in clusters),
            "PG_PORT": ",".join(str(c.port) for c in clusters)}


def start_brokers(broker_factory, target, hosts_env, count=2, env=None):
    """`count` brokers on database `target`, with PG_HOST/PG_PORT from `hosts_env` (every server, in order)."""
    variables = dict(FAILOVER_BROKER_ENV)
    variables.update(hosts_env)
    variables.update(env or {})
    return [broker_factory(pg=target, name=f"fo-{chr(ord('a') + i)}", env=variables) for i in range(count)]


def database_reachable(broker):
    """The broker's own live ping (GET /api/v1/status/buffers) succeeds."""
    with broker.client(timeout=10) as c:
        resp = c.get("/api/v1/status/buffers")
    return resp.status == 200 and resp.body["database"].get("reachable") is True


def wait_brokers_reach_the_database(brokers, timeout, what):
    for broker in brokers:
        poll_until(lambda: database_reachable(broker), timeout=timeout, what=f"{broker.name}: {what}")


def maintenance_state(broker):
    with broker.client(timeout=10) as c:
        resp = c.maintenance()
    assert resp.status == 200, resp
    return resp.body


def wait_spools_drained(brokers, timeout):
    """Every broker reports nothing spooled (`bufferedMessages` 0) and a healthy drain."""
    for broker in brokers:
        poll_until(lambda: (lambda s: s["bufferedMessages"] == 0 and s["bufferStats"]["dbHealthy"] is True)(
            maintenance_state(broker)), timeout=timeout, what=f"{broker.name}: the spool drained")


# --- load -------------------------------------------------------------------------------------
class Load:
    """Sequential producers (one ledger stream each) and pop+ack consumers, spread over the brokers.

    Producers never stop on an error: a request error is recorded as `unknown` (and counted in
    `errors`). Consumers count pops answered 503 or failing at the socket as `consume_errors`: they are
    what a client sees while there is no primary, and they retry.
    """

    def __init__(self, brokers, ledger, queue, producers=2, consumers=2, partitions=4, batch=5, limit_s=150):
        self.brokers, self.ledger, self.queue = brokers, ledger, queue
        self.partitions, self.batch, self.limit_s = partitions, batch, limit_s
        self._lock = threading.Lock()
        self.errors = []
        self.consume_errors = 0
        self.ack_failures = 0
        self.pops_answered = {}
        self._answers = []  # (answered at, status of the first item, sent at) per push answered 201, monotonic
        self.producers = [BackgroundWorker(self._produce(w), name=f"producer-{w}") for w in range(producers)]
        self.consumers = [BackgroundWorker(self._consume(c), name=f"consumer-{c}") for c in range(consumers)]

    def _broker(self, index):
        return self.brokers[index % len(self.brokers)]

    def _produce(self, w):
        def run(stop):
            stream, n = f"w{w}", 0
            deadline = Deadline(self.limit_s)
            with self._broker(w).client(retry_stale=False) as client:
                while not stop.is_set() and not deadline.expired():
                    items = [{"queue": self.queue, "partition": f"p{(n + k) % self.partitions}",
                              "payload": {"w": w, "n": n + k}, "transactionId": f"{stream}-{n + k}"}
                             for k in range(self.batch)]
                    n += self.batch
                    sent_at = time.monotonic()
                    try:
                        response = client.push(items, timeout=PUSH_TIMEOUT_S)
                    except OSError as exc:
                        self.ledger.record_push(stream, items, error=exc)
                        self._note_error(f"push {items[0]['transactionId']}: {exc!r}")
                        stop.wait(ERROR_BACKOFF_S)
                        continue
                    self.ledger.record_push(stream, items, response=response)
                    if response.status == 201:
                        with self._lock:
                            self._answers.append((time.monotonic(), response.body[0]["status"], sent_at))
                    if response.status != 201:
                        self._note_error(f"push {items[0]['transactionId']}: {response!r}")
        return run

    def _consume(self, index):
        def run(stop):
            deadline = Deadline(self.limit_s)
            with self._broker(index + 1).client(retry_stale=False) as client:
                while not stop.is_set() and not deadline.expired():
                    try:
                        self._consume_once(client)
                    except OSError:
                        self._count_consume_error()
                        stop.wait(ERROR_BACKOFF_S)
        return run

    def _consume_once(self, client):
        resp = client.pop(self.queue, batch=50, wait=True, timeout_ms=POP_WAIT_MS)
        with self._lock:
            self.pops_answered[resp.status] = self.pops_answered.get(resp.status, 0) + 1
        if resp.status == 204:
            return
        if resp.status != 200:
            self._count_consume_error()
            return
        messages = resp.body["messages"]
        self.ledger.record_delivery(messages, queue=self.queue)
        acked = client.ack_batch([ack_item(m) for m in messages])
        if acked.status != 200 or any(not r.get("success") for r in acked.body):
            # Not an error of the test: an ack that did not land leaves a lease that expires, and the
            # message is delivered again (at least once).
            with self._lock:
                self.ack_failures += 1

    def _note_error(self, text):
        with self._lock:
            self.errors.append(text)

    def _count_consume_error(self):
        with self._lock:
            self.consume_errors += 1

    def start(self):
        for worker in self.producers + self.consumers:
            worker.start()
        return self

    @staticmethod
    def _stop(workers):
        failures = []
        for worker in workers:
            try:
                worker.stop(timeout=PUSH_TIMEOUT_S + 10)
            except Exception as exc:  # every worker is stopped before anything is raised
                failures.append(exc)
        if failures:
            raise failures[0]

    def stop_producers(self):
        self._stop(self.producers)

    def stop_consumers(self):
        self._stop(self.consumers)

    def stop(self):
        try:
            self.stop_producers()
        finally:
            self.stop_consumers()

    def count(self, status):
        return self.ledger.status_counts().get(status, 0)

    def wait_for(self, status, at_least, timeout, what):
        for _ in attempts(timeout, interval=0.05, max_interval=0.05):
            counts = self.ledger.status_counts()
            bad = {s: counts[s] for s in ("failed", "unknown", "rejected") if counts.get(s)}
            assert not bad, f"{what}: items answered {bad} (all counts {counts}); errors {self.errors[:3]}"
            if counts.get(status, 0) >= at_least:
                return counts
        raise TimeoutError(f"{what}: not {at_least} items {status} within {timeout:.0f}s "
                           f"(counts {self.ledger.status_counts()})")

    def first_answer(self, status, after):
        """Monotonic time of the first push answered with `status` (first item) after `after`, or None."""
        with self._lock:
            return next((t for t, s, _ in self._answers if t > after and s == status), None)

    def sent_between(self, status, start, end):
        """Pushes sent between the monotonic instants `start` and `end` and answered with `status`."""
        with self._lock:
            return sum(1 for _, s, sent in self._answers if s == status and start < sent < end)

    def undelivered(self):
        delivered = self.ledger.deliveries()
        return [key for key in self.ledger.accepted_keys() if key not in delivered]

    def redeliveries(self):
        return sum(count - 1 for count in self.ledger.deliveries().values() if count > 1)


# --- finishing a failover test ---------------------------------------------------------------
# The spool replays what the gap buffered, after its pause following failed attempts (5 s).
DRAIN_TIMEOUT_S = 60
# A message whose ack was lost with the old primary is delivered again after this lease.
LEASE_TIME_S = 5
DELIVERY_TIMEOUT_S = LEASE_TIME_S + 40
LEDGER_TIMEOUT_S = 60


def configure(broker, queue, options):
    with broker.client() as c:
        resp = c.configure(queue, options)
    assert resp.status == 200, resp


def finish_and_check(load, brokers, new_primary):
    """Stop producing, let consumers take everything, then check the ledger against the new primary."""
    load.stop_producers()
    try:
        wait_spools_drained(brokers, timeout=DRAIN_TIMEOUT_S)
        wait_until(lambda: not load.undelivered(), timeout=DELIVERY_TIMEOUT_S,
                   what="every accepted message delivered")
    finally:
        load.stop_consumers()
    counts = load.ledger.status_counts()
    assert set(counts) <= {"queued", "buffered", "duplicate"}, (counts, load.errors[:5])
    assert load.errors == [], load.errors[:5]
    load.ledger.assert_consistent(new_primary, timeout=LEDGER_TIMEOUT_S, order_statuses=("queued",),
                                  check_delivery=True)
    spooled_order = load.ledger.check(new_primary, order_statuses=("buffered",))
    assert not spooled_order.out_of_order, spooled_order.summary()
    return counts


def assert_same_processes(brokers, pids):
    assert [b.pid for b in brokers] == pids, "a broker was restarted"
    assert all(b.alive for b in brokers), [b.log_tail() for b in brokers if not b.alive]


def wait_until(condition, timeout, what):
    return poll_until(condition, timeout=timeout, interval=0.05, max_interval=0.2, what=what)
