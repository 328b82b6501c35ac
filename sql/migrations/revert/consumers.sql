-- Revert queen:consumers from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen_internal.settle_drained(text, uuid[]);
DROP FUNCTION queen_internal.add_partition_cursors(uuid[]);
DROP TABLE queen.consumer_groups;
DROP TABLE queen.consumers;
COMMIT;
