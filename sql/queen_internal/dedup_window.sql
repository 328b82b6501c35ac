CREATE OR REPLACE FUNCTION queen_internal.dedup_window(p_dedup jsonb)
 RETURNS interval
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT coalesce((p_dedup ->> 'windowMs')::bigint * interval '1 millisecond', interval '24 hours')
$function$;

COMMENT ON FUNCTION queen_internal.dedup_window(p_dedup jsonb) IS 'How long after its push a transaction id makes a later push of the same (partition, transactionId) a duplicate: p_dedup''s windowMs (a broker''s QUEEN_DEDUP_WINDOW_MS, see queen.push_messages), else 24 hours (its default).';
