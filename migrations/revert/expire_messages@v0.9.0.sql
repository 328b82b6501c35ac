-- Revert queen:expire_messages from pg
BEGIN;
DROP FUNCTION queen.expire_messages(int, timestamptz);
DROP FUNCTION queen.expiry_rule(queen.queues);
COMMIT;
