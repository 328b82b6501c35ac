-- bench/history.sql: fills a freshly deployed, empty Queen database with history for the
-- `make bench` history scenario (scripts/bench.sh makes the database, bench/README.md says why).
--
--   psql -v ON_ERROR_STOP=1 -d queen_bench_history -f bench/history.sql \
--        [-v history_queues=100 -v partitions_per_queue=1000 -v messages_per_partition=100 \
--         -v hot_queue=bench-history-hot -v hot_partitions=5000 -v hot_messages_per_partition=20]
--
-- Default shape: 100 queues of 1,000 partitions with 100 messages each (10,000,000 messages over
-- 100,000 partitions), plus the queue the pop+ack scenario consumes, with 5,000 partitions of 20
-- messages. Everything is consumed by the queue-mode group (cursor at last_seq) except a pending
-- tail of `pending_tail` messages on one partition in `pending_every` of the history queues.
-- The rows are what the procedures would have written: partitions carry last_seq and
-- last_message_at, seq runs 1..last_seq, ids are UUIDv7 of created_at, transaction ids are unique
-- per partition, queue-mode cursors count what they consumed, and queen.queue_stats is computed.
-- Queues get ttl 0 so no expiry sweep moves the old messages while the bench runs.
-- It is written for the schema up to the `encryption` change of release 0.9.0 (encryption@v0.9.0 in
-- migrations/sqitch.plan; helpers were in schema queen then, and message_traces did not exist):
-- scripts/bench.sh deploys up to there, runs it, then deploys the later changes, which fill what
-- they add from the existing rows.
--
-- Fast and durable: one logged transaction; the two indexes of queen.messages are dropped before
-- the bulk insert and rebuilt after it (sorted builds instead of 10 million index insertions),
-- then VACUUM ANALYZE leaves the tables as an old, maintained database would be.
\set ON_ERROR_STOP on
\if :{?history_queues}
\else
  \set history_queues 100
\endif
\if :{?partitions_per_queue}
\else
  \set partitions_per_queue 1000
\endif
\if :{?messages_per_partition}
\else
  \set messages_per_partition 100
\endif
\if :{?hot_queue}
\else
  \set hot_queue bench-history-hot
\endif
\if :{?hot_partitions}
\else
  \set hot_partitions 5000
\endif
\if :{?hot_messages_per_partition}
\else
  \set hot_messages_per_partition 20
\endif
\set pending_every 100
\set pending_tail 10
\timing on
SET maintenance_work_mem = '512MB';

BEGIN;
-- The sorted index builds below assume they own queen.messages: never run this on a database in use.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM queen.messages) OR EXISTS (SELECT 1 FROM queen.queues) THEN
    RAISE EXCEPTION 'bench/history.sql fills an empty database only (this one has queues or messages)'
      USING ERRCODE = '55000';
  END IF;
END;
$$;

-- A week-old history: queue q's partitions were created at `born`, message s of a partition at born + s seconds.
CREATE TEMP TABLE history_shape ON COMMIT DROP AS
SELECT format('history-%s', lpad(q::text, 3, '0')) AS name, :messages_per_partition::bigint AS messages,
       :partitions_per_queue AS partitions, clock_timestamp() - interval '7 days' + q * interval '1 minute' AS born
  FROM generate_series(0, :history_queues - 1) AS q
UNION ALL
SELECT :'hot_queue', :hot_messages_per_partition::bigint, :hot_partitions, clock_timestamp() - interval '1 day';

INSERT INTO queen.queues (id, name, ttl, created_at, updated_at)
SELECT queen.uuid_v7(s.born), s.name, 0, s.born, s.born FROM history_shape s ORDER BY s.name;

INSERT INTO queen.partitions (id, queue_id, name, last_seq, last_message_at, created_at)
SELECT queen.uuid_v7(s.born), q.id, 'p' || n, s.messages, s.born + s.messages * interval '1 second', s.born
  FROM history_shape s
  JOIN queen.queues q ON q.tenant = '' AND q.name = s.name
 CROSS JOIN generate_series(0, s.partitions - 1) AS n;

ALTER TABLE queen.messages DROP CONSTRAINT messages_partition_transaction_key;
ALTER TABLE queen.messages DROP CONSTRAINT messages_pkey;

-- In primary-key order (partitions by id, then seq: no sort of the rows themselves), so the heap is
-- laid out as pushes leave it and the rebuilt primary key reads it sequentially. A message id is a
-- UUIDv7 of its created_at whose 12 bits after the version hold the seq and whose last 8 bytes are
-- its partition id's random ones: unique without a random draw per row. The transaction id is the
-- id's text, as clients mint them (a UUID string when the producer gives none). The payload is one
-- constant of the size the bench pushes.
INSERT INTO queen.messages (partition_id, seq, id, transaction_id, payload, created_at)
SELECT m.partition_id, m.seq, m.id, m.id::text, '{"history": true, "filler": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}'::jsonb, m.created_at
  FROM (SELECT t.partition_id, t.seq, t.created_at,
               encode(substring(int8send((extract(epoch FROM t.created_at) * 1000)::bigint) FROM 3)
                      || int2send((28672 | (t.seq & 4095))::int2) || t.id_tail, 'hex')::uuid AS id
          FROM (SELECT p.id AS partition_id, s AS seq, p.created_at + s * interval '1 second' AS created_at,
                       substring(uuid_send(p.id) FROM 9) AS id_tail
                  FROM (SELECT id, created_at, last_seq FROM queen.partitions ORDER BY id) p
                 CROSS JOIN LATERAL generate_series(1::bigint, p.last_seq) AS s) t) m;

ALTER TABLE queen.messages ADD CONSTRAINT messages_pkey PRIMARY KEY (partition_id, seq);
ALTER TABLE queen.messages ADD CONSTRAINT messages_partition_transaction_key UNIQUE (partition_id, transaction_id);

-- Queue-mode cursors: everything consumed, except a pending tail on one partition in pending_every.
-- Queue mode is registered on every queue (a group's first wildcard pop does that), and a cursor
-- row is pending exactly when messages follow its cursor (the work list pop reads).
INSERT INTO queen.consumer_groups (queue_id, consumer_group)
SELECT q.id, '__QUEUE_MODE__' FROM queen.queues q ORDER BY q.id;
INSERT INTO queen.consumers (partition_id, queue_id, consumer_group, cursor_seq, pending, total_consumed,
                             last_consumed_at, last_claimed_at, created_at)
SELECT c.id, c.queue_id, '__QUEUE_MODE__', c.cursor_seq, c.cursor_seq < c.last_seq, c.cursor_seq,
       c.created_at + c.cursor_seq * interval '1 second', c.created_at + c.cursor_seq * interval '1 second',
       c.created_at
  FROM (SELECT p.id, p.queue_id, p.created_at, p.last_seq,
               CASE WHEN q.name <> :'hot_queue' AND p.name <> 'p0'
                         AND (hashtext(p.name || q.name) & 2147483647) % :pending_every = 0
                    THEN greatest(p.last_seq - :pending_tail, 0) ELSE p.last_seq END AS cursor_seq
          FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id) c
 ORDER BY c.id;

-- Statistics first: planned against tables the planner still believes empty, the per-partition
-- lookups of compute_queue_stats scan instead of probing (74 s instead of 1 s here).
ANALYZE queen.partitions, queen.consumers;
INSERT INTO queen.queue_stats
SELECT (queen.compute_queue_stats(q.id)).* FROM queen.queues q ORDER BY q.id;

COMMIT;

VACUUM (ANALYZE) queen.queues, queen.partitions, queen.messages, queen.consumers, queen.queue_stats;

SELECT (SELECT count(*) FROM queen.queues) AS queues, (SELECT count(*) FROM queen.partitions) AS partitions,
       (SELECT sum(last_seq) FROM queen.partitions) AS messages,
       (SELECT sum(p.last_seq - c.cursor_seq) FROM queen.partitions p
          JOIN queen.consumers c ON c.partition_id = p.id) AS pending;
