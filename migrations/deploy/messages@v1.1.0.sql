-- Deploy queen:messages to pg
BEGIN;

-- The message log. Deliberately narrow and with only the two indexes the procedures
-- need: the primary key (partition_id, seq) drives every read in delivery order, and
-- the unique (partition_id, transaction_id) is the deduplication rule and the ack
-- lookup. There is deliberately NO foreign key to queen.partitions: an FK check costs
-- an index lookup plus a row lock on the partition per inserted row, on the hottest
-- path we have; the procedures that delete partitions or queues delete their messages
-- explicitly instead.
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

COMMIT;
