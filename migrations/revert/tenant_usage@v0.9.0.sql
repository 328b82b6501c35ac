-- Revert queen:tenant_usage from pg
BEGIN;
DROP TRIGGER consumer_groups_usage_give_back ON queen.consumer_groups;
DROP TRIGGER partitions_usage_give_back ON queen.partitions;
DROP TRIGGER queues_usage_give_back ON queen.queues;
DROP TRIGGER message_traces_usage_give_back ON queen.message_traces;
DROP TRIGGER kv_usage_give_back ON queen.kv;
DROP TRIGGER consumer_groups_usage_growth ON queen.consumer_groups;
DROP TRIGGER partitions_usage_growth ON queen.partitions;
DROP TRIGGER queues_usage_growth ON queen.queues;
DROP TRIGGER message_traces_usage_growth ON queen.message_traces;
DROP TRIGGER kv_usage_growth ON queen.kv;
DROP TRIGGER message_traces_counted_bytes ON queen.message_traces;
DROP TRIGGER kv_counted_bytes ON queen.kv;
DROP FUNCTION queen.queue_child_give_back();
DROP FUNCTION queen.queue_give_back();
DROP FUNCTION queen.trace_give_back();
DROP FUNCTION queen.kv_give_back();
DROP FUNCTION queen.count_growth();
DROP FUNCTION queen.set_counted_bytes();
DROP FUNCTION queen.add_tenant_usage(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bool);
DROP FUNCTION queen.tenant_usage_of(text);
DROP FUNCTION queen.check_tenant_quota(text, text, bigint);
DROP FUNCTION queen.tenant_quota_limit(text, text);
DROP FUNCTION queen.storage_quota_names();
DROP FUNCTION queen.tenant_usage_stripes();
DROP TABLE queen.tenant_usage;
ALTER TABLE queen.message_traces DROP COLUMN counted_bytes;
ALTER TABLE queen.kv DROP COLUMN counted_bytes;

-- queen:tenant_quotas' functions and table as they were.
DROP FUNCTION queen.tenant_quota_state(text);
CREATE FUNCTION queen.tenant_quota_state(p_tenant text,
                                         OUT max_pending bigint, OUT push_rate double precision,
                                         OUT push_burst int, OUT pending bigint, OUT counted_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT t.max_pending, t.push_rate, t.push_burst, st.pending, st.counted_at
    FROM (SELECT coalesce(sum(s.pending), 0)::bigint AS pending, max(s.updated_at) AS counted_at
            FROM queen.queues q JOIN queen.queue_stats s ON s.queue_id = q.id
           WHERE q.tenant = queen.tenant_arg(p_tenant)) st
    LEFT JOIN queen.tenant_quotas t ON t.tenant = queen.tenant_arg(p_tenant)
$$;
COMMENT ON FUNCTION queen.tenant_quota_state(text) IS
  'Quota overrides of tenant p_tenant (nulls when none), its pending messages summed from queen.queue_stats (as fresh as the statistics reconciler left them) and counted_at, the newest refresh among those rows (null: none yet).';

DROP FUNCTION queen.set_tenant_quota(text, bigint, double precision, int, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint);
CREATE FUNCTION queen.set_tenant_quota(p_tenant text, p_max_pending bigint DEFAULT NULL,
                                       p_push_rate double precision DEFAULT NULL, p_push_burst int DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_tenant text := queen.tenant_arg(p_tenant);
BEGIN
  IF p_max_pending < 0 OR p_push_rate < 0 OR p_push_burst < 0 THEN
    RAISE EXCEPTION 'tenant quotas must not be negative' USING ERRCODE = '22023';
  END IF;
  IF p_max_pending IS NULL AND p_push_rate IS NULL AND p_push_burst IS NULL THEN
    DELETE FROM queen.tenant_quotas t WHERE t.tenant = v_tenant;
    RETURN;
  END IF;
  INSERT INTO queen.tenant_quotas AS t (tenant, max_pending, push_rate, push_burst, updated_at)
  VALUES (v_tenant, p_max_pending, p_push_rate, p_push_burst, now())
  ON CONFLICT (tenant) DO UPDATE
     SET max_pending = EXCLUDED.max_pending, push_rate = EXCLUDED.push_rate, push_burst = EXCLUDED.push_burst,
         updated_at = EXCLUDED.updated_at;
END;
$$;
COMMENT ON FUNCTION queen.set_tenant_quota(text, bigint, double precision, int) IS
  'Sets the quota overrides of tenant p_tenant ('''' = default): null = the broker default, 0 = unlimited; all null removes the overrides. Brokers see a change within their quota cache time. 22023 on a negative value.';

ALTER TABLE queen.tenant_quotas DROP CONSTRAINT tenant_quotas_storage_not_negative,
  DROP COLUMN max_kv_keys, DROP COLUMN max_kv_bytes, DROP COLUMN max_traces, DROP COLUMN max_trace_bytes,
  DROP COLUMN max_dead_letters, DROP COLUMN max_queues, DROP COLUMN max_partitions, DROP COLUMN max_consumer_groups;
COMMIT;
