-- rows: one statement stores the push as one row per message (today's engine).
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
\set r random(1, 9000000000000000000)
WITH i AS (SELECT items FROM lab.inputs WHERE batch = :b AND k = :k),
     c AS (UPDATE lab.partitions SET last_seq = last_seq + :b WHERE id = :p RETURNING last_seq - :b AS base)
INSERT INTO lab.rows
SELECT :p, c.base + e.n, (e.v->>'id')::uuid, :r || (e.v->>'transactionId'), e.v->'payload', now()
  FROM c, i, jsonb_array_elements(i.items::jsonb) WITH ORDINALITY e(v, n);
