-- Verify queen:consumers on pg
BEGIN;
SELECT partition_id, consumer_group, queue_id, cursor_seq, pending, lease_id, lease_expires_at, lease_count, lease_acked,
       lease_max_seq, retry_count, failed_lease_id, available_at, total_consumed, last_consumed_at, last_claimed_at, created_at
  FROM queen.consumers WHERE false;
SELECT queue_id, consumer_group, created_at FROM queen.consumer_groups WHERE false;
SELECT has_function_privilege('queen_internal.add_partition_cursors(uuid[])', 'execute');
SELECT has_function_privilege('queen_internal.settle_drained(text, uuid[])', 'execute');
ROLLBACK;
