CREATE OR REPLACE FUNCTION queen_internal.queue_options_json(q queen.queues)
 RETURNS jsonb
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT jsonb_build_object(
    'leaseTime', q.lease_time,
    'retryLimit', q.retry_limit,
    'retryDelay', q.retry_delay_ms,
    'priority', q.priority,
    'delayedProcessing', q.delayed_processing,
    'windowBuffer', q.window_buffer,
    'maxSize', q.max_size,
    'ttl', q.ttl,
    'retentionEnabled', q.retention_enabled,
    'retentionSeconds', q.retention_seconds,
    'completedRetentionSeconds', q.completed_retention_seconds,
    'maxWaitTimeSeconds', q.max_wait_time_seconds,
    'deadLetterQueue', q.dead_letter_queue,
    'dlqAfterMaxRetries', q.dlq_after_max_retries,
    'encryptionEnabled', q.encryption_enabled)
$function$;

COMMENT ON FUNCTION queen_internal.queue_options_json(q queen.queues) IS 'The 15 configure options of a queue as a camelCase JSON object with numbers and booleans.';
