-- Verify queen:consumers on pg
SELECT partition_id, consumer_group, cursor_seq, lease_id, lease_expires_at, lease_count, lease_acked,
       lease_max_seq, retry_count, failed_lease_id, available_at, total_consumed, last_consumed_at, last_claimed_at, created_at
  FROM queen.consumers WHERE false;
