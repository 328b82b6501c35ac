CREATE OR REPLACE FUNCTION queen_internal.uuid_v7_ordinal(p_at timestamp with time zone, p_ordinal integer)
 RETURNS uuid
 LANGUAGE sql PARALLEL SAFE AS $function$
  SELECT encode(
           set_byte(set_byte(set_byte(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send((extract(epoch FROM p_at) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             6, 112 | ((p_ordinal >> 14) & 15)),
             7, (p_ordinal >> 6) & 255),
             8, 128 | (p_ordinal & 63)),
           'hex')::uuid
$function$;

COMMENT ON FUNCTION queen_internal.uuid_v7_ordinal(p_at timestamp with time zone, p_ordinal integer) IS 'A UUIDv7 for the p_ordinal-th item of a batch stamped p_at: ids of one batch sort in item order.';
