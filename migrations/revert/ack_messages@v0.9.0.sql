-- Revert queen:ack_messages from pg
BEGIN;
DROP FUNCTION queen.ack_messages(jsonb, text, text, timestamptz);
DROP FUNCTION queen.lock_ack_cursor(uuid, text);
DROP FUNCTION queen.ack_item_rows(jsonb, text);
DROP FUNCTION queen.check_ack_items(jsonb);
DROP FUNCTION queen.ack_lease_group(jsonb, text);
DROP FUNCTION queen.store_ack_state(queen.consumers, bigint, timestamptz, bigint);
DROP FUNCTION queen.ensure_consumer(uuid, text);
DROP FUNCTION queen.dead_letter(uuid, bigint, text, text, int);
DROP FUNCTION queen.uuid_or_null(text);
COMMIT;
