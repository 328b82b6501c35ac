-- segments_keyed: segments_text plus one dedup_keys row per message (its 16-byte hash salted per push, so
-- re-used inputs never collide).
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
\set r random(1, 9000000000000000000)
WITH i AS (SELECT * FROM lab.inputs WHERE batch = :b AND k = :k),
     c AS (UPDATE lab.partitions SET last_seq = last_seq + :b WHERE id = :p RETURNING last_seq - :b AS base),
     d AS (INSERT INTO lab.dedup_keys
           SELECT :p, overlay(substring(i.txn_hashes::bytea FROM 16 * (n - 1) + 1 FOR 16) PLACING int8send(:r) FROM 1 FOR 8), c.base + n
             FROM c, i, generate_series(1, :b) n)
INSERT INTO lab.segments_keyed
SELECT :p, c.base + 1, c.base + :b, now(), i.ids::uuid[], i.txn_hashes::bytea, i.transaction_ids::text[], i.payloads
  FROM c, i;
