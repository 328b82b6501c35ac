-- A deleted query (by a DBA; no route deletes one) gives its state back before
-- the cascade removes it.
CREATE OR REPLACE FUNCTION queen_internal.stream_query_give_back()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
DECLARE
  r record;
BEGIN
  SELECT count(*) AS keys, coalesce(sum(s.counted_bytes), 0)::bigint AS bytes INTO r
    FROM queen.stream_state s WHERE s.query_id = OLD.id;
  PERFORM queen_internal.add_stream_usage(OLD.tenant, -r.keys, -r.bytes);
  RETURN OLD;
END;
$function$;
