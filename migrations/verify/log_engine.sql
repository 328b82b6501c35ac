-- Verify queen:log_engine on pg
SELECT removed_seq FROM queen.partitions WHERE false;
SELECT partition_id, seq, id, transaction_id, payload, trace_id, producer_sub, is_encrypted, created_at FROM queen.messages WHERE false;
SELECT (NULL::queen.push_result).seq;
