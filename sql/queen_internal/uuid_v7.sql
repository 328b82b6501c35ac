CREATE OR REPLACE FUNCTION queen_internal.uuid_v7(p_at timestamp with time zone DEFAULT clock_timestamp())
 RETURNS uuid
 LANGUAGE sql PARALLEL SAFE AS $function$
  SELECT encode(
           set_bit(set_bit(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send((extract(epoch FROM p_at) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             52, 1), 53, 1),
           'hex')::uuid
$function$;

COMMENT ON FUNCTION queen_internal.uuid_v7(p_at timestamp with time zone) IS 'A fresh UUIDv7: 48-bit Unix millisecond timestamp of p_at (default: now), version 7, RFC variant, 74 random bits. Ids minted later sort later (to the millisecond).';
