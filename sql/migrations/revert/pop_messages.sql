-- Revert queen:pop_messages from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz);
DROP FUNCTION queen_internal.pop_lease_messages(uuid[], text, int, bool, uuid, timestamptz);
DROP FUNCTION queen_internal.pop_claim_partitions(uuid[], text, int, timestamptz);
DROP FUNCTION queen_internal.pop_candidates(uuid[], uuid, text, int, timestamptz);
DROP FUNCTION queen_internal.pop_record_start_point(text, text, uuid[], text, uuid, text, text, text, text, timestamptz);
DROP FUNCTION queen_internal.pop_queue_ids(text, text, text, text);
DROP FUNCTION queen_internal.register_consumer_group(uuid, text, text, text, text);
DROP FUNCTION queen_internal.create_cursors(uuid[], text, text, text, text);
DROP FUNCTION queen_internal.cursor_is_free(uuid, timestamptz, timestamptz, int, timestamptz);
DROP FUNCTION queen_internal.start_cursor(uuid, bigint, timestamptz, timestamptz);
DROP FUNCTION queen_internal.subscription_start_at(text, uuid, text, text, text, text);
DROP FUNCTION queen_internal.requested_subscription(text, text, timestamptz);
COMMIT;
