CREATE OR REPLACE FUNCTION queen_internal.stats_counters(p_total numeric, p_pending numeric, p_processing numeric, p_completed numeric, p_dead_letter numeric)
 RETURNS jsonb
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT jsonb_build_object('total', coalesce(p_total, 0)::bigint, 'pending', coalesce(p_pending, 0)::bigint,
                            'processing', coalesce(p_processing, 0)::bigint, 'completed', coalesce(p_completed, 0)::bigint,
                            'failed', coalesce(p_dead_letter, 0)::bigint, 'deadLetter', coalesce(p_dead_letter, 0)::bigint)
$function$;

COMMENT ON FUNCTION queen_internal.stats_counters(p_total numeric, p_pending numeric, p_processing numeric, p_completed numeric, p_dead_letter numeric) IS 'The counters object {total, pending, processing, completed, failed, deadLetter} (failed = dead-lettered).';
