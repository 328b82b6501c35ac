-- Revert queen:grants from pg
BEGIN;

REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA queen FROM queen_broker, queen_reader, queen_admin;
REVOKE USAGE ON SCHEMA queen FROM queen_broker, queen_reader, queen_admin;

COMMIT;
