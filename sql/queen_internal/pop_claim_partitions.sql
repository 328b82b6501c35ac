CREATE OR REPLACE FUNCTION queen_internal.pop_claim_partitions(p_candidates uuid[], p_group text, p_max integer, p_now timestamp with time zone)
 RETURNS uuid[]
 LANGUAGE plpgsql AS $function$
DECLARE
  v_claimed uuid[] := '{}';
  v_partition_id uuid;
BEGIN
  FOREACH v_partition_id IN ARRAY p_candidates LOOP
    EXIT WHEN cardinality(v_claimed) >= p_max;
    PERFORM 1
       FROM queen.consumers c
       -- probes of the keys, whatever plan a connection cached while the tables were small
       CROSS JOIN LATERAL (SELECT p.last_seq FROM queen.partitions p WHERE p.id = c.partition_id LIMIT 1) p
       CROSS JOIN LATERAL (SELECT q.retry_delay_ms FROM queen.queues q WHERE q.id = c.queue_id LIMIT 1) q
      WHERE c.partition_id = v_partition_id AND c.consumer_group = p_group
        AND p.last_seq > c.cursor_seq
        AND queen_internal.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, p_now)
        FOR UPDATE OF c SKIP LOCKED;
    IF FOUND THEN
      v_claimed := v_claimed || v_partition_id;
    END IF;
  END LOOP;
  RETURN v_claimed;
END;
$function$;

COMMENT ON FUNCTION queen_internal.pop_claim_partitions(p_candidates uuid[], p_group text, p_max integer, p_now timestamp with time zone) IS 'Internal to pop_messages: locks (SKIP LOCKED) up to p_max of the candidate cursor rows of group p_group that are still claimable at p_now, in candidate order; returns their partition ids.';
