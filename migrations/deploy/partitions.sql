-- Deploy queen:partitions to pg
BEGIN;

-- An ordered lane of messages. last_seq is the sequence allocator of the lane: a
-- push locks the row (ascending id order across the partitions of one call), takes
-- its timestamp after the lock and raises last_seq once per call, so sequence order
-- equals commit order (docs/procedures.md, "Ordering model"). last_message_at is the
-- newest message's created_at (windowBuffer, subscription start points).
CREATE TABLE queen.partitions (
  id              uuid        PRIMARY KEY DEFAULT queen.uuid_v7(),
  queue_id        uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  name            queen.name_text NOT NULL,
  last_seq        bigint      NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT partitions_queue_name_key UNIQUE (queue_id, name)
);
COMMENT ON TABLE queen.partitions IS
  'Partitions (ordered lanes) of a queue. last_seq = highest sequence number allocated in the lane; pushes serialize on this row.';

COMMIT;
