CREATE OR REPLACE FUNCTION queen.tenant_quota_state(p_tenant text, OUT max_pending bigint, OUT push_rate double precision, OUT push_burst integer, OUT pending bigint, OUT counted_at timestamp with time zone, OUT max_dead_letters bigint, OUT dead_letters bigint)
 RETURNS record
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT t.max_pending, t.push_rate, t.push_burst, st.pending, st.counted_at, t.max_dead_letters, st.dead_letters
    FROM (SELECT coalesce(sum(s.pending), 0)::bigint AS pending, max(s.updated_at) AS counted_at,
                 coalesce(sum(s.dead_letter), 0)::bigint AS dead_letters
            FROM queen.queues q JOIN queen.queue_stats s ON s.queue_id = q.id
           WHERE q.tenant = queen_internal.tenant_arg(p_tenant)) st
    LEFT JOIN queen.tenant_quotas t ON t.tenant = queen_internal.tenant_arg(p_tenant)
$function$;

COMMENT ON FUNCTION queen.tenant_quota_state(p_tenant text, OUT max_pending bigint, OUT push_rate double precision, OUT push_burst integer, OUT pending bigint, OUT counted_at timestamp with time zone, OUT max_dead_letters bigint, OUT dead_letters bigint) IS 'Quota overrides of tenant p_tenant the broker enforces itself (nulls when none), its pending messages and dead letters summed from queen.queue_stats (as fresh as the statistics reconciler left them) and counted_at, the newest refresh among those rows (null: none yet).';
GRANT EXECUTE ON FUNCTION queen.tenant_quota_state(p_tenant text, OUT max_pending bigint, OUT push_rate double precision, OUT push_burst integer, OUT pending bigint, OUT counted_at timestamp with time zone, OUT max_dead_letters bigint, OUT dead_letters bigint) TO queen_admin, queen_broker, queen_reader;
