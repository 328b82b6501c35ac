-- Revert queen:message_admin from pg (release 2.0.0): nothing to undo (see its deploy script).
SELECT 1;
