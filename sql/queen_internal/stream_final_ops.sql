-- ------------------------------------------------------------------- cycle
-- What a cycle's state operations leave behind: only the last operation of each
-- key decides what the key holds afterwards (ops apply in order), so they apply
-- as one delete and one upsert statement. bytes: key plus value as written.
CREATE OR REPLACE FUNCTION queen_internal.stream_final_ops(p_ops jsonb)
 RETURNS TABLE(key text, upsert boolean, value jsonb, bytes bigint)
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT DISTINCT ON (o.e ->> 'key') o.e ->> 'key', o.e ->> 'type' = 'upsert', v.value,
         (octet_length(o.e ->> 'key') + octet_length(v.value::text))::bigint
    FROM jsonb_array_elements(p_ops) WITH ORDINALITY AS o(e, ord)
    CROSS JOIN LATERAL (SELECT coalesce(nullif(o.e -> 'value', 'null'::jsonb), '{}'::jsonb) AS value) v
   ORDER BY o.e ->> 'key', o.ord DESC
$function$;

COMMENT ON FUNCTION queen_internal.stream_final_ops(p_ops jsonb) IS 'Internal to apply_stream_state_ops: per key of the state ops, the last op (upsert or not), its value ({} when none) and its counted bytes.';
