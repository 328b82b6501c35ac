CREATE OR REPLACE FUNCTION queen_internal.push_item_partition(p_item jsonb)
 RETURNS text
 LANGUAGE sql IMMUTABLE AS $function$ SELECT coalesce(nullif(p_item ->> 'partition', ''), 'Default') $function$;

COMMENT ON FUNCTION queen_internal.push_item_partition(p_item jsonb) IS 'Partition name of a push item: its "partition", or Default when absent/null/empty.';
