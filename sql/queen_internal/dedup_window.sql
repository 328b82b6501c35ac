CREATE OR REPLACE FUNCTION queen_internal.dedup_window(p_dedup jsonb)
 RETURNS interval
 LANGUAGE sql STABLE AS $function$
  SELECT coalesce((p_dedup ->> 'windowMs')::bigint,
                  nullif(current_setting('queen.dedup_window_ms', true), '')::bigint,
                  86400000) * interval '1 millisecond'
$function$;

COMMENT ON FUNCTION queen_internal.dedup_window(p_dedup jsonb) IS 'How long after its push a transaction id makes a later push of the same (partition, transactionId) a duplicate: p_dedup''s windowMs (see queen.push_with_dedup), else the session setting queen.dedup_window_ms (a broker sets it from QUEEN_DEDUP_WINDOW_MS on every connection), else 24 hours (its default, a DBA''s session).';
