-- Verify queen:push_messages on pg
BEGIN;
SELECT has_function_privilege('queen.push_messages(jsonb, text, text)', 'execute');
SELECT NULL::queen.push_item_route;
ROLLBACK;
