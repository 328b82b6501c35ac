-- Verify queen:messages on pg (release 2.0.0)
-- The messages are in queen.messages (1.1.0's table, before the program's step) or in queen.segments, which
-- queen.stored_messages shows with the table's columns: this instance runs before the program deploys the step.
SELECT 1 / (to_regclass('queen.messages') IS NOT NULL OR to_regclass('queen.stored_messages') IS NOT NULL)::int;
SELECT partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids, payloads, trace_ids, encrypted
  FROM queen.segments WHERE false;
