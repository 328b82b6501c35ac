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
        from queen.stored_messages m
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
        from queen.stored_messages m
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


def leases(pg, queue):
    """The cursor rows of a queue that hold a lease (expired or not: no sweep clears them, docs/procedures.md):
    partition, consumer_group, lease_id, cursor_seq and lease_expires_at as epoch seconds."""
    return pg.query("""
        select p.name as partition, c.consumer_group, c.lease_id::text as lease_id, c.cursor_seq,
               extract(epoch from c.lease_expires_at)::float8 as lease_expires_at
        from queen.consumers c
        join queen.partitions p on p.id = c.partition_id
        join queen.queues q on q.id = p.queue_id
        where q.name = :'queue' and c.lease_id is not null
        order by p.name, c.consumer_group""", queue=queue)


def system_flag(pg, key):
    """Persisted maintenance flag (`maintenance` or `pop_maintenance`), None when never set."""
    return pg.scalar("select queen.get_system_flag(:'key') as enabled", key=key)


def timers(pg, queue):
    """Scheduled timers of a queue (deliverAt items not yet fired): transaction_id, deliver_at,
    claimed_by, claim_expires_at (timestamps as text)."""
    return pg.query("""
        select transaction_id, deliver_at::text as deliver_at, claimed_by, claim_expires_at::text as claim_expires_at
        from queen.timers where queue_name = :'queue' order by deliver_at""", queue=queue)


def claim_timers_due_by(pg, server_id, lease_ms, due_by):
    """Claim, as `server_id`, the timers due by `due_by` (text timestamp) for `lease_ms`, through the
    sweeper's own procedure (docs/timers-kv-jobs.md): a claim a broker took and never fired."""
    return pg.scalar("select count(*) as n from queen.claim_due_timers(:'server', 1000, :'lease'::int, :'due'::timestamptz)",
                     server=server_id, lease=lease_ms, due=due_by)


def stored_before(pg, queue, transaction_id, instant):
    """(database clock before `instant`, copies of that message stored), read in one statement: a
    message seen stored while the clock is still before `instant` was stored before it."""
    rows = pg.query("""
        select clock_timestamp() < :'instant'::timestamptz as early,
               (select count(*) from queen.stored_messages m
                  join queen.partitions p on p.id = m.partition_id
                  join queen.queues q on q.id = p.queue_id
                 where q.name = :'queue' and m.transaction_id = :'txid') as copies""",
                    instant=instant, queue=queue, txid=transaction_id)
    return rows[0]["early"], rows[0]["copies"]


# Views that show the rows of a table of an earlier release, by view name: the table they stand for (the messages
# of queen.messages moved into queen.segments, which queen.stored_messages shows as the table's rows).
TABLE_VIEWS = {"stored_messages": "messages"}


def table_rows(pg, skip=()):
    """Every row of every table of the queen schemas (queen, queen_internal, ...), and of the TABLE_VIEWS, as
    {table name: sorted list of rows as dicts}, tables named without their schema so a table that moves
    between them is still the same table. skip: table names left out."""
    tables = pg.query("""
        select n.nspname as schema, c.relname as name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname like 'queen%' and not c.relispartition
          and (c.relkind in ('r', 'p') or (c.relkind = 'v' and c.relname = any(:'views'::text[])))
        order by c.relname""", views="{" + ",".join(TABLE_VIEWS) + "}")
    rows = {}
    for table in tables:
        if table["name"] in skip:
            continue
        qualified = f'"{table["schema"]}"."{table["name"]}"'
        rows[TABLE_VIEWS.get(table["name"], table["name"])] = pg.scalar(
            f"select coalesce(jsonb_agg(to_jsonb(t) order by to_jsonb(t)::text), '[]') as rows from {qualified} t")
    return rows
