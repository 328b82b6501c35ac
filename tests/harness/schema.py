"""Read-only SQL the tests use to check what the broker stored (schema `queen`, docs/procedures.md).

Kept in one module so a schema change is fixed in one place. Every function takes a PgTarget.
"""

# Per-partition delivery order of messages (procedures.md: sequence numbers allocated under the
# partition row lock, so this is also commit order).
MESSAGE_ORDER_KEY = "m.seq"


def queue_exists(pg, queue):
    return bool(pg.scalar("select 1 as present from queen.queues where name = :'queue'", queue=queue))


def message_count(pg, queue):
    """Stored messages of a queue (all partitions); 0 when the queue does not exist."""
    return pg.scalar("""
        select count(*) as n
        from queen.messages m
        join queen.partitions p on p.id = m.partition_id
        join queen.queues q on q.id = p.queue_id
        where q.name = :'queue'""", queue=queue)


def stored_messages(pg, queues):
    """Every stored message of the given queues with its per-partition position (0-based)."""
    if not queues:
        return []
    names = "{" + ",".join('"' + q.replace('"', '\\"') + '"' for q in sorted(set(queues))) + "}"
    return pg.query(f"""
        select q.name as queue, p.name as partition, m.transaction_id, m.id::text as message_id,
               (row_number() over (partition by m.partition_id order by {MESSAGE_ORDER_KEY}) - 1)::int
                   as position
        from queen.messages m
        join queen.partitions p on p.id = m.partition_id
        join queen.queues q on q.id = p.queue_id
        where q.name = any(:'names'::text[])""", names=names)


def dlq_entries(pg, queue):
    """DLQ rows of a queue, oldest failure first: transaction_id, consumer_group, error, retry_count, message_id."""
    return pg.query("""
        select d.transaction_id, d.consumer_group, d.error_message as error, d.retry_count,
               d.message_id::text as message_id
        from queen.dlq d
        join queen.partitions p on p.id = d.partition_id
        join queen.queues q on q.id = p.queue_id
        where q.name = :'queue'
        order by d.failed_at""", queue=queue)


def system_flag(pg, key):
    """Persisted maintenance flag (`maintenance` or `pop_maintenance`), None when never set."""
    return pg.scalar("select queen.get_system_flag(:'key') as enabled", key=key)
