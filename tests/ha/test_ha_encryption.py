"""Payload encryption across brokers (docs/encryption.md): configure on one broker tells the others over the mesh,
which re-read their list of encrypted queues at once, so their next push is sealed before it leaves them (not
refused by the database first)."""
import json

from ha_support import wait_mesh_linked
from harness import unique_name

KEY = "5a" * 32
# No periodic re-read during the test: only the mesh hint can tell the second broker.
ENV = {"QUEEN_ENCRYPTION_KEY": KEY, "QUEEN_ENCRYPTION_REFRESH_MS": "3600000", "LOG_LEVEL": "debug"}
RE_READ = "encryption: encrypted queue list re-read"


def test_configure_on_one_broker_reaches_the_others_list_over_the_mesh(mesh_factory, ha_db):
    first, second = mesh_factory(2, env=ENV)
    wait_mesh_linked([first, second])
    second.wait_for_log(RE_READ)  # the read at boot, before the queue exists
    queue = unique_name("ha-enc")
    offset = second.log_size()
    with first.client() as c:
        resp = c.configure(queue, {"encryptionEnabled": True})
        assert resp.status == 200 and resp.body["options"]["encryptionEnabled"] is True, resp
    second.wait_for_log(RE_READ, since=offset)

    with second.client() as c:
        pushed = c.push([{"queue": queue, "payload": {"secret": "mesh-told-me"}}])
        assert pushed.status == 201 and pushed.body[0]["status"] == "queued", pushed
        assert c.drain(queue, 1, timeout=15)[0]["data"] == {"secret": "mesh-told-me"}
    assert "learned from the database" not in second.log_text(since=offset)
    [row] = ha_db.query("""
        select m.payload::text as payload, m.is_encrypted from queen.stored_messages m
          join queen.partitions p on p.id = m.partition_id join queen.queues q on q.id = p.queue_id
         where q.name = :'queue'""", queue=queue)
    assert row["is_encrypted"] is True and "mesh-told-me" not in row["payload"], row
    assert set(json.loads(row["payload"])) == {"v", "kid", "iv", "ct", "tag"}
