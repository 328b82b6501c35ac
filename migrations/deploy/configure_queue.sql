-- Deploy queen:configure_queue to pg (release 1.0.0, a rework of configure_queue@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- configure_queue@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.option_int(jsonb,text,integer,integer),
  queen.option_bool(jsonb,text,boolean),
  queen.queue_options_json(queen.queues),
  queen.configure_queue(text,text,text,jsonb,text);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.option_int(p_options jsonb, p_key text, p_default integer, p_min integer DEFAULT 0)
 RETURNS integer
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  v_value jsonb := p_options -> p_key;
  v_number numeric;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN p_default;
  END IF;
  IF jsonb_typeof(v_value) <> 'number' THEN
    RAISE EXCEPTION 'option % must be an integer, got %', p_key, v_value USING ERRCODE = '22023';
  END IF;
  v_number := v_value::text::numeric;
  IF v_number <> trunc(v_number) OR v_number NOT BETWEEN -2147483648 AND 2147483647 THEN
    RAISE EXCEPTION 'option % must be an integer, got %', p_key, v_value USING ERRCODE = '22023';
  END IF;
  IF p_min IS NOT NULL THEN
    PERFORM queen_internal.check_at_least('option ' || p_key, v_number::bigint, p_min);
  END IF;
  RETURN v_number::int;
END;
$function$;
COMMENT ON FUNCTION queen_internal.option_int(jsonb,text,integer,integer) IS
  'Integer option p_key of a configure options object: default when absent/null, 22023 when not an integer or below p_min.';

CREATE OR REPLACE FUNCTION queen_internal.option_bool(p_options jsonb, p_key text, p_default boolean)
 RETURNS boolean
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  v_value jsonb := p_options -> p_key;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN p_default;
  END IF;
  IF jsonb_typeof(v_value) <> 'boolean' THEN
    RAISE EXCEPTION 'option % must be a boolean, got %', p_key, v_value USING ERRCODE = '22023';
  END IF;
  RETURN v_value::text::bool;
END;
$function$;
COMMENT ON FUNCTION queen_internal.option_bool(jsonb,text,boolean) IS
  'Boolean option p_key of a configure options object: default when absent/null, 22023 when not a JSON boolean.';

CREATE OR REPLACE FUNCTION queen_internal.queue_options_json(q queen.queues)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object(
    'leaseTime', q.lease_time,
    'retryLimit', q.retry_limit,
    'retryDelay', q.retry_delay_ms,
    'priority', q.priority,
    'delayedProcessing', q.delayed_processing,
    'windowBuffer', q.window_buffer,
    'maxSize', q.max_size,
    'ttl', q.ttl,
    'retentionEnabled', q.retention_enabled,
    'retentionSeconds', q.retention_seconds,
    'completedRetentionSeconds', q.completed_retention_seconds,
    'maxWaitTimeSeconds', q.max_wait_time_seconds,
    'deadLetterQueue', q.dead_letter_queue,
    'dlqAfterMaxRetries', q.dlq_after_max_retries,
    'encryptionEnabled', q.encryption_enabled)
$function$;
COMMENT ON FUNCTION queen_internal.queue_options_json(queen.queues) IS
  'The 15 configure options of a queue as a camelCase JSON object with numbers and booleans.';

CREATE OR REPLACE FUNCTION queen.configure_queue(p_queue text, p_namespace text, p_task text, p_options jsonb, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_options jsonb := coalesce(p_options, '{}'::jsonb);
  v_queue queen.queues;
  v_partition_id uuid;
BEGIN
  IF p_queue IS NULL OR p_queue = '' THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  IF queen_internal.name_problem(p_queue) IS NOT NULL THEN
    RAISE EXCEPTION 'queue name %', queen_internal.name_problem(p_queue) USING ERRCODE = '22023';
  END IF;
  IF jsonb_typeof(v_options) = 'null' THEN
    v_options := '{}'::jsonb;
  ELSIF jsonb_typeof(v_options) <> 'object' THEN
    RAISE EXCEPTION 'options must be an object' USING ERRCODE = '22023';
  END IF;

  -- Full replace: every option absent from p_options goes back to its default.
  INSERT INTO queen.queues AS q (
    tenant, name, namespace, task, lease_time, retry_limit, retry_delay_ms, priority, delayed_processing,
    window_buffer, max_size, ttl, retention_enabled, retention_seconds, completed_retention_seconds,
    max_wait_time_seconds, dead_letter_queue, dlq_after_max_retries, encryption_enabled)
  VALUES (
    v_tenant, p_queue, coalesce(p_namespace, ''), coalesce(p_task, ''),
    queen_internal.option_int(v_options, 'leaseTime', 300),
    queen_internal.option_int(v_options, 'retryLimit', 3),
    queen_internal.option_int(v_options, 'retryDelay', 1000),
    queen_internal.option_int(v_options, 'priority', 0, NULL),
    queen_internal.option_int(v_options, 'delayedProcessing', 0),
    queen_internal.option_int(v_options, 'windowBuffer', 0),
    queen_internal.option_int(v_options, 'maxSize', 0),
    queen_internal.option_int(v_options, 'ttl', 3600),
    queen_internal.option_bool(v_options, 'retentionEnabled', false),
    queen_internal.option_int(v_options, 'retentionSeconds', 0),
    queen_internal.option_int(v_options, 'completedRetentionSeconds', 0),
    queen_internal.option_int(v_options, 'maxWaitTimeSeconds', 0),
    queen_internal.option_bool(v_options, 'deadLetterQueue', false),
    queen_internal.option_bool(v_options, 'dlqAfterMaxRetries', false),
    queen_internal.option_bool(v_options, 'encryptionEnabled', false))
  ON CONFLICT ON CONSTRAINT queues_tenant_name_key DO UPDATE SET
    namespace = EXCLUDED.namespace, task = EXCLUDED.task,
    lease_time = EXCLUDED.lease_time, retry_limit = EXCLUDED.retry_limit,
    retry_delay_ms = EXCLUDED.retry_delay_ms, priority = EXCLUDED.priority,
    delayed_processing = EXCLUDED.delayed_processing, window_buffer = EXCLUDED.window_buffer,
    max_size = EXCLUDED.max_size, ttl = EXCLUDED.ttl, retention_enabled = EXCLUDED.retention_enabled,
    retention_seconds = EXCLUDED.retention_seconds,
    completed_retention_seconds = EXCLUDED.completed_retention_seconds,
    max_wait_time_seconds = EXCLUDED.max_wait_time_seconds,
    dead_letter_queue = EXCLUDED.dead_letter_queue, dlq_after_max_retries = EXCLUDED.dlq_after_max_retries,
    encryption_enabled = EXCLUDED.encryption_enabled, updated_at = now()
  RETURNING * INTO v_queue;

  INSERT INTO queen.partitions (queue_id, name) VALUES (v_queue.id, 'Default')
  ON CONFLICT ON CONSTRAINT partitions_queue_name_key DO NOTHING
  RETURNING id INTO v_partition_id;
  IF v_partition_id IS NOT NULL THEN
    -- a statement of its own, see add_partition_cursors
    PERFORM queen_internal.add_partition_cursors(ARRAY[v_partition_id]);
  ELSE
    SELECT p.id INTO v_partition_id FROM queen.partitions p WHERE p.queue_id = v_queue.id AND p.name = 'Default';
  END IF;

  RETURN jsonb_build_object(
    'queueId', v_queue.id,
    'partitionId', v_partition_id,
    'namespace', v_queue.namespace,
    'task', v_queue.task,
    'options', queen_internal.queue_options_json(v_queue));
END;
$function$;
COMMENT ON FUNCTION queen.configure_queue(text,text,text,jsonb,text) IS
  'Creates or fully replaces queue p_queue of tenant p_tenant ('''' = default) (options absent from p_options reset to defaults; unknown keys ignored) and its Default partition. Returns {queueId, partitionId (Default), namespace, task, options (all 15, camelCase)}. 22023 on a missing queue name or a mistyped option.';

RESET ROLE;

COMMIT;
