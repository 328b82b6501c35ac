CREATE OR REPLACE FUNCTION queen_internal.parse_schedule_items(p_items jsonb, p_tenant text)
 RETURNS queen.schedule_item[]
 LANGUAGE plpgsql AS $function$
BEGIN
  RETURN (
    SELECT array_agg(ROW(n.idx, n.queue_name, n.partition_name, n.transaction_id, n.deliver_at, n.payload,
                         n.trace_id, n.is_encrypted, n.namespace, n.task, n.occurrence,
                         queen_internal.uuid_v7(), n.refused)::queen.schedule_item ORDER BY n.idx)
      FROM (SELECT i.*,
                   row_number() OVER (PARTITION BY i.queue_name, i.partition_name, i.transaction_id ORDER BY i.idx)
                     AS occurrence,
                   -- as in store_messages (docs/encryption.md): a keyHeld plaintext item refuses its whole
                   -- partition, any other plaintext item itself
                   coalesce((SELECT q.encryption_enabled FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = i.queue_name), false)
                     AND (NOT i.is_encrypted
                          OR bool_or(NOT i.is_encrypted AND i.key_held) OVER (PARTITION BY i.queue_name, i.partition_name))
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

COMMENT ON FUNCTION queen_internal.parse_schedule_items(p_items jsonb, p_tenant text) IS 'Internal to schedule_messages: push items with deliverAt as queen.schedule_item rows (occurrence of the key in the call, new message id, refused) in item order.';
