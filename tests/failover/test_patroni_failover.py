"""Patroni's own failover (`patronictl failover`) under a running broker pair (docs/operations-ha.md).

Two Patroni members in synchronous mode, one etcd, brokers whose PG_HOST lists both members. Patroni demotes the
leader (it comes back as a replica, which target_session_attrs=read-write skips) and promotes the other member;
brokers are not restarted, and the ledger shows nothing lost, nothing stored twice, per-partition order kept.
"""
from harness import Ledger, unique_name

from failover_support import (LEASE_TIME_S, Load, assert_same_processes, configure, finish_and_check, start_brokers,
                              wait_brokers_reach_the_database, wait_until)

QUEUED_BEFORE_FAILOVER = 200
QUEUED_AFTER_FAILOVER = 200
PHASE_TIMEOUT_S = 45
FAILOVER_TIMEOUT_S = 60
DRAIN_TIMEOUT_S = 60


def test_patronictl_failover_under_load(patroni_cluster, broker_factory):
    cluster = patroni_cluster
    old_leader = cluster.leader()
    candidate = cluster.sync_standby()
    database = cluster.target(old_leader)
    database.with_db("postgres").execute('create database "queen";')
    database.deploy()
    brokers = start_brokers(broker_factory, database, cluster.broker_env())
    pids = [b.pid for b in brokers]
    queue = unique_name("fo-patroni")
    configure(brokers[0], queue, {"leaseTime": LEASE_TIME_S})
    load = Load(brokers, Ledger(), queue).start()
    try:
        load.wait_for("queued", QUEUED_BEFORE_FAILOVER, PHASE_TIMEOUT_S, "pushes stored before the failover")
        cluster.failover(candidate)
        wait_until(lambda: cluster.leader() == candidate, timeout=FAILOVER_TIMEOUT_S,
                   what=f"patroni reporting {candidate} as the leader")
        wait_brokers_reach_the_database(brokers, FAILOVER_TIMEOUT_S, "reaching the new leader")
        queued_after = load.count("queued")
        load.wait_for("queued", queued_after + QUEUED_AFTER_FAILOVER, DRAIN_TIMEOUT_S,
                      "pushes stored in the new leader")
    except BaseException:
        load.stop()
        raise
    finish_and_check(load, brokers, cluster.target(candidate))
    assert_same_processes(brokers, pids)
