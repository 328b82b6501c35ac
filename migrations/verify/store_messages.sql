-- Verify queen:store_messages on pg (release 2.0.0)
-- The signatures both 1.1.0's program and the log engine's have: this instance deploys nothing, and it runs
-- before the program (`sqitch deploy --verify` checks it then).
BEGIN;
SELECT has_function_privilege('queen_internal.queue_pending_count(uuid)', 'execute');
SELECT has_function_privilege('queen_internal.store_messages(jsonb, text, uuid[], text)', 'execute');
SELECT has_function_privilege('queen_internal.create_push_targets(jsonb, text, queen.push_target[])', 'execute');
SELECT has_function_privilege('queen_internal.refused_push_partitions(jsonb, queen.push_target[])', 'execute');
SELECT has_function_privilege('queen_internal.insert_push_items(jsonb, text, uuid[], queen.push_target[], uuid[], timestamptz)', 'execute');
ROLLBACK;
