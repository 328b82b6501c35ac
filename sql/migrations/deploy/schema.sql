-- Deploy queen:schema to pg
-- Every piece of the broker's authoritative state lives in this schema, with the API procedures (the
-- helpers they are made of are in queen_internal). Owned by queen_owner (docs/procedures.md, Roles).
BEGIN;

CREATE SCHEMA queen AUTHORIZATION queen_owner;
COMMENT ON SCHEMA queen IS
  'Queen message broker: queues, partitions, messages, consumer cursors/leases, DLQ and the procedures that change them. See docs/procedures.md.';

COMMIT;
