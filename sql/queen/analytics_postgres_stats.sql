CREATE OR REPLACE FUNCTION queen.analytics_postgres_stats(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT jsonb_build_object(
    'database', (SELECT jsonb_build_object(
        'name', d.datname, 'sizeBytes', pg_database_size(d.datid), 'connections', d.numbackends,
        'transactionsCommitted', d.xact_commit, 'transactionsRolledBack', d.xact_rollback,
        'blocksRead', d.blks_read, 'blocksHit', d.blks_hit,
        'cacheHitRatio', round(d.blks_hit::numeric / nullif(d.blks_hit + d.blks_read, 0), 4),
        'deadlocks', d.deadlocks, 'tempBytes', d.temp_bytes)
      FROM pg_stat_database d WHERE d.datname = current_database()),
    'connections', (SELECT jsonb_build_object(
        'total', count(*), 'active', count(*) FILTER (WHERE state = 'active'),
        'idle', count(*) FILTER (WHERE state = 'idle'),
        'idleInTransaction', count(*) FILTER (WHERE state LIKE 'idle in transaction%'),
        'waiting', count(*) FILTER (WHERE wait_event_type = 'Lock'))
      FROM pg_stat_activity WHERE datname = current_database()),
    'tables', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'table', t.relname, 'liveRows', t.n_live_tup, 'deadRows', t.n_dead_tup,
        'sizeBytes', pg_total_relation_size(t.relid), 'sequentialScans', t.seq_scan, 'indexScans', t.idx_scan,
        'lastAutovacuum', queen_internal.iso_millis(t.last_autovacuum)) ORDER BY pg_total_relation_size(t.relid) DESC), '[]'::jsonb)
      FROM pg_stat_user_tables t WHERE t.schemaname = 'queen'),
    'serverVersion', current_setting('server_version'),
    'timestamp', queen_internal.iso_millis(clock_timestamp()))
$function$;

COMMENT ON FUNCTION queen.analytics_postgres_stats(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/postgres-stats: the database (size, connections, commits, cache hit ratio), connections by state, and the queen tables (estimated live/dead rows from the statistics collector, size). Database-wide figures.';
GRANT EXECUTE ON FUNCTION queen.analytics_postgres_stats(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
