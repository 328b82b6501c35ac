-- Deploy queen:uuid_v7 to pg
BEGIN;

-- A UUID version 7 (RFC 9562): the first 48 bits are the Unix time in milliseconds,
-- the rest is random. We start from a random version-4 UUID (which already carries
-- the RFC variant bits 10), overwrite its first six bytes with the big-endian
-- millisecond timestamp and turn the version nibble 0100 into 0111 by setting the two
-- low bits of that nibble (bits 52 and 53 in set_bit's little-endian-per-byte count).
CREATE FUNCTION queen.uuid_v7(p_at timestamptz DEFAULT clock_timestamp())
RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
           set_bit(set_bit(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send((extract(epoch FROM p_at) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             52, 1), 53, 1),
           'hex')::uuid
$$;
COMMENT ON FUNCTION queen.uuid_v7(timestamptz) IS
  'A fresh UUIDv7: 48-bit Unix millisecond timestamp of p_at (default: now), version 7, RFC variant, 74 random bits. Ids minted later sort later (to the millisecond).';

-- A UUIDv7 whose 18 bits after the version nibble (the 12 bits of rand_a and the
-- 6 bits after the variant) hold p_ordinal instead of randomness (RFC 9562 §6.2,
-- method 1: a fixed-length counter). Items of one push share one timestamp, so
-- numbering them this way makes their ids sort in request order, which keeps the
-- (createdAt, id) delivery order equal to the stored (seq) order. Ordinals wrap at
-- 262144, far above any batch the broker sends (PUSH_COMBINE_MAX_ITEMS).
CREATE FUNCTION queen.uuid_v7_ordinal(p_at timestamptz, p_ordinal int)
RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
           set_byte(set_byte(set_byte(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send((extract(epoch FROM p_at) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             6, 112 | ((p_ordinal >> 14) & 15)),
             7, (p_ordinal >> 6) & 255),
             8, 128 | (p_ordinal & 63)),
           'hex')::uuid
$$;
COMMENT ON FUNCTION queen.uuid_v7_ordinal(timestamptz, int) IS
  'A UUIDv7 for the p_ordinal-th item of a batch stamped p_at: ids of one batch sort in item order.';

COMMIT;
