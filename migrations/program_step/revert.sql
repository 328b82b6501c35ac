-- The revert of release 2.0.0's step, in the transaction that puts back the program of 1.1.0: the messages go back
-- into a table of a row each (queen.segments stays, empty); a segment emptied by retention leaves its
-- transaction ids as dedup tombstones until its window (24 hours from its push) is over. Idempotent.
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
SELECT to_regclass('queen.stored_messages') IS NOT NULL AS log_engine_step \gset
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
      LOCK TABLE queen.partitions, queen.segments, queen.message_traces IN ACCESS EXCLUSIVE MODE;
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
DROP VIEW queen.stored_messages;
CREATE TABLE queen.messages (
  partition_id   uuid        NOT NULL,
  seq            bigint      NOT NULL,
  id             uuid        NOT NULL,
  transaction_id text        NOT NULL,
  payload        jsonb,
  trace_id       uuid,
  producer_sub   text,
  is_encrypted   boolean     NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL,
  CONSTRAINT messages_pkey PRIMARY KEY (partition_id, seq),
  CONSTRAINT messages_partition_transaction_key UNIQUE (partition_id, transaction_id)
);
COMMENT ON TABLE queen.messages IS
  'Messages: (partition_id, seq) is the delivery order, (partition_id, transaction_id) the dedup key. No FK to partitions (hot path); deleters remove rows explicitly.';
COMMENT ON COLUMN queen.messages.payload IS
  'The pushed JSON verbatim (JSON null stays null), or the broker''s AES-256-GCM envelope when is_encrypted.';
-- a transaction id stored again after its dedup window keeps its latest copy
INSERT INTO queen.messages (partition_id, seq, id, transaction_id, payload, trace_id, producer_sub, is_encrypted, created_at)
SELECT DISTINCT ON (s.partition_id, e.transaction_id)
       s.partition_id, s.base_seq + e.ord - 1, e.message_id, e.transaction_id, e.payload::jsonb, e.trace_id, s.producer_sub,
       coalesce(e.encrypted, false), s.created_at
  FROM queen.segments s
 CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids, s.payloads, s.trace_ids, s.encrypted)
                    WITH ORDINALITY AS e(message_id, transaction_id, payload, trace_id, encrypted, ord)
 WHERE s.payloads IS NOT NULL AND e.payload IS NOT NULL
 ORDER BY s.partition_id, e.transaction_id, s.base_seq DESC;
CREATE INDEX messages_created_at_brin_idx ON queen.messages USING brin (created_at) WITH (autosummarize = on);
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
SELECT s.partition_id, e.transaction_id, e.message_id, s.created_at + interval '24 hours'
  FROM queen.segments s
 CROSS JOIN LATERAL unnest(s.message_ids, s.transaction_ids) AS e(message_id, transaction_id)
 WHERE s.payloads IS NULL AND s.created_at + interval '24 hours' > now()
   AND NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = s.partition_id AND m.transaction_id = e.transaction_id)
ON CONFLICT ON CONSTRAINT dedup_tombstones_pkey DO NOTHING;
DELETE FROM queen.segments;
DELETE FROM queen.message_traces t
 WHERE NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = t.partition_id AND m.transaction_id = t.transaction_id);
ALTER TABLE queen.message_traces ADD CONSTRAINT message_traces_message_fkey FOREIGN KEY (partition_id, transaction_id)
  REFERENCES queen.messages (partition_id, transaction_id) ON DELETE CASCADE;
ALTER TABLE queen.partitions DROP COLUMN removed_seq;
ALTER TYPE queen.push_result DROP ATTRIBUTE seq;
ALTER TYPE queen.push_target DROP ATTRIBUTE dedup_after, DROP ATTRIBUTE dedup_since;
\endif
