-- segments_gin: segments_text whose 8-byte keys (salted per push) go into a GIN index, probed first.
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
\set r random(1, 9000000000000000000)
WITH i AS (SELECT *, ARRAY(SELECT x # :r FROM unnest(txn_keys::bigint[]) x) AS keys FROM lab.inputs WHERE batch = :b AND k = :k),
     c AS (UPDATE lab.partitions SET last_seq = last_seq + :b WHERE id = :p RETURNING last_seq - :b AS base),
     probe AS (SELECT count(*) AS found FROM lab.segments_gin s, i WHERE s.partition_id = :p AND s.txn_keys && i.keys)
INSERT INTO lab.segments_gin
SELECT :p, c.base + 1, c.base + :b, now(), i.ids::uuid[], i.txn_hashes::bytea, i.transaction_ids::text[], i.payloads, i.keys
  FROM c, i, probe WHERE probe.found = 0;
