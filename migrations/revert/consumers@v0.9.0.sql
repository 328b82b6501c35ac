-- Revert queen:consumers from pg
BEGIN;
DROP FUNCTION queen.settle_drained(text, uuid[]);
DROP FUNCTION queen.add_partition_cursors(uuid[]);
DROP TABLE queen.consumer_groups;
DROP TABLE queen.consumers;
COMMIT;
