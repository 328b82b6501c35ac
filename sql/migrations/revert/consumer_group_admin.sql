-- Revert queen:consumer_group_admin from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.seek_partition_to_end(text, text, text, text);
DROP FUNCTION queen.seek_consumer_group(text, text, bool, timestamptz, text);
DROP FUNCTION queen_internal.move_cursors(text, uuid[], bool, timestamptz);
DROP FUNCTION queen.set_subscription_start(text, timestamptz, text);
DROP FUNCTION queen.delete_consumer_group(text, text, bool, text);
DROP FUNCTION queen_internal.lock_group_queues(uuid[], text);
DROP FUNCTION queen.consumer_group_detail(text, text, timestamptz);
DROP FUNCTION queen.lagging_consumer_groups(bigint, text, timestamptz);
DROP FUNCTION queen.list_consumer_groups(text, timestamptz);
DROP FUNCTION queen_internal.lag_seconds(timestamptz, timestamptz);
DROP FUNCTION queen_internal.cursor_lags(text, text);
COMMIT;
