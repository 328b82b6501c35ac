CREATE OR REPLACE FUNCTION queen_internal.dedup_window()
 RETURNS interval
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT interval '24 hours'
$function$;

COMMENT ON FUNCTION queen_internal.dedup_window() IS 'How long after its push a transaction id makes a later push of the same (partition, transactionId) a duplicate, where the caller names no window (QUEEN_DEDUP_WINDOW_MS''s default).';
