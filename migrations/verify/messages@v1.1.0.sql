-- Verify queen:messages on pg
SELECT partition_id, seq, id, transaction_id, payload, trace_id, producer_sub, is_encrypted, created_at
  FROM queen.messages WHERE false;
