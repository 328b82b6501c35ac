CREATE OR REPLACE FUNCTION queen_internal.message_seq(p_partition_id uuid, p_transaction_id text)
 RETURNS bigint
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  r record;
BEGIN
  -- newest first: the latest message with the key (one per dedup window), found without unnesting a segment
  FOR r IN SELECT s.base_seq, s.transaction_ids FROM queen.segments s
            WHERE s.partition_id = p_partition_id AND s.payloads IS NOT NULL ORDER BY s.base_seq DESC LOOP
    IF p_transaction_id = ANY (r.transaction_ids) THEN
      RETURN r.base_seq + array_position(r.transaction_ids, p_transaction_id) - 1;
    END IF;
  END LOOP;
  RETURN NULL;
END;
$function$;

COMMENT ON FUNCTION queen_internal.message_seq(p_partition_id uuid, p_transaction_id text) IS 'The seq of the latest stored message of partition p_partition_id with transaction id p_transaction_id (null when none): the lookup of the admin and trace routes, a walk of the partition''s segments newest first.';
