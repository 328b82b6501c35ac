-- Revert queen:consumer_group_admin from pg (back to consumer_group_admin@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.cursor_lags(text,text),
  queen_internal.lag_seconds(timestamp with time zone,timestamp with time zone),
  queen.list_consumer_groups(text,timestamp with time zone),
  queen.lagging_consumer_groups(bigint,text,timestamp with time zone),
  queen.consumer_group_detail(text,text,timestamp with time zone),
  queen_internal.lock_group_queues(uuid[],text),
  queen.delete_consumer_group(text,text,boolean,text),
  queen.set_subscription_start(text,timestamp with time zone,text),
  queen_internal.move_cursors(text,uuid[],boolean,timestamp with time zone),
  queen.seek_consumer_group(text,text,boolean,timestamp with time zone,text),
  queen.seek_partition_to_end(text,text,text,text);

CREATE OR REPLACE FUNCTION queen.cursor_lags(p_tenant text, p_group text DEFAULT NULL::text)
 RETURNS TABLE(consumer_group text, queue_id uuid, queue_name text, partition_id uuid, partition_name text, lease_id uuid, lease_expires_at timestamp with time zone, total_consumed bigint, last_consumed_at timestamp with time zone, offset_lag bigint, next_at timestamp with time zone)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT c.consumer_group, q.id, q.name, p.id, p.name, c.lease_id, c.lease_expires_at, c.total_consumed,
         c.last_consumed_at, greatest(p.last_seq - c.cursor_seq, 0), next_message.created_at
    FROM queen.queues q
    JOIN queen.consumers c ON c.queue_id = q.id AND (p_group IS NULL OR c.consumer_group = p_group)
    JOIN queen.partitions p ON p.id = c.partition_id
    LEFT JOIN LATERAL (SELECT m.created_at FROM queen.messages m
                        WHERE p.last_seq > c.cursor_seq
                          AND m.partition_id = c.partition_id AND m.seq > c.cursor_seq
                        ORDER BY m.seq LIMIT 1) next_message ON true
   WHERE q.tenant = queen.tenant_arg(p_tenant)
$function$;
COMMENT ON FUNCTION queen.cursor_lags(text,text) IS
  'Cursor rows of tenant p_tenant (of group p_group; null = every group) with offset lag (last_seq - cursor) and the creation time of the next unconsumed message (null = none).';

CREATE OR REPLACE FUNCTION queen.lag_seconds(p_from timestamp with time zone, p_now timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT coalesce(greatest(floor(extract(epoch FROM p_now - p_from)), 0)::bigint, 0)
$function$;
COMMENT ON FUNCTION queen.lag_seconds(timestamp with time zone,timestamp with time zone) IS
  'Whole seconds between p_from and p_now (never negative); 0 when p_from is null.';

CREATE OR REPLACE FUNCTION queen.list_consumer_groups(p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  WITH per_group AS (
    SELECT l.consumer_group, l.queue_id, l.queue_name,
           count(*) AS members,
           count(*) FILTER (WHERE l.offset_lag > 0) AS partitions_with_lag,
           sum(l.offset_lag) AS total_lag,
           max(queen.lag_seconds(l.next_at, coalesce(p_now, now()))) AS max_time_lag,
           bool_or(l.total_consumed > 0 OR l.last_consumed_at IS NOT NULL) AS consumed
      FROM queen.cursor_lags(p_tenant) l
     GROUP BY l.consumer_group, l.queue_id, l.queue_name
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'name', g.consumer_group,
           'queueName', g.queue_name,
           'topics', jsonb_build_array(g.queue_name),
           'members', g.members,
           'partitionsWithLag', g.partitions_with_lag,
           'totalLag', g.total_lag,
           'maxTimeLag', g.max_time_lag,
           'state', CASE WHEN NOT g.consumed THEN 'Dead' WHEN g.max_time_lag > 300 THEN 'Lagging' ELSE 'Stable' END,
           'subscriptionMode', coalesce(s.mode, 'all'),
           'subscriptionTimestamp', queen.iso_millis(s.start_at),
           'subscriptionCreatedAt', queen.iso_millis(s.created_at))
           ORDER BY g.consumer_group, g.queue_name), '[]'::jsonb)
    FROM per_group g
    LEFT JOIN LATERAL (SELECT s.mode, s.start_at, s.created_at FROM queen.subscriptions s
                        WHERE s.consumer_group = g.consumer_group AND s.queue_id = g.queue_id
                          AND s.partition_name = '' LIMIT 1) s ON true
$function$;
COMMENT ON FUNCTION queen.list_consumer_groups(text,timestamp with time zone) IS
  'GET /api/v1/consumer-groups: one object per (group, queue) with cursor rows of tenant p_tenant (queue mode = __QUEUE_MODE__): members (cursor rows), partitionsWithLag, totalLag (sequence numbers), maxTimeLag (s, at p_now), state (Dead = never consumed, Lagging = maxTimeLag > 300 s, else Stable) and the queue-wide subscription record (mode all and null timestamps without one).';

CREATE OR REPLACE FUNCTION queen.lagging_consumer_groups(p_min_lag_seconds bigint, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
BEGIN
  PERFORM queen.check_at_least('minLagSeconds', p_min_lag_seconds, 0);
  RETURN (
    SELECT coalesce(jsonb_agg(jsonb_build_object(
             'consumer_group', l.consumer_group,
             'queue_name', l.queue_name,
             'partition_name', l.partition_name,
             'partition_id', l.partition_id,
             'worker_id', CASE WHEN l.lease_expires_at > v_now THEN l.lease_id END,
             'offset_lag', l.offset_lag,
             'time_lag_seconds', queen.lag_seconds(l.next_at, v_now),
             'lag_hours', round(queen.lag_seconds(l.next_at, v_now) / 3600.0, 2),
             'oldest_unconsumed_at', queen.iso_millis(l.next_at),
             'last_consumed_at', queen.iso_millis(l.last_consumed_at))
             ORDER BY l.next_at, l.consumer_group, l.queue_name, l.partition_name), '[]'::jsonb)
      FROM queen.cursor_lags(p_tenant) l
     WHERE l.next_at <= v_now - p_min_lag_seconds * interval '1 second');
END;
$function$;
COMMENT ON FUNCTION queen.lagging_consumer_groups(bigint,text,timestamp with time zone) IS
  'GET /api/v1/consumer-groups/lagging: the cursor rows of tenant p_tenant whose oldest unconsumed message is at least p_min_lag_seconds old at p_now, most lagging first, as snake_case objects. 22023 on a negative p_min_lag_seconds.';

CREATE OR REPLACE FUNCTION queen.consumer_group_detail(p_group text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(jsonb_object_agg(x.queue_name, jsonb_build_object('partitions', x.partitions)), '{}'::jsonb)
    FROM (SELECT l.queue_name,
                 jsonb_agg(jsonb_build_object(
                   'partition', l.partition_name,
                   'workerId', CASE WHEN l.lease_expires_at > coalesce(p_now, now()) THEN l.lease_id END,
                   'lastConsumedAt', queen.iso_millis(l.last_consumed_at),
                   'totalConsumed', l.total_consumed,
                   'offsetLag', l.offset_lag,
                   'timeLagSeconds', queen.lag_seconds(l.next_at, coalesce(p_now, now())),
                   'leaseActive', coalesce(l.lease_expires_at > coalesce(p_now, now()), false))
                   ORDER BY l.partition_name) AS partitions
            FROM queen.cursor_lags(p_tenant, p_group) l
           GROUP BY l.queue_name) x
$function$;
COMMENT ON FUNCTION queen.consumer_group_detail(text,text,timestamp with time zone) IS
  'GET /api/v1/consumer-groups/:group: {queue: {partitions: [...]}} over the queues of tenant p_tenant where group p_group has cursor rows; {} for an unknown group.';

CREATE OR REPLACE FUNCTION queen.lock_group_queues(p_queue_ids uuid[], p_group text)
 RETURNS uuid[]
 LANGUAGE sql
AS $function$
  SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}')
    FROM (SELECT q.id FROM queen.queues q
           WHERE q.id = ANY (p_queue_ids)
             AND (EXISTS (SELECT 1 FROM queen.consumer_groups g WHERE g.queue_id = q.id AND g.consumer_group = p_group)
                  OR EXISTS (SELECT 1 FROM queen.consumers c WHERE c.queue_id = q.id AND c.consumer_group = p_group))
           ORDER BY q.id FOR UPDATE OF q) x
$function$;
COMMENT ON FUNCTION queen.lock_group_queues(uuid[],text) IS
  'The queues among p_queue_ids where group p_group is registered or has cursor rows, locked FOR UPDATE in id order.';

CREATE OR REPLACE FUNCTION queen.delete_consumer_group(p_group text, p_queue text, p_delete_metadata boolean, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_queue_ids uuid[];
  v_deleted int;
BEGIN
  IF coalesce(p_group, '') = '' THEN
    RAISE EXCEPTION 'consumer group is required' USING ERRCODE = '22023';
  END IF;
  IF p_queue = '' THEN
    RAISE EXCEPTION 'queue must not be empty' USING ERRCODE = '22023';
  END IF;
  v_queue_ids := ARRAY(SELECT q.id FROM queen.queues q
                        WHERE q.tenant = queen.tenant_arg(p_tenant) AND (p_queue IS NULL OR q.name = p_queue));
  PERFORM queen.lock_group_queues(v_queue_ids, p_group);
  -- The cursor rows and the registry go together: a registered group without cursor
  -- rows would never be offered a partition. The next pop by this name registers it
  -- again, at the start point its subscription (or the pop's parameters) gives.
  DELETE FROM queen.consumers c WHERE c.queue_id = ANY (v_queue_ids) AND c.consumer_group = p_group;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  DELETE FROM queen.consumer_groups g WHERE g.queue_id = ANY (v_queue_ids) AND g.consumer_group = p_group;
  IF coalesce(p_delete_metadata, true) THEN
    DELETE FROM queen.subscriptions s
     WHERE s.consumer_group = p_group
       AND (s.queue_id = ANY (v_queue_ids)
            OR (p_queue IS NULL AND s.queue_id IS NULL AND s.tenant = queen.tenant_arg(p_tenant)));
  END IF;
  RETURN v_deleted;
END;
$function$;
COMMENT ON FUNCTION queen.delete_consumer_group(text,text,boolean,text) IS
  'Removes group p_group from queue p_queue (null = every queue) of tenant p_tenant: its cursor rows (and so its leases) and its registration; with p_delete_metadata also its subscription records (with p_queue null, its namespace/task records of the tenant too). Returns the number of cursor rows removed (0 for an unknown group or queue). 22023 on an empty group or queue name.';

CREATE OR REPLACE FUNCTION queen.set_subscription_start(p_group text, p_start_at timestamp with time zone, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_updated int;
BEGIN
  IF coalesce(p_group, '') = '' THEN
    RAISE EXCEPTION 'consumer group is required' USING ERRCODE = '22023';
  END IF;
  IF p_start_at IS NULL THEN
    RAISE EXCEPTION 'subscription timestamp is required' USING ERRCODE = '22023';
  END IF;
  UPDATE queen.subscriptions s
     SET start_at = p_start_at, mode = 'timestamp'
   WHERE s.consumer_group = p_group
     AND (s.queue_id IN (SELECT q.id FROM queen.queues q WHERE q.tenant = queen.tenant_arg(p_tenant))
          OR (s.queue_id IS NULL AND s.tenant = queen.tenant_arg(p_tenant)));
  GET DIAGNOSTICS v_updated = ROW_COUNT;
  RETURN v_updated;
END;
$function$;
COMMENT ON FUNCTION queen.set_subscription_start(text,timestamp with time zone,text) IS
  'POST /api/v1/consumer-groups/:group/subscription: every subscription record of group p_group in tenant p_tenant starts at p_start_at (mode timestamp). Only partitions the group has no cursor row on yet are affected. Returns the records updated. 22023 on an empty group or a null timestamp.';

CREATE OR REPLACE FUNCTION queen.move_cursors(p_group text, p_partition_ids uuid[], p_to_end boolean, p_at timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_locked uuid[];
BEGIN
  -- ascending partition order, as acks lock them, so a seek never deadlocks with an ack
  SELECT coalesce(array_agg(x.partition_id ORDER BY x.partition_id), '{}') INTO v_locked
    FROM (SELECT c.partition_id FROM queen.consumers c
           WHERE c.partition_id = ANY (p_partition_ids) AND c.consumer_group = p_group
           ORDER BY c.partition_id FOR UPDATE) x;
  UPDATE queen.consumers c
     SET cursor_seq = CASE WHEN p_to_end THEN p.last_seq
                           -- "at or before p_at" = before the next microsecond (timestamptz resolution)
                           ELSE queen.start_cursor(p.id, p.last_seq, p.last_message_at, p_at + interval '1 microsecond') END,
         pending = true,
         lease_id = NULL, lease_expires_at = NULL, lease_count = 0, lease_acked = 0, lease_max_seq = 0,
         retry_count = 0, failed_lease_id = NULL, available_at = NULL
    FROM queen.partitions p
   WHERE p.id = c.partition_id AND c.partition_id = ANY (v_locked) AND c.consumer_group = p_group;
  PERFORM queen.settle_drained(p_group, v_locked);
  RETURN cardinality(v_locked);
END;
$function$;
COMMENT ON FUNCTION queen.move_cursors(text,uuid[],boolean,timestamp with time zone) IS
  'Internal to the seek procedures: moves the cursor rows of p_group on p_partition_ids to the newest message (p_to_end) or to the last message created at or before p_at, drops their leases, marks them pending and settles those with nothing left. Returns how many rows moved.';

CREATE OR REPLACE FUNCTION queen.seek_consumer_group(p_group text, p_queue text, p_to_end boolean, p_at timestamp with time zone, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_queue_id uuid;
BEGIN
  IF coalesce(p_group, '') = '' OR coalesce(p_queue, '') = '' THEN
    RAISE EXCEPTION 'consumer group and queue are required' USING ERRCODE = '22023';
  END IF;
  IF NOT coalesce(p_to_end, false) AND p_at IS NULL THEN
    RAISE EXCEPTION 'Must specify either ''toEnd'': true or ''timestamp''' USING ERRCODE = '22023';
  END IF;
  SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.tenant = queen.tenant_arg(p_tenant) AND q.name = p_queue;
  IF v_queue_id IS NULL THEN
    RETURN 0;
  END IF;
  RETURN queen.move_cursors(p_group,
                            ARRAY(SELECT c.partition_id FROM queen.consumers c
                                   WHERE c.queue_id = v_queue_id AND c.consumer_group = p_group),
                            coalesce(p_to_end, false), p_at);
END;
$function$;
COMMENT ON FUNCTION queen.seek_consumer_group(text,text,boolean,timestamp with time zone,text) IS
  'POST /api/v1/consumer-groups/:group/queues/:queue/seek: on every partition of queue p_queue (tenant p_tenant) where group p_group has a cursor row, puts the cursor at the newest message (p_to_end) or on the last message created at or before p_at (nothing consumed when there is none), dropping leases, in one transaction. The next pop sees re-exposed messages. Returns the partitions moved (0 for an unknown queue or group). 22023 on a missing group/queue or neither p_to_end nor p_at.';

CREATE OR REPLACE FUNCTION queen.seek_partition_to_end(p_group text, p_queue text, p_partition text, p_tenant text)
 RETURNS TABLE(partition_found boolean, cursor_moved_to timestamp with time zone)
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_partition record;
BEGIN
  IF coalesce(p_group, '') = '' OR coalesce(p_queue, '') = '' OR coalesce(p_partition, '') = '' THEN
    RAISE EXCEPTION 'consumer group, queue and partition are required' USING ERRCODE = '22023';
  END IF;
  SELECT p.id, p.queue_id, p.last_seq INTO v_partition
    FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id AND p.name = p_partition
   WHERE q.tenant = queen.tenant_arg(p_tenant) AND q.name = p_queue;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, NULL::timestamptz;
    RETURN;
  END IF;
  -- A group without a cursor row here gets one (it then skips what the partition holds).
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  VALUES (v_partition.id, p_group, v_partition.queue_id, v_partition.last_seq)
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;
  PERFORM queen.move_cursors(p_group, ARRAY[v_partition.id], true, NULL);
  RETURN QUERY
    SELECT true, (SELECT m.created_at FROM queen.consumers c
                    JOIN queen.messages m ON m.partition_id = c.partition_id AND m.seq = c.cursor_seq
                   WHERE c.partition_id = v_partition.id AND c.consumer_group = p_group);
END;
$function$;
COMMENT ON FUNCTION queen.seek_partition_to_end(text,text,text,text) IS
  'POST /api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek: puts group p_group''s cursor on partition p_partition of queue p_queue (tenant p_tenant) at its newest message (creating the cursor row if the group has none there), dropping the lease. Returns (false, null) for an unknown queue or partition, else (true, creation time of the message the cursor is on; null for an empty partition). 22023 on a missing name.';

COMMIT;
