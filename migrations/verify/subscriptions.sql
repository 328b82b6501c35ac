-- Verify queen:subscriptions on pg
SELECT id, tenant, consumer_group, queue_id, partition_name, filter_namespace, filter_task, mode, start_at, created_at
  FROM queen.subscriptions WHERE false;
