-- Deploy queen:analyze_grown_tables to pg
-- queen.analyze_grown_tables(p_min_rows): ANALYZE of every table of schema queen that now holds at least
-- twice the rows its statistics last counted, plus p_min_rows. The broker's table_statistics job calls it
-- every TABLE_STATISTICS_INTERVAL_MS (docs/timers-kv-jobs.md).
--
-- Why: a broker connection keeps the generic plan it made of each statement, and the plan is made from the
-- statistics of that moment. After most of the data was deleted and the tables vacuumed, the statistics say
-- "a few rows" while the indexes keep their size, and some of push's lookups are then planned through the
-- wrong index (the dedup probe by partition alone: every message of the partition per pushed item). The
-- plans are replaced when the table is next analyzed, which autovacuum does at most once per
-- autovacuum_naptime (a minute by default); this brings that down to one job period while a table refills.
-- A table that only churns (the cursor rows) does not grow and is left to autovacuum; a grown table is
-- analyzed about once per doubling, so a refill from nothing to a million rows costs some ten ANALYZEs of a
-- sample of at most 300 x default_statistics_target rows each. SKIP_LOCKED: a table that autovacuum (or a
-- DBA) is processing is skipped this time, never waited for, so autovacuum is not cancelled for it.
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

-- The rule, apart so it can be tested without committed rows: a table counted at -1 rows was never analyzed.
CREATE FUNCTION queen_internal.statistics_outgrown(p_live_rows bigint, p_counted_rows real, p_min_rows bigint)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
  SELECT p_live_rows >= 2 * greatest(p_counted_rows, 0)::bigint + p_min_rows
$$;
COMMENT ON FUNCTION queen_internal.statistics_outgrown(bigint, real, bigint) IS
  'Internal to analyze_grown_tables: whether a table of p_live_rows rows whose statistics counted p_counted_rows (pg_class.reltuples; -1 = never) is due for ANALYZE: at least twice the count plus p_min_rows.';

CREATE FUNCTION queen.analyze_grown_tables(p_min_rows bigint)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, queen, queen_internal, pg_temp
AS $$
DECLARE
  v_table text;
  v_analyzed jsonb := '[]'::jsonb;
BEGIN
  PERFORM queen_internal.check_at_least('minRows', p_min_rows, 1);
  FOR v_table IN
    SELECT 'queen.' || quote_ident(c.relname)
      FROM pg_class c
     WHERE c.relnamespace = 'queen'::regnamespace AND c.relkind = 'r'
       AND c.relowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
       AND queen_internal.statistics_outgrown(pg_stat_get_live_tuples(c.oid), c.reltuples, p_min_rows)
     ORDER BY c.relname
  LOOP
    EXECUTE format('ANALYZE (SKIP_LOCKED) %s', v_table);
    v_analyzed := v_analyzed || to_jsonb(v_table);
  END LOOP;
  RETURN v_analyzed;
END;
$$;
COMMENT ON FUNCTION queen.analyze_grown_tables(bigint) IS
  'ANALYZE (SKIP_LOCKED) of the tables of schema queen holding at least 2 x reltuples + p_min_rows live rows (pg_stat_get_live_tuples); returns the names of the tables it analyzed (or found locked), as a JSON array. 22023 when p_min_rows < 1.';
GRANT EXECUTE ON FUNCTION queen.analyze_grown_tables(bigint) TO queen_broker, queen_admin;

RESET ROLE;
COMMIT;
