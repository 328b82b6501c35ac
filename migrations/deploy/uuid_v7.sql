-- Deploy queen:uuid_v7 to pg (release 1.0.0, a rework of uuid_v7@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- uuid_v7@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

-- What refers to the functions replaced below.
ALTER TABLE queen.message_traces ALTER COLUMN id DROP DEFAULT;
ALTER TABLE queen.partitions ALTER COLUMN id DROP DEFAULT;
ALTER TABLE queen.queues ALTER COLUMN id DROP DEFAULT;

DROP FUNCTION
  queen.uuid_v7(timestamp with time zone),
  queen.uuid_v7_ordinal(timestamp with time zone,integer);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.uuid_v7(p_at timestamp with time zone DEFAULT clock_timestamp())
 RETURNS uuid
 LANGUAGE sql
 PARALLEL SAFE
AS $function$
  SELECT encode(
           set_bit(set_bit(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send((extract(epoch FROM p_at) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             52, 1), 53, 1),
           'hex')::uuid
$function$;
COMMENT ON FUNCTION queen_internal.uuid_v7(timestamp with time zone) IS
  'A fresh UUIDv7: 48-bit Unix millisecond timestamp of p_at (default: now), version 7, RFC variant, 74 random bits. Ids minted later sort later (to the millisecond).';

CREATE OR REPLACE FUNCTION queen_internal.uuid_v7_ordinal(p_at timestamp with time zone, p_ordinal integer)
 RETURNS uuid
 LANGUAGE sql
 PARALLEL SAFE
AS $function$
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
COMMENT ON FUNCTION queen_internal.uuid_v7_ordinal(timestamp with time zone,integer) IS
  'A UUIDv7 for the p_ordinal-th item of a batch stamped p_at: ids of one batch sort in item order.';

RESET ROLE;

ALTER TABLE queen.message_traces ALTER COLUMN id SET DEFAULT queen_internal.uuid_v7();
ALTER TABLE queen.partitions ALTER COLUMN id SET DEFAULT queen_internal.uuid_v7();
ALTER TABLE queen.queues ALTER COLUMN id SET DEFAULT queen_internal.uuid_v7();

COMMIT;
