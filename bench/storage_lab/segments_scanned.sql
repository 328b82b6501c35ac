-- segments_scanned: segments_text, first probing the hashes of the partition's segments that hold its last
-- :window messages (a dedup window the broker has not vouched for), exploded and hash-joined with the push's.
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
WITH i AS (SELECT * FROM lab.inputs WHERE batch = :b AND k = :k),
     c AS (UPDATE lab.partitions SET last_seq = last_seq + :b WHERE id = :p RETURNING last_seq - :b AS base),
     window_hashes AS (SELECT substring(s.txn_hashes FROM 16 * g + 1 FOR 16) AS h
                         FROM lab.segments_scanned s, c, generate_series(0, (s.end_seq - s.base_seq)::int) g
                        WHERE s.partition_id = :p AND s.end_seq > c.base - :window),
     pushed AS (SELECT substring(i.txn_hashes::bytea FROM 16 * g + 1 FOR 16) AS h FROM i, generate_series(0, :b - 1) g),
     probe AS (SELECT count(*) AS found FROM pushed JOIN window_hashes USING (h))
INSERT INTO lab.segments_scanned
SELECT :p, c.base + 1, c.base + :b, now(), i.ids::uuid[], i.txn_hashes::bytea, i.transaction_ids::text[], i.payloads
  FROM c, i, probe;
