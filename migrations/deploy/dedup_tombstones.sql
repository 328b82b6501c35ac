-- Deploy queen:dedup_tombstones to pg
BEGIN;

-- When retention deletes a message its (partition, transactionId) stays here until
-- expires_at (deletion time + QUEEN_DEDUP_WINDOW_MS), so a replayed spool file cannot
-- store the same transactionId again inside the dedup window (docs/procedures.md, apply_retention).
-- No FK to partitions, like queen.messages: deleters clean up explicitly.
CREATE TABLE queen.dedup_tombstones (
  partition_id   uuid        NOT NULL,
  transaction_id text        NOT NULL,
  message_id     uuid        NOT NULL,
  expires_at     timestamptz NOT NULL,
  CONSTRAINT dedup_tombstones_pkey PRIMARY KEY (partition_id, transaction_id)
);
COMMENT ON TABLE queen.dedup_tombstones IS
  'Dedup keys of deleted messages, kept until expires_at; push answers duplicate (with message_id) while a tombstone is live.';

-- apply_retention purges expired tombstones oldest first.
CREATE INDEX dedup_tombstones_expires_at_idx ON queen.dedup_tombstones (expires_at);

COMMIT;
