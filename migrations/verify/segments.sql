-- Verify queen:segments on pg
SELECT partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids, payloads, trace_ids,
       encrypted
  FROM queen.segments WHERE false;
