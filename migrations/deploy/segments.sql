-- Deploy queen:segments to pg
-- The log engine's store: the messages a push brings to one partition are one row, a segment. Sequence
-- numbers (seq, as in queen.partitions.last_seq) address messages: a segment holds base_seq..end_seq without
-- a gap, element i of each array being message base_seq + i - 1. One primary-key entry per segment and no index
-- entry per message: the primary key is the delivery order, the dedup scan and the lookup path.
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

-- No foreign key to queen.partitions, as for queen.messages: a check per insert on the hottest path; the
-- procedures that delete partitions or queues delete their segments explicitly.
CREATE TABLE queen.segments (
  partition_id    uuid        NOT NULL,
  base_seq        bigint      NOT NULL,
  end_seq         bigint      NOT NULL,
  created_at      timestamptz NOT NULL,
  producer_sub    text,
  message_ids     uuid[]      NOT NULL,
  transaction_ids text[]      NOT NULL,
  -- each element the JSON text the broker validated (or its AES-256-GCM envelope): kept as text, not parsed
  -- into jsonb on the way in, and cast by the readers that want jsonb. A null element is a message deleted on
  -- its own (its transaction id is null too: its dedup memory went with it); a null array is a segment whose
  -- messages retention removed while the dedup window still needs their transaction ids.
  payloads        text[],
  trace_ids       uuid[],     -- null when no message of the segment has one
  encrypted       boolean[],  -- null when no message of the segment is encrypted
  CONSTRAINT segments_pkey PRIMARY KEY (partition_id, base_seq),
  CONSTRAINT segments_shape_check CHECK (
    base_seq >= 1 AND end_seq >= base_seq
    AND array_lower(message_ids, 1) = 1 AND cardinality(message_ids) = end_seq - base_seq + 1
    AND array_lower(transaction_ids, 1) = 1 AND cardinality(transaction_ids) = end_seq - base_seq + 1
    AND (payloads IS NULL OR (array_lower(payloads, 1) = 1 AND cardinality(payloads) = end_seq - base_seq + 1))
    AND (trace_ids IS NULL OR (array_lower(trace_ids, 1) = 1 AND cardinality(trace_ids) = end_seq - base_seq + 1))
    AND (encrypted IS NULL OR (array_lower(encrypted, 1) = 1 AND cardinality(encrypted) = end_seq - base_seq + 1)))
);
-- lz4 reads back transparently and costs a fraction of pglz's CPU on the way in
ALTER TABLE queen.segments ALTER COLUMN payloads SET COMPRESSION lz4;
ALTER TABLE queen.segments ALTER COLUMN transaction_ids SET COMPRESSION lz4;
COMMENT ON TABLE queen.segments IS
  'The log: one row per push and partition, messages base_seq..end_seq (no gap) as arrays, element i being message base_seq + i - 1. No FK to partitions (hot path); deleters remove rows explicitly.';
COMMENT ON COLUMN queen.segments.payloads IS
  'Each message''s JSON text verbatim (JSON null is ''null''), or the broker''s AES-256-GCM envelope where encrypted[i]; a null element is a deleted message, a null array a segment retention emptied inside the dedup window.';

COMMIT;
