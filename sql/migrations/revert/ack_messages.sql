-- Revert queen:ack_messages from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.ack_messages(jsonb, text, text, timestamptz);
DROP FUNCTION queen_internal.lock_ack_cursor(uuid, text);
DROP FUNCTION queen_internal.ack_item_rows(jsonb, text);
DROP FUNCTION queen_internal.check_ack_items(jsonb);
DROP FUNCTION queen_internal.ack_lease_group(jsonb, text);
DROP FUNCTION queen_internal.store_ack_state(queen.consumers, bigint, timestamptz, bigint);
DROP FUNCTION queen_internal.ensure_consumer(uuid, text);
DROP FUNCTION queen_internal.dead_letter(uuid, bigint, text, text, int);
DROP FUNCTION queen_internal.uuid_or_null(text);
COMMIT;
