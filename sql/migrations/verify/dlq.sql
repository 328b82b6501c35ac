-- Verify queen:dlq on pg
SELECT message_id, consumer_group, partition_id, seq, transaction_id, payload, trace_id, producer_sub,
       is_encrypted, error_message, retry_count, message_created_at, failed_at
  FROM queen.dlq WHERE false;
