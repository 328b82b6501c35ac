CREATE OR REPLACE FUNCTION queen.delete_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_found bool := false;
  v_count int;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                  WHERE p.id = p_partition_id AND q.tenant = queen_internal.tenant_arg(p_tenant)) THEN
    RETURN false;
  END IF;
  -- every copy of the key: its payload and transaction id become null in its segment (the seq stays, delivered to
  -- no one), and its traces go with it
  UPDATE queen.segments s
     SET payloads[k.pos] = NULL, transaction_ids[k.pos] = NULL
    -- a key is once in a segment (a segment is one push, deduplicated)
    FROM (SELECT x.base_seq, array_position(x.transaction_ids, p_transaction_id) AS pos
            FROM queen.segments x
           WHERE x.partition_id = p_partition_id AND x.payloads IS NOT NULL AND p_transaction_id = ANY (x.transaction_ids)) k
   WHERE s.partition_id = p_partition_id AND s.base_seq = k.base_seq;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  v_found := v_count > 0;
  DELETE FROM queen.message_traces t WHERE t.partition_id = p_partition_id AND t.transaction_id = p_transaction_id;
  DELETE FROM queen.dlq d WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  v_found := v_found OR v_count > 0;
  DELETE FROM queen.dedup_tombstones t WHERE t.partition_id = p_partition_id AND t.transaction_id = p_transaction_id;
  RETURN v_found;
END;
$function$;

COMMENT ON FUNCTION queen.delete_message(p_partition_id uuid, p_transaction_id text, p_tenant text) IS 'Deletes the message (p_partition_id, p_transaction_id) of tenant p_tenant with its traces, its DLQ entries of every group and any dedup tombstone of the key (the transactionId is accepted again at once). True when a message or a DLQ entry existed.';
GRANT EXECUTE ON FUNCTION queen.delete_message(p_partition_id uuid, p_transaction_id text, p_tenant text) TO queen_admin, queen_broker;
