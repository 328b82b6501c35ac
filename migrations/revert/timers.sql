-- Revert queen:timers from pg

BEGIN;

DROP TABLE queen.timers;

COMMIT;
