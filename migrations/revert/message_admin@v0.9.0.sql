-- Revert queen:message_admin from pg
BEGIN;
DROP FUNCTION queen.dead_letter_message(uuid, text, text, text, text);
DROP FUNCTION queen.list_partitions(text, int, int, text);
DROP FUNCTION queen.clear_queue(text, text, text);
DROP FUNCTION queen.delete_message(uuid, text, text);
DROP FUNCTION queen.get_message(uuid, text, text);
DROP FUNCTION queen.list_messages(text, text, text, text, text, timestamptz, timestamptz, int, int, text);
DROP FUNCTION queen.partitions_mode(uuid[]);
DROP FUNCTION queen.message_delivery(uuid, uuid, bigint, timestamptz);
DROP FUNCTION queen.message_group_state(queen.consumers, bigint, timestamptz);
DROP INDEX queen.messages_created_at_brin_idx;
COMMIT;
