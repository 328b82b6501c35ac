-- engine_rows: the real queen.push_messages of this tree (one push of b items to one partition of queue lab),
-- every transaction id new (the PREFIX placeholder takes a random number).
\set p random(0, :partitions - 1)
\set k random(0, :inputs - 1)
\set r random(1, 9000000000000000000)
SELECT count(*) FROM lab.inputs i,
       queen.push_messages(replace(replace(i.engine_items, 'PARTITION', 'p' || :p), 'PREFIX', :r::text)::jsonb, NULL, '')
 WHERE i.batch = :b AND i.k = :k;
