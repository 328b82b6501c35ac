-- Verify queen:dlq on pg
-- (payload left out: dlq_payload_once moves it to queen.dlq_payloads)
SELECT message_id, consumer_group, partition_id, seq, transaction_id, trace_id, producer_sub,
       is_encrypted, error_message, retry_count, message_created_at, failed_at
  FROM queen.dlq WHERE false;
SELECT has_function_privilege('queen.dlq_matching(text, text, text, text, timestamptz, timestamptz, uuid)', 'execute');
