-- Revert queen:dlq_admin from pg (back to dlq_admin@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.dlq_admin_max_per_call(),
  queen_internal.requeued_transaction_id(text,uuid),
  queen_internal.select_dead_letters(text,text,text,timestamp with time zone,timestamp with time zone,uuid,integer,text),
  queen.delete_dead_letters(text,text,text,timestamp with time zone,timestamp with time zone,uuid,text),
  queen.retry_dead_message(uuid,text,text);

CREATE OR REPLACE FUNCTION queen.dlq_admin_max_per_call()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT 1000 $function$;
COMMENT ON FUNCTION queen.dlq_admin_max_per_call() IS
  'The most DLQ entries one requeue or delete call handles: 1000.';

CREATE OR REPLACE FUNCTION queen.requeued_transaction_id(p_transaction_id text, p_message_id uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT left(p_transaction_id, 200) || '~requeue~' || p_message_id::text
$function$;
COMMENT ON FUNCTION queen.requeued_transaction_id(text,uuid) IS
  'transactionId of the requeued copy of dead message p_message_id: left(original, 200) || ''~requeue~'' || message id.';

CREATE OR REPLACE FUNCTION queen.select_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_limit integer, p_tenant text)
 RETURNS TABLE(message_id uuid, consumer_group text)
 LANGUAGE sql
AS $function$
  -- FOR UPDATE cannot name a function's rows: the matching keys are chosen first, then locked
  SELECT d.message_id, d.consumer_group::text
    FROM queen.dlq d
   WHERE (d.message_id, d.consumer_group::text) IN
         (SELECT f.message_id, f.consumer_group
            FROM queen.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, p_message_id) f
           ORDER BY f.failed_at, f.message_id, f.consumer_group
           LIMIT p_limit)
   ORDER BY d.failed_at, d.message_id, d.consumer_group
     FOR UPDATE OF d
$function$;
COMMENT ON FUNCTION queen.select_dead_letters(text,text,text,timestamp with time zone,timestamp with time zone,uuid,integer,text) IS
  'Internal to requeue_dead_letters/delete_dead_letters: the matching DLQ keys of tenant p_tenant, oldest failure first, at most p_limit, row-locked.';

CREATE OR REPLACE FUNCTION queen.delete_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_deleted int;
BEGIN
  IF p_queue IS NULL AND p_message_id IS NULL THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  DELETE FROM queen.dlq d
   USING queen.select_dead_letters(p_queue, p_group, p_partition, p_from, p_to, p_message_id,
                                   queen.dlq_admin_max_per_call(), p_tenant) k
   WHERE d.message_id = k.message_id AND d.consumer_group = k.consumer_group;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END;
$function$;
COMMENT ON FUNCTION queen.delete_dead_letters(text,text,text,timestamp with time zone,timestamp with time zone,uuid,text) IS
  'Deletes up to dlq_admin_max_per_call() DLQ entries of tenant p_tenant matching the filters (as requeue_dead_letters; the messages themselves stay), oldest failure first; returns how many. 22023 without queue and message id.';

CREATE OR REPLACE FUNCTION queen.retry_dead_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_message_id uuid;
  v_result jsonb;
BEGIN
  SELECT d.message_id INTO v_message_id
    FROM queen.dlq d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen.tenant_arg(p_tenant)
   WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id
   LIMIT 1;
  IF v_message_id IS NULL THEN
    RETURN NULL;
  END IF;
  v_result := queen.requeue_dead_letters(p_message_id => v_message_id, p_tenant => p_tenant, p_queue => NULL, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL);
  IF (v_result ->> 'requeued')::int = 0 THEN
    RAISE EXCEPTION 'the requeued copy was refused (queue full: maxSize reached)' USING ERRCODE = '22023';
  END IF;
  RETURN jsonb_build_object('messageId', (SELECT m.id FROM queen.messages m
                                           WHERE m.partition_id = p_partition_id
                                             AND m.transaction_id = queen.requeued_transaction_id(p_transaction_id, v_message_id)),
                            'queues', v_result -> 'queues');
END;
$function$;
COMMENT ON FUNCTION queen.retry_dead_message(uuid,text,text) IS
  'Requeues (requeue_dead_letters) every DLQ entry of the message (p_partition_id, p_transaction_id) of tenant p_tenant; returns {"messageId": the new message''s id, "queues": [...]}, null when the message has no DLQ entry. 22023 when maxSize refuses the copy.';

COMMIT;
