CREATE OR REPLACE FUNCTION queen_internal.pop_candidates(p_queue_ids uuid[], p_specific uuid, p_group text, p_scan integer, p_now timestamp with time zone)
 RETURNS uuid[]
 LANGUAGE plpgsql AS $function$
DECLARE
  v_candidates uuid[];
  v_drained uuid[];                 -- pending rows found with nothing after their cursor
BEGIN
  SELECT coalesce(array_agg(x.partition_id ORDER BY x.claim_rank) FILTER (WHERE x.next_at IS NOT NULL), '{}'),
         coalesce(array_agg(x.partition_id) FILTER (WHERE x.next_at IS NULL), '{}')
    INTO v_candidates, v_drained
    FROM (
      SELECT w.partition_id, next_message.created_at AS next_at,
             row_number() OVER (ORDER BY w.priority DESC, next_message.created_at, w.partition_id) AS claim_rank
        FROM (
          SELECT c.partition_id, c.cursor_seq, q.priority, q.delayed_processing
            FROM unnest(p_queue_ids) AS u(queue_id)
            -- a probe of the queue's key, whatever plan a connection cached while the table was small
            CROSS JOIN LATERAL (SELECT q.id, q.priority, q.delayed_processing, q.retry_delay_ms, q.window_buffer
                                  FROM queen.queues q WHERE q.id = u.queue_id LIMIT 1) q
            CROSS JOIN LATERAL (
             (SELECT c.partition_id, c.cursor_seq, c.last_claimed_at
                FROM queen.consumers c
               WHERE p_specific IS NULL
                 AND c.queue_id = q.id AND c.consumer_group = p_group AND c.pending
                 AND queen_internal.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, p_now)
                 AND (q.window_buffer = 0
                      OR (SELECT p.last_message_at FROM queen.partitions p WHERE p.id = c.partition_id)
                         <= p_now - q.window_buffer * interval '1 second')
               ORDER BY c.last_claimed_at NULLS FIRST, c.partition_id
               LIMIT p_scan)
              UNION ALL
             (SELECT c.partition_id, c.cursor_seq, c.last_claimed_at
                FROM queen.consumers c
               WHERE c.partition_id = p_specific AND c.consumer_group = p_group AND c.pending
                 AND queen_internal.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, p_now)
                 AND (q.window_buffer = 0
                      OR (SELECT p.last_message_at FROM queen.partitions p WHERE p.id = c.partition_id)
                         <= p_now - q.window_buffer * interval '1 second'))
            ) c
           ORDER BY q.priority DESC, c.last_claimed_at NULLS FIRST, c.partition_id
           LIMIT p_scan
        ) w
        -- the first segment with a message after the cursor: a backward probe of the primary key for the
        -- segment holding cursor + 1, then a forward one (next_segment_at's reads, inline: no call per row)
        CROSS JOIN LATERAL (
          SELECT coalesce((SELECT s.base_seq FROM queen.segments s
                            WHERE s.partition_id = w.partition_id AND s.base_seq <= w.cursor_seq + 1
                            ORDER BY s.base_seq DESC LIMIT 1), 0) AS base_seq) head
        LEFT JOIN LATERAL (
          SELECT s.created_at FROM queen.segments s
           WHERE s.partition_id = w.partition_id AND s.base_seq >= head.base_seq
             AND s.end_seq > w.cursor_seq AND s.payloads IS NOT NULL
           ORDER BY s.base_seq LIMIT 1) next_message ON true
       WHERE next_message.created_at IS NULL OR w.delayed_processing = 0
          OR next_message.created_at <= p_now - w.delayed_processing * interval '1 second'
    ) x;
  IF cardinality(v_drained) > 0 THEN
    PERFORM queen_internal.settle_drained(p_group, v_drained);
  END IF;
  RETURN v_candidates;
END;
$function$;

COMMENT ON FUNCTION queen_internal.pop_candidates(p_queue_ids uuid[], p_specific uuid, p_group text, p_scan integer, p_now timestamp with time zone) IS 'Internal to pop_messages: claimable pending partitions of group p_group on the queues p_queue_ids (or the partition p_specific) in claim order, from at most p_scan cursor rows per queue; settles the probed rows with nothing to deliver.';
