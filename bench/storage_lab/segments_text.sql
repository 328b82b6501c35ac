-- segments_text: one row per push, payloads kept as the JSON array text.
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
WITH i AS (SELECT * FROM lab.inputs WHERE batch = :b AND k = :k),
     c AS (UPDATE lab.partitions SET last_seq = last_seq + :b WHERE id = :p RETURNING last_seq - :b AS base)
INSERT INTO lab.segments_text
SELECT :p, c.base + 1, c.base + :b, now(), i.ids::uuid[], i.txn_hashes::bytea, i.transaction_ids::text[], i.payloads
  FROM c, i;
