-- The step of release 2.0.0, the log engine (docs/storage.md), in the program's transaction: the functions that read
-- segments and the move of the messages into them commit together, so no broker ever runs a function against
-- the other layout. The messages of the database move into queen.segments and queen.stored_messages, a view over
-- them, shows them as rows (queen.messages is gone: a 1.1.0 call caught by the step's locks fails instead of reading
-- a view of the table's name); traces lose their foreign key to the messages table; push rows carry their seq; partitions get
-- retention's watermark. Idempotent: a database that has it already skips it.
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
SELECT coalesce((SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('queen.messages')) = 'r', false) AS log_engine_step \gset
\if :log_engine_step
-- The tables this step alters are locked first, in one statement, in the order a push takes them: a broker's
-- transaction that holds one of them finishes first, so the step never holds a lock that a broker waits for
-- while it waits for that broker. A deadlock or a lock wait past 2 s (a long transaction) rolls the attempt back
-- and tries again, 30 times at most; brokers queue behind the locks until the commit (docs/upgrading.md).
SET LOCAL lock_timeout = '2s';
DO $$
DECLARE
  v_attempt int := 0;
BEGIN
  LOOP
    BEGIN
      LOCK TABLE queen.partitions, queen.messages, queen.message_traces IN ACCESS EXCLUSIVE MODE;
      RETURN;
    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
      v_attempt := v_attempt + 1;
      IF v_attempt >= 30 THEN
        RAISE;
      END IF;
      PERFORM pg_sleep(0.05);
    END;
  END LOOP;
END
$$;
SET LOCAL lock_timeout TO DEFAULT;

-- Traces name their message by (partition, transactionId) without a foreign key: a message is an element of a
-- segment; the deleters of segments delete their traces.
ALTER TABLE queen.message_traces DROP CONSTRAINT message_traces_message_fkey;

-- A queued push item answers its seq: a broker that follows a partition's seqs skips the dedup scan of what it has
-- seen (docs/storage.md).
ALTER TYPE queen.push_result ADD ATTRIBUTE seq bigint;

-- A push's targets carry the bounds of their partition's dedup scan (queen_internal.store_items).
ALTER TYPE queen.push_target ADD ATTRIBUTE dedup_after bigint, ADD ATTRIBUTE dedup_since timestamptz;

-- Retention's watermark: every message up to removed_seq is gone (its segment deleted, or emptied while the dedup
-- window still needs its transaction ids), so readers and retention start after it instead of walking emptied
-- segments.
ALTER TABLE queen.partitions ADD COLUMN removed_seq bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN queen.partitions.removed_seq IS
  'Every message up to this seq was removed by retention (segment deleted or emptied); 0 when none.';

-- The messages of a 1.1.0 database move into segments, in this transaction: a run of messages of one partition
-- with one created_at and producer (one push) and consecutive seqs becomes a segment of at most 1,000. Payloads
-- keep their JSON (the jsonb text form). Dedup tombstones stay in queen.dedup_tombstones, which the dedup scan
-- still reads until they expire.
INSERT INTO queen.segments (partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids,
                            payloads, trace_ids, encrypted)
SELECT r.partition_id, min(r.seq), max(r.seq), r.created_at, r.producer_sub,
       array_agg(r.id ORDER BY r.seq), array_agg(r.transaction_id ORDER BY r.seq),
       array_agg(coalesce(r.payload::text, 'null') ORDER BY r.seq),
       CASE WHEN bool_or(r.trace_id IS NOT NULL) THEN array_agg(r.trace_id ORDER BY r.seq) END,
       CASE WHEN bool_or(r.is_encrypted) THEN array_agg(r.is_encrypted ORDER BY r.seq) END
  FROM (SELECT x.*, (row_number() OVER (PARTITION BY x.partition_id, x.created_at, x.producer_sub, x.run ORDER BY x.seq) - 1) / 1000 AS chunk
          FROM (SELECT m.*, m.seq - row_number() OVER (PARTITION BY m.partition_id, m.created_at, m.producer_sub ORDER BY m.seq) AS run
                  FROM queen.messages m) x) r
 GROUP BY r.partition_id, r.created_at, r.producer_sub, r.run, r.chunk;
DROP TABLE queen.messages;

-- What was the table is a view for readers: one row per message, as before.
CREATE VIEW queen.stored_messages AS
SELECT s.partition_id, s.base_seq + e.ord - 1 AS seq, e.message_id AS id, e.transaction_id, e.payload::jsonb AS payload,
       e.trace_id, s.producer_sub, coalesce(e.encrypted, false) AS is_encrypted, s.created_at
  FROM queen.segments s
 CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.payloads, s.trace_ids, s.encrypted)
                    WITH ORDINALITY AS e(message_id, transaction_id, payload, trace_id, encrypted, ord)
 WHERE s.payloads IS NOT NULL AND e.payload IS NOT NULL;
COMMENT ON VIEW queen.stored_messages IS
  'Every stored message as a row (partition_id, seq, id, transaction_id, payload, trace_id, producer_sub, is_encrypted, created_at), read from queen.segments.';
\endif
