-- Deploy queen:message_admin to pg (release 2.0.0)
-- No object of its own: its functions are the program's (sql/). This instance carries what the change verifies
-- under the log engine (docs/storage.md).
SELECT 1;
