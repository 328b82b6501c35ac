"""PostgreSQL fails over under a running broker pair (docs/operations-ha.md, "When PostgreSQL fails over").

A primary with a synchronous streaming standby; two brokers whose PG_HOST lists both servers
(target_session_attrs=read-write finds whichever takes writes). Nothing restarts a broker:

* unplanned: the primary is killed (`pg_ctl stop -m immediate`), then the standby promoted. Everything
  answered `queued` before the kill is on the new primary; pushes in the gap are answered `buffered`
  and drain there; consumers resume; the ledger shows nothing lost, nothing stored twice, per-partition
  order kept;
* planned: push maintenance on, standby promoted, old primary stopped, maintenance off: no push reaches
  a database during the switch, the spools drain into the new primary, nothing is lost;
* fenced: the primary turns read-only while the broker's pool holds connections to it; the first write on one
  fails with 25006, the broker drops its pooled connections, the push is spooled, and after the promotion it is
  stored in the new primary;
* timers and leases held across the failover: a timer claimed by a broker that vanished with the old
  primary fires once after its claim lease, an unclaimed one fires once, an unacked lease is
  redelivered, an acked message is not.
"""
import time

from harness import Ledger, ack_item, poll_until, schema, unique_name

from failover_support import (DRAIN_TIMEOUT_S, LEASE_TIME_S, LEDGER_TIMEOUT_S, Load,
                              assert_same_processes, configure, finish_and_check, maintenance_state, multi_host_env,
                              start_brokers, wait_brokers_reach_the_database, wait_spools_drained, wait_until)

# Progress each phase must make before the next step (items over all producers).
QUEUED_BEFORE_FAILOVER = 200
BUFFERED_IN_THE_GAP = 50
QUEUED_AFTER_FAILOVER = 200
PHASE_TIMEOUT_S = 45
# Brokers notice the new primary on their next connection attempt (the spool pings every 50 ms here).
RECONNECT_TIMEOUT_S = 30


def test_unplanned_failover_loses_nothing_that_was_acknowledged(replicated_pair, broker_factory):
    primary, standby = replicated_pair()
    brokers = start_brokers(broker_factory, primary.target, multi_host_env(primary, standby))
    pids = [b.pid for b in brokers]
    queue = unique_name("fo-kill")
    configure(brokers[0], queue, {"leaseTime": LEASE_TIME_S})
    load = Load(brokers, Ledger(), queue).start()
    try:
        load.wait_for("queued", QUEUED_BEFORE_FAILOVER, PHASE_TIMEOUT_S, "pushes stored before the kill")
        killed_at = time.monotonic()
        primary.stop(mode="immediate")
        load.wait_for("buffered", BUFFERED_IN_THE_GAP, PHASE_TIMEOUT_S, "pushes spooled while there is no primary")
        queued_in_gap = load.count("queued")

        promote_started = time.monotonic()
        standby.promote()
        promoted_s = time.monotonic() - promote_started
        wait_brokers_reach_the_database(brokers, RECONNECT_TIMEOUT_S, "reaching the promoted standby")
        delivered_at_promotion = len(load.ledger.deliveries())
        load.wait_for("queued", queued_in_gap + QUEUED_AFTER_FAILOVER, DRAIN_TIMEOUT_S,
                      "pushes stored directly in the new primary again (after the spool drained)")
        wait_until(lambda: len(load.ledger.deliveries()) > delivered_at_promotion, timeout=PHASE_TIMEOUT_S,
                   what="consumers receiving messages from the new primary")
    except BaseException:
        load.stop()
        raise
    counts = finish_and_check(load, brokers, standby.target)
    assert_same_processes(brokers, pids)
    first_buffered = load.first_answer("buffered", killed_at)
    queued_again = load.first_answer("queued", promote_started)
    print(f"\nunplanned failover: first push answered buffered {first_buffered - killed_at:.2f}s after the kill "
          f"started; pg_ctl promote took {promoted_s:.2f}s; first push answered queued again "
          f"{queued_again - promote_started:.2f}s after the promotion started; counts {counts}; pops "
          f"{load.pops_answered}; consumer errors {load.consume_errors}; redeliveries {load.redeliveries()}")


def test_planned_switchover_under_push_maintenance(replicated_pair, broker_factory):
    primary, standby = replicated_pair()
    brokers = start_brokers(broker_factory, primary.target, multi_host_env(primary, standby))
    pids = [b.pid for b in brokers]
    queue = unique_name("fo-switch")
    configure(brokers[0], queue, {"leaseTime": LEASE_TIME_S})
    load = Load(brokers, Ledger(), queue).start()
    try:
        load.wait_for("queued", QUEUED_BEFORE_FAILOVER, PHASE_TIMEOUT_S, "pushes stored before the switchover")
        with brokers[0].client() as c:
            assert c.set_maintenance(True).status == 200
        for broker in brokers:
            wait_until(lambda: maintenance_state(broker)["maintenanceMode"] is True, timeout=10,
                       what=f"{broker.name} in push maintenance")
        # Pushes sent from now on are spooled; one sent before may still be committing on the old primary.
        maintenance_seen = time.monotonic()
        buffered_before = load.count("buffered")
        load.wait_for("buffered", buffered_before + BUFFERED_IN_THE_GAP, PHASE_TIMEOUT_S,
                      "pushes spooled under maintenance")

        standby.promote()
        primary.stop(mode="fast")
        wait_brokers_reach_the_database(brokers, RECONNECT_TIMEOUT_S, "reaching the promoted standby")
        # The flag is a row of the database, replicated before the switch: the new primary carries it.
        assert schema.system_flag(standby.target, "maintenance") is True
        for broker in brokers:
            assert maintenance_state(broker)["maintenanceMode"] is True, broker.name
        load.wait_for("buffered", load.count("buffered") + BUFFERED_IN_THE_GAP, PHASE_TIMEOUT_S,
                      "pushes still spooled on the new primary until maintenance is off")
        maintenance_off = time.monotonic()
        assert load.sent_between("queued", maintenance_seen, maintenance_off) == 0, \
            "a push sent under maintenance reached a database during the switchover"

        queued_before_off = load.count("queued")
        with brokers[1].client() as c:
            assert c.set_maintenance(False).status == 200
        wait_spools_drained(brokers, timeout=DRAIN_TIMEOUT_S)
        load.wait_for("queued", queued_before_off + QUEUED_AFTER_FAILOVER, DRAIN_TIMEOUT_S,
                      "pushes stored directly in the new primary after maintenance")
    except BaseException:
        load.stop()
        raise
    counts = finish_and_check(load, brokers, standby.target)
    assert_same_processes(brokers, pids)
    print(f"\nplanned switchover: counts {counts}; pops {load.pops_answered}; consumer errors "
          f"{load.consume_errors}; redeliveries {load.redeliveries()}")


# The vanished broker's claim: long enough to outlast the failover, short enough for the test.
CLAIM_LEASE_MS = 8000
TIMER_DELAY_S = 3


def test_timers_and_leases_across_a_failover(replicated_pair, broker_factory):
    primary, standby = replicated_pair()
    brokers = start_brokers(broker_factory, primary.target, multi_host_env(primary, standby))
    timer_queue, lease_queue = unique_name("fo-timer"), unique_name("fo-lease")
    configure(brokers[0], lease_queue, {"leaseTime": LEASE_TIME_S, "retryDelay": 0})

    with brokers[0].client() as c:
        # A message popped and never acked (its lease lives in the database), and one popped and acked.
        pushed = c.push([{"queue": lease_queue, "partition": "held", "transactionId": "held", "payload": 1},
                         {"queue": lease_queue, "partition": "done", "transactionId": "done", "payload": 2}])
        assert [r["status"] for r in pushed.body] == ["queued", "queued"], pushed
        popped = {m["transactionId"]: m for m in
                  c.pop_messages(lease_queue, partition="held") + c.pop_messages(lease_queue, partition="done")}
        assert set(popped) == {"held", "done"}, popped
        leased_at = time.monotonic()
        acked = c.ack_batch([ack_item(popped["done"])])
        assert acked.status == 200 and all(r["success"] for r in acked.body), acked

        # Two timers: one a broker claimed and never fired (it vanishes with the primary), one unclaimed.
        deliver_at_ms = int((time.time() + TIMER_DELAY_S) * 1000)
        scheduled = c.push([{"queue": timer_queue, "partition": "t", "transactionId": txid, "payload": txid,
                             "deliverAt": deliver_at_ms + offset_ms}
                            for txid, offset_ms in (("claimed", 0), ("unclaimed", 1000))])
        assert scheduled.status == 201, scheduled
    timers = {t["transaction_id"]: t for t in schema.timers(primary.target, timer_queue)}
    assert set(timers) == {"claimed", "unclaimed"}, timers
    assert schema.claim_timers_due_by(primary.target, "vanished-broker", CLAIM_LEASE_MS,
                                      timers["claimed"]["deliver_at"]) == 1

    primary.stop(mode="immediate")
    standby.promote()
    wait_brokers_reach_the_database(brokers, RECONNECT_TIMEOUT_S, "reaching the promoted standby")

    # The claim came over with the synchronous standby; the timer fires once, and not before it expires.
    claim = {t["transaction_id"]: t for t in schema.timers(standby.target, timer_queue)}["claimed"]
    assert claim["claimed_by"] == "vanished-broker", claim

    def claimed_timer_fired():
        early, copies = schema.stored_before(standby.target, timer_queue, "claimed", claim["claim_expires_at"])
        assert not (early and copies), "the claimed timer fired before its claim lease expired"
        return copies > 0
    wait_until(claimed_timer_fired, timeout=CLAIM_LEASE_MS / 1000 + TIMER_DELAY_S + 20,
               what="the vanished broker's timer fired after its claim lease")
    wait_until(lambda: schema.timers(standby.target, timer_queue) == [], timeout=20, what="every timer fired")
    stored = sorted(r["transaction_id"] for r in schema.stored_messages(standby.target, [timer_queue]))
    assert stored == ["claimed", "unclaimed"], stored

    # The unacked lease is redelivered once it expires; the acked message never comes back.
    with brokers[1].client() as c:
        def redelivered():
            return c.pop_messages(lease_queue, wait=True, timeout_ms=500)
        again = wait_until(redelivered, timeout=LEASE_TIME_S + 20, what="the unacked message redelivered")
        assert time.monotonic() - leased_at >= LEASE_TIME_S - 1, "redelivered before its lease expired"
        assert [m["transactionId"] for m in again] == ["held"], again
        assert again[0]["leaseId"] != popped["held"]["leaseId"]
        acked = c.ack_batch([ack_item(again[0])])
        assert acked.status == 200 and all(r["success"] for r in acked.body), acked
        assert c.pop_messages(lease_queue) == [], "an acked message came back after the failover"


def test_a_fenced_primary_is_left_for_the_promoted_standby(replicated_pair, broker_factory):
    primary, standby = replicated_pair()
    broker = start_brokers(broker_factory, primary.target, multi_host_env(primary, standby), count=1)[0]
    queue, ledger = unique_name("fo-fence"), Ledger()
    with broker.client() as c:
        def push(n):
            items = [{"queue": queue, "partition": "p", "transactionId": f"f-{n}", "payload": n}]
            ledger.record_push("f", items, response=c.push(items))
            return ledger.entries()[-1].status
        assert push(0) == "queued"
        # Fence the primary the way an operator (or a pooler routing to a standby) makes writes fail on
        # connections that stay open: every pooled connection now answers 25006 to a write.
        log_offset = broker.log_size()
        primary.target.execute("alter system set default_transaction_read_only = on; select pg_reload_conf();")
        poll_until(lambda: primary.target.scalar(
            "select current_setting('default_transaction_read_only') as fenced") == "on", timeout=10,
            what="the primary fenced")
        assert push(1) == "buffered", "no server takes writes: the push is spooled"
        broker.wait_for_log("the server cannot take writes", since=log_offset)

        standby.promote()
        wait_brokers_reach_the_database([broker], RECONNECT_TIMEOUT_S, "leaving the fenced primary")
        poll_until(lambda: push(len(ledger.entries())) == "queued", timeout=DRAIN_TIMEOUT_S,
                   what="pushes stored in the promoted standby")
    ledger.assert_consistent(standby.target, timeout=LEDGER_TIMEOUT_S, order_statuses=("queued", "buffered"))
    assert schema.message_count(primary.target, queue) == 1, "nothing reached the fenced primary after the fence"
