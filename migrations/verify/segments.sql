-- Verify queen:segments on pg
SELECT partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids, payloads, trace_ids,
       encrypted
  FROM queen.segments WHERE false;
SELECT removed_seq FROM queen.partitions WHERE false;
SELECT partition_id, seq, id, transaction_id, payload, trace_id, producer_sub, is_encrypted, created_at FROM queen.messages WHERE false;
