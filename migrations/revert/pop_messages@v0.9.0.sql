-- Revert queen:pop_messages from pg
BEGIN;
DROP FUNCTION queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz);
DROP FUNCTION queen.pop_lease_messages(uuid[], text, int, bool, uuid, timestamptz);
DROP FUNCTION queen.pop_claim_partitions(uuid[], text, int, timestamptz);
DROP FUNCTION queen.pop_candidates(uuid[], uuid, text, int, timestamptz);
DROP FUNCTION queen.pop_record_start_point(text, text, uuid[], text, uuid, text, text, text, text, timestamptz);
DROP FUNCTION queen.pop_queue_ids(text, text, text, text);
DROP FUNCTION queen.register_consumer_group(uuid, text, text, text, text);
DROP FUNCTION queen.create_cursors(uuid[], text, text, text, text);
DROP FUNCTION queen.cursor_is_free(uuid, timestamptz, timestamptz, int, timestamptz);
DROP FUNCTION queen.start_cursor(uuid, bigint, timestamptz, timestamptz);
DROP FUNCTION queen.subscription_start_at(text, uuid, text, text, text, text);
DROP FUNCTION queen.requested_subscription(text, text, timestamptz);
COMMIT;
