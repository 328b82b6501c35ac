-- Revert queen:timers from pg

BEGIN;

DROP FUNCTION queen.push_item_deliver_at(jsonb, int);
DROP TABLE queen.timers;

COMMIT;
