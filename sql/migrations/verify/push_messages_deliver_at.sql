-- Verify queen:push_messages_deliver_at on pg

BEGIN;

SELECT has_function_privilege('queen.timer_queue_names(bigint[])', 'execute');
SELECT 1 / (strpos(prosrc, 'schedule_messages') > 0)::int
  FROM pg_proc WHERE oid = 'queen.push_messages(jsonb, text)'::regprocedure;
SELECT NULL::queen.push_result, NULL::queen.push_item_route;

ROLLBACK;
