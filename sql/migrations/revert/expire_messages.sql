-- Revert queen:expire_messages from pg
BEGIN;
DROP FUNCTION queen.expire_messages(int);
DROP FUNCTION queen.expiry_rule(queen.queues);
COMMIT;
