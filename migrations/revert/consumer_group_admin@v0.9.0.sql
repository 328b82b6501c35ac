-- Revert queen:consumer_group_admin from pg
BEGIN;
DROP FUNCTION queen.seek_partition_to_end(text, text, text, text);
DROP FUNCTION queen.seek_consumer_group(text, text, bool, timestamptz, text);
DROP FUNCTION queen.move_cursors(text, uuid[], bool, timestamptz);
DROP FUNCTION queen.set_subscription_start(text, timestamptz, text);
DROP FUNCTION queen.delete_consumer_group(text, text, bool, text);
DROP FUNCTION queen.lock_group_queues(uuid[], text);
DROP FUNCTION queen.consumer_group_detail(text, text, timestamptz);
DROP FUNCTION queen.lagging_consumer_groups(bigint, text, timestamptz);
DROP FUNCTION queen.list_consumer_groups(text, timestamptz);
DROP FUNCTION queen.lag_seconds(timestamptz, timestamptz);
DROP FUNCTION queen.cursor_lags(text, text);
COMMIT;
