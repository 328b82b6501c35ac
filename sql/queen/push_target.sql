-- The partitions a batch of push items writes, locked: one row per distinct
-- (queue, partition) the items name, in ascending partition id (two batches cannot
-- deadlock), with what storing needs from the queue. Every lookup is a LATERAL key probe
-- naming all key columns, so the plan is the same whatever the table sizes were when
-- a connection cached it. A pair whose queue or partition does not exist yet comes back
-- with a null partition_id (and no lock). dedup_after and dedup_since bound the partition's dedup scan
-- (queen_internal.segment_duplicates), set by store_items. Internal to store_messages.
CREATE TYPE queen.push_target AS (
  queue_name text,
  partition_name text,
  queue_id uuid,
  partition_id uuid,
  last_seq bigint,
  max_size integer,
  encryption_enabled boolean,
  dedup_after bigint,
  dedup_since timestamp with time zone
);
