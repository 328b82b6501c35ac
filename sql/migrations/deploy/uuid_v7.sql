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

COMMIT;
