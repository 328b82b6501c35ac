-- engine_segments: the real queen_internal.append_segment of this tree, as a broker that vouches for the
-- partition (no dedup scan) would call it: one segment of b messages into one partition of queue lab.
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
SELECT (queen_internal.append_segment(e.id, clock_timestamp(), NULL, i.ids::uuid[], i.transaction_ids::text[],
                                      i.payload_texts::text[], NULL, NULL, 9223372036854775807, '-infinity')).end_seq
  FROM lab.inputs i, lab.engine_partitions e
 WHERE i.batch = :b AND i.k = :k AND e.n = :p;
