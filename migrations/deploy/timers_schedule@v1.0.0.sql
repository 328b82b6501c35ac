-- Deploy queen:timers_schedule to pg (release 1.0.0, a rework of timers_schedule@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- timers_schedule@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.check_schedule_items(jsonb),
  queen.parse_schedule_items(jsonb,text),
  queen.insert_new_timers(queen.schedule_item[],text,text),
  queen.schedule_messages(jsonb,text,text);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.check_schedule_items(p_items jsonb)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_missing int;
BEGIN
  PERFORM queen_internal.check_push_items(p_items);
  SELECT min(x.ord - 1) INTO v_missing
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
   WHERE queen_internal.push_item_deliver_at(x.e, (x.ord - 1)::int) IS NULL;
  IF v_missing IS NOT NULL THEN
    RAISE EXCEPTION 'push item %: deliverAt is required to schedule a message', v_missing USING ERRCODE = '22023';
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.check_schedule_items(jsonb) IS
  'Internal to schedule_messages: check_push_items plus a deliverAt on every item; 22023 naming the first bad item.';

CREATE OR REPLACE FUNCTION queen_internal.parse_schedule_items(p_items jsonb, p_tenant text)
 RETURNS queen.schedule_item[]
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN (
    SELECT array_agg(ROW(n.idx, n.queue_name, n.partition_name, n.transaction_id, n.deliver_at, n.payload,
                         n.trace_id, n.is_encrypted, n.namespace, n.task, n.occurrence,
                         queen_internal.uuid_v7(), n.refused)::queen.schedule_item ORDER BY n.idx)
      FROM (SELECT i.*,
                   row_number() OVER (PARTITION BY i.queue_name, i.partition_name, i.transaction_id ORDER BY i.idx)
                     AS occurrence,
                   -- as in store_messages (docs/encryption.md): the whole partition is refused
                   coalesce((SELECT q.encryption_enabled FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = i.queue_name), false)
                     AND bool_or(NOT i.is_encrypted AND i.key_held) OVER (PARTITION BY i.queue_name, i.partition_name)
                     AS refused
        FROM (SELECT (x.ord - 1)::int AS idx,
                     x.e ->> 'queue' AS queue_name,
                     queen_internal.push_item_partition(x.e) AS partition_name,
                     coalesce(nullif(x.e ->> 'transactionId', ''), queen_internal.uuid_v7()::text) AS transaction_id,
                     queen_internal.push_item_deliver_at(x.e) AS deliver_at,
                     coalesce(x.e -> 'payload', '{}'::jsonb) AS payload,
                     nullif(x.e ->> 'traceId', '')::uuid AS trace_id,
                     coalesce((x.e ->> 'encrypted')::bool, false) AS is_encrypted,
                     coalesce((x.e ->> 'keyHeld')::bool, false) AS key_held,
                     nullif(x.e ->> 'namespace', '') AS namespace,
                     nullif(x.e ->> 'task', '') AS task
                FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)) i) n
  );
END;
$function$;
COMMENT ON FUNCTION queen_internal.parse_schedule_items(jsonb,text) IS
  'Internal to schedule_messages: push items with deliverAt as queen.schedule_item rows (occurrence of the key in the call, new message id, refused) in item order.';

CREATE OR REPLACE FUNCTION queen_internal.insert_new_timers(p_items queen.schedule_item[], p_tenant text, p_producer_sub text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO queen.timers (tenant, queue_name, partition_name, namespace, task, message_id, transaction_id,
                            payload, trace_id, producer_sub, is_encrypted, deliver_at)
  SELECT p_tenant, s.queue_name, s.partition_name, s.namespace, s.task, s.new_message_id, s.transaction_id,
         s.payload, s.trace_id, p_producer_sub, s.is_encrypted, s.deliver_at
    FROM unnest(p_items) s
    LEFT JOIN queen.queues q ON q.tenant = p_tenant AND q.name = s.queue_name
    LEFT JOIN queen.partitions p ON p.queue_id = q.id AND p.name = s.partition_name
   WHERE s.occurrence = 1 AND NOT s.refused
     AND NOT EXISTS (SELECT 1 FROM queen.messages m
                      WHERE m.partition_id = p.id AND m.transaction_id = s.transaction_id)
     AND NOT EXISTS (SELECT 1 FROM queen.dedup_tombstones t
                      WHERE t.partition_id = p.id AND t.transaction_id = s.transaction_id
                        AND t.expires_at > clock_timestamp())
   ORDER BY s.idx
  ON CONFLICT ON CONSTRAINT timers_queue_partition_transaction_key DO NOTHING;
END;
$function$;
COMMENT ON FUNCTION queen_internal.insert_new_timers(queen.schedule_item[],text,text) IS
  'Internal to schedule_messages: inserts the timers of the items whose key is new (not a pending timer, stored message or live tombstone of tenant p_tenant''s partition, nor an earlier item of the call).';

CREATE OR REPLACE FUNCTION queen_internal.schedule_messages(p_items jsonb, p_producer_sub text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS SETOF queen.push_result
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_tenant  text := queen_internal.tenant_arg(p_tenant);
  v_items   queen.schedule_item[];
BEGIN
  PERFORM queen_internal.check_schedule_items(p_items);
  v_items := queen_internal.parse_schedule_items(p_items, v_tenant);
  IF v_items IS NULL THEN
    RETURN;  -- an empty array
  END IF;

  PERFORM queen_internal.insert_new_timers(v_items, v_tenant, p_producer_sub);

  -- A new statement, so it sees timers committed by a concurrent winner too.
  -- queued: the timer row holds this item's own id. Everything else is a
  -- duplicate answered with the winning id (a timer, a stored message or a tombstone).
  RETURN QUERY
  SELECT s.idx,
         CASE WHEN s.refused THEN 'encryption_required'
              WHEN t.message_id = s.new_message_id THEN 'queued' ELSE 'duplicate' END,
         -- scalar probes on both key columns, as in store_messages: a cached join plan could
         -- probe by partition alone
         CASE WHEN NOT s.refused
              THEN coalesce(t.message_id,
                            (SELECT m.id FROM queen.messages m
                              WHERE m.partition_id = p.id AND m.transaction_id = s.transaction_id),
                            (SELECT d.message_id FROM queen.dedup_tombstones d
                              WHERE d.partition_id = p.id AND d.transaction_id = s.transaction_id
                                AND d.expires_at > clock_timestamp())) END,
         s.transaction_id, p.id, s.queue_name, s.partition_name,
         CASE WHEN s.refused
              THEN format('queue %s has encryptionEnabled: plaintext refused, the broker must encrypt', s.queue_name)
         END
    FROM unnest(v_items) s
    LEFT JOIN queen.timers t
           ON t.tenant = v_tenant AND t.queue_name = s.queue_name AND t.partition_name = s.partition_name
          AND t.transaction_id = s.transaction_id
    LEFT JOIN queen.queues q ON q.tenant = v_tenant AND q.name = s.queue_name
    LEFT JOIN queen.partitions p ON p.queue_id = q.id AND p.name = s.partition_name
   ORDER BY s.idx;
END;
$function$;
COMMENT ON FUNCTION queen_internal.schedule_messages(jsonb,text,text) IS
  'Schedules for tenant p_tenant ('''' = default) push items that carry deliverAt (ISO-8601 or epoch ms) as timers, fired into the queue at or after that time. Same result columns as push_messages: queued (message_id = the id the message will have) or duplicate (a pending timer, stored message or live tombstone has the transactionId in that queue/partition, or an earlier item of the call), or encryption_required as in store_messages. partition_id is null until the partition exists. 22023 on a malformed item or a missing/unparsable deliverAt.';

RESET ROLE;

COMMIT;
