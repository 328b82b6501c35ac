-- Verify queen:queues on pg
SELECT id, tenant, name, namespace, task, lease_time, retry_limit, retry_delay_ms, priority, delayed_processing,
       window_buffer, max_size, ttl, retention_enabled, retention_seconds, completed_retention_seconds,
       max_wait_time_seconds, dead_letter_queue, dlq_after_max_retries, encryption_enabled, created_at, updated_at
  FROM queen.queues WHERE false;
