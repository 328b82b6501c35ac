CREATE OR REPLACE FUNCTION queen.dead_letter_undecryptable(p_items jsonb, p_group text, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_group text := queen_internal.group_or_queue_mode(p_group);
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_count int := 0;
  r record;
  c queen.consumers;
  v_first_good bigint;
  v_last_good bigint;
  v_bad_seqs bigint[];
BEGIN
  IF p_items IS NULL OR jsonb_typeof(p_items) <> 'array' THEN
    RAISE EXCEPTION 'dead_letter_undecryptable: an items array is required' USING ERRCODE = '22023';
  END IF;
  FOR r IN
    SELECT p.id AS partition_id, array_agg(a.seq ORDER BY a.seq) AS seqs,
           array_agg(x.errors[a.idx] ORDER BY a.seq) AS errors,
           (array_agg(x.leases[a.idx]))[1] AS lease_id
      FROM (SELECT queen_internal.uuid_or_null(i.e ->> 'partitionId') AS partition_id,
                   array_agg(i.e ->> 'transactionId' ORDER BY i.ord) AS transaction_ids,
                   array_agg(coalesce(i.e ->> 'error', 'undecryptable payload') ORDER BY i.ord) AS errors,
                   array_agg(queen_internal.uuid_or_null(i.e ->> 'leaseId') ORDER BY i.ord) AS leases
              FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i(e, ord)
             GROUP BY 1) x
      JOIN queen.partitions p ON p.id = x.partition_id
      JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = v_tenant
      CROSS JOIN LATERAL queen_internal.ack_seqs(p.id, v_group, x.transaction_ids, now()) a
     GROUP BY p.id
     ORDER BY p.id
  LOOP
    SELECT * INTO c FROM queen.consumers cc
     WHERE cc.partition_id = r.partition_id AND cc.consumer_group = v_group FOR UPDATE;
    FOR i IN 1 .. cardinality(r.seqs) LOOP
      PERFORM queen_internal.dead_letter(r.partition_id, r.seqs[i], v_group, r.errors[i], coalesce(c.retry_count, 0));
      v_count := v_count + 1;
    END LOOP;
    CONTINUE WHEN c.lease_id IS NULL OR c.lease_id IS DISTINCT FROM r.lease_id OR c.lease_expires_at <= now();
    v_bad_seqs := r.seqs;
    SELECT min(m.seq), max(m.seq) INTO v_first_good, v_last_good
      FROM queen_internal.segment_messages(r.partition_id, c.cursor_seq, greatest(c.lease_max_seq - c.cursor_seq, 0)::int) m
     WHERE m.seq <= c.lease_max_seq AND m.seq <> ALL (v_bad_seqs);
    IF v_first_good IS NULL THEN
      -- nothing good in the batch: consumed, lease released
      UPDATE queen.consumers t
         SET cursor_seq = c.lease_max_seq, lease_id = NULL, lease_expires_at = NULL, retry_count = 0,
             total_consumed = t.total_consumed + (c.lease_max_seq - c.cursor_seq), last_consumed_at = now()
       WHERE t.partition_id = c.partition_id AND t.consumer_group = c.consumer_group;
    ELSE
      UPDATE queen.consumers t
         SET cursor_seq = greatest(c.cursor_seq,
                                   coalesce((SELECT max(s) FROM unnest(v_bad_seqs) s WHERE s < v_first_good), 0)),
             lease_max_seq = v_last_good,
             lease_count = greatest(c.lease_count - (SELECT count(*) FROM unnest(v_bad_seqs) s
                                                      WHERE s < v_first_good OR s > v_last_good)::int, 0)
       WHERE t.partition_id = c.partition_id AND t.consumer_group = c.consumer_group;
    END IF;
  END LOOP;
  RETURN v_count;
END;
$function$;

COMMENT ON FUNCTION queen.dead_letter_undecryptable(p_items jsonb, p_group text, p_tenant text) IS 'A pop of tenant p_tenant ('''' = default; another tenant''s partitions are skipped) met messages it cannot decrypt (tampered, unknown key, malformed envelope): each [{partitionId, transactionId, leaseId?, error}] is dead-lettered for group p_group (null = queue mode) with its error, and taken out of the still-held lease so the partition does not stall. Returns the number dead-lettered.';
GRANT EXECUTE ON FUNCTION queen.dead_letter_undecryptable(p_items jsonb, p_group text, p_tenant text) TO queen_admin, queen_broker;
