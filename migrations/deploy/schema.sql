-- Deploy queen:schema to pg
-- Every piece of the broker's authoritative state lives in this schema.
BEGIN;

CREATE SCHEMA queen;
COMMENT ON SCHEMA queen IS
  'Queen message broker: queues, partitions, messages, consumer cursors/leases, DLQ and the procedures that change them. See docs/procedures.md.';

COMMIT;
