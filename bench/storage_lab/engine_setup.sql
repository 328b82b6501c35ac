-- The engine variants' queue: queue lab with :partitions partitions p0.., in a database the project's migrations
-- deployed (run.py deploys them), and lab.engine_partitions mapping n to each partition's id.
SELECT queen.delete_queue('lab', '');
DELETE FROM queen.segments s WHERE NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = s.partition_id);
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 'lab', 'partition', 'p' || g, 'transactionId', 'seed-' || g))
     FROM generate_series(0, :partitions - 1) g), NULL, '');
CREATE TABLE lab.engine_partitions AS
  SELECT substring(p.name FROM 2)::int AS n, p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.tenant = '' AND q.name = 'lab' AND p.name LIKE 'p%';
ALTER TABLE lab.engine_partitions ADD PRIMARY KEY (n);
VACUUM ANALYZE;
