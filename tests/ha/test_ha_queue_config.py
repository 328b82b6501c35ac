"""Queue-config invalidation across brokers (docs/operations-ha.md, the config invalidation frame): what a broker
keeps of a queue's configuration (the list of encryptionEnabled queues, docs/encryption.md) follows a reconfiguration
or deletion on a peer at once while the mesh is up, and within the periodic floor (QUEEN_ENCRYPTION_REFRESH_MS) when
no frame can reach it. The observable behaviour: turning encryption off on A makes B store its next push in
plaintext (a broker that still believes the queue encrypted would seal it; the database accepts either)."""
from ha_support import wait_mesh_linked
from harness import free_port, is_listening, poll_until, unique_name

KEY = "6b" * 32
# Without a frame nothing but the floor re-reads the list: an hour here, so only the mesh can tell B in time.
NO_FLOOR_ENV = {"QUEEN_ENCRYPTION_KEY": KEY, "QUEEN_ENCRYPTION_REFRESH_MS": "3600000", "LOG_LEVEL": "debug"}
FLOOR_MS = 3000
FLOOR_ENV = {"QUEEN_ENCRYPTION_KEY": KEY, "QUEEN_ENCRYPTION_REFRESH_MS": str(FLOOR_MS), "LOG_LEVEL": "debug"}
# A frame crosses in milliseconds; this bounds the wait without being a floor in disguise.
AT_ONCE_S = 5.0


def stored_encrypted(pg, queue, transaction_id):
    rows = pg.query("""
        select m.is_encrypted from queen.stored_messages m
          join queen.partitions p on p.id = m.partition_id join queen.queues q on q.id = p.queue_id
         where q.name = :'queue' and m.transaction_id = :'txid'""", queue=queue, txid=transaction_id)
    return rows[0]["is_encrypted"] if rows else None


class Prober:
    """Pushes one message at a time through `broker` and tells how it was stored."""

    def __init__(self, broker, pg, queue):
        self.broker, self.pg, self.queue, self.count = broker, pg, queue, 0

    def push_is_encrypted(self):
        self.count += 1
        txid = f"probe-{self.count}"
        with self.broker.client() as c:
            resp = c.push([{"queue": self.queue, "payload": {"n": self.count}, "transactionId": txid}])
        assert resp.status == 201 and resp.body[0]["status"] == "queued", resp
        return stored_encrypted(self.pg, self.queue, txid)


def configure_encryption(broker, queue, enabled):
    with broker.client() as c:
        resp = c.configure(queue, {"encryptionEnabled": enabled})
    assert resp.status == 200 and resp.body["options"]["encryptionEnabled"] is enabled, resp


def test_reconfiguring_on_one_broker_changes_the_others_behaviour_at_once(mesh_factory, ha_db):
    a, b = mesh_factory(2, env=NO_FLOOR_ENV)
    wait_mesh_linked([a, b])
    queue = unique_name("ha-cfg")
    probe = Prober(b, ha_db, queue)
    configure_encryption(a, queue, True)
    poll_until(probe.push_is_encrypted, timeout=AT_ONCE_S, interval=0.05, what="B sealing after A turned it on")
    configure_encryption(a, queue, False)
    poll_until(lambda: probe.push_is_encrypted() is False, timeout=AT_ONCE_S, interval=0.05,
               what="B storing plaintext after A turned encryption off")


def test_deleting_on_one_broker_makes_the_other_forget_the_queue(mesh_factory, ha_db):
    a, b = mesh_factory(2, env=NO_FLOOR_ENV)
    wait_mesh_linked([a, b])
    queue = unique_name("ha-cfg-del")
    probe = Prober(b, ha_db, queue)
    configure_encryption(a, queue, True)
    poll_until(probe.push_is_encrypted, timeout=AT_ONCE_S, interval=0.05, what="B sealing after A turned it on")
    with a.client() as c:
        resp = c.delete(f"/api/v1/resources/queues/{queue}")
    assert resp.status == 200 and resp.body["existed"] is True, resp
    # A push through B re-creates the queue with default options: plaintext.
    poll_until(lambda: probe.push_is_encrypted() is False, timeout=AT_ONCE_S, interval=0.05,
               what="B storing plaintext in the re-created queue")


def test_with_the_mesh_cut_the_periodic_floor_still_brings_the_change(mesh_factory, ha_db):
    # A's only peer is a port nobody listens on: none of A's frames reach B.
    closed_port = free_port()
    a, b = mesh_factory(2, env=FLOOR_ENV, per_broker_env=[{"QUEEN_MESH_PEERS": f"127.0.0.1:{closed_port}"}, None])
    assert not is_listening(closed_port)
    queue = unique_name("ha-cfg-cut")
    probe = Prober(b, ha_db, queue)
    configure_encryption(a, queue, True)
    # B learns "encrypt" from the database itself (it refuses B's plaintext once) or from its floor.
    poll_until(probe.push_is_encrypted, timeout=FLOOR_MS / 1000 + 10, interval=0.1, what="B sealing")
    configure_encryption(a, queue, False)
    # Only the floor's next re-read, at most FLOOR_MS away, can tell B now.
    poll_until(lambda: probe.push_is_encrypted() is False, timeout=FLOOR_MS / 1000 + 5, interval=0.2,
               what="B storing plaintext after its periodic re-read")
