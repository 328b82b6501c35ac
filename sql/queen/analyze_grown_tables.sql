CREATE OR REPLACE FUNCTION queen.analyze_grown_tables(p_min_rows bigint)
 RETURNS jsonb
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
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
$function$;

COMMENT ON FUNCTION queen.analyze_grown_tables(p_min_rows bigint) IS 'ANALYZE (SKIP_LOCKED) of the tables of schema queen holding at least 2 x reltuples + p_min_rows live rows (pg_stat_get_live_tuples); returns the names of the tables it analyzed (or found locked), as a JSON array. 22023 when p_min_rows < 1.';
GRANT EXECUTE ON FUNCTION queen.analyze_grown_tables(p_min_rows bigint) TO queen_admin, queen_broker;
