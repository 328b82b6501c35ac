-- Deploy queen:list_dlq to pg
BEGIN;

CREATE FUNCTION queen.list_dlq(p_queue text, p_group text, p_partition text,
                               p_from timestamptz, p_to timestamptz,
                               p_limit int, p_offset int, p_tenant text)
RETURNS TABLE (message_id uuid, transaction_id text, partition_id uuid, queue_name text, partition_name text,
               consumer_group text, error_message text, retry_count int, payload jsonb, is_encrypted bool,
               producer_sub text, trace_id uuid, created_at timestamptz, failed_at timestamptz, total bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  RETURN QUERY
  SELECT d.message_id, d.transaction_id, d.partition_id, f.queue_name, f.partition_name, f.consumer_group,
         d.error_message, d.retry_count, d.payload, d.is_encrypted, d.producer_sub, d.trace_id, d.message_created_at,
         d.failed_at, count(*) OVER ()
    FROM queen.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, NULL) f
    JOIN queen.dlq d ON d.message_id = f.message_id AND d.consumer_group = f.consumer_group
   ORDER BY d.failed_at DESC, d.message_id, d.consumer_group
   LIMIT p_limit OFFSET p_offset;
END;
$$;
COMMENT ON FUNCTION queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text) IS
  'Dead letters of the queues of tenant p_tenant ('''' = default) matching the filters (null = any; p_from/p_to bound failed_at), newest failure first, paged by p_limit/p_offset. Every row carries total = matching entries before paging; an offset past the end returns no rows. 22023 on limit < 1 or offset < 0.';

COMMIT;
