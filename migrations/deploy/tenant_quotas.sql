-- Deploy queen:tenant_quotas to pg
-- Per-tenant push quotas (docs/tenants.md): a DBA's overrides of the broker's
-- QUEEN_TENANT_* defaults, and what a broker reads to enforce them.
BEGIN;

-- A null column means "the broker's default" (QUEEN_TENANT_MAX_PENDING,
-- QUEEN_TENANT_PUSH_RATE, QUEEN_TENANT_PUSH_BURST); 0 means unlimited.
CREATE TABLE queen.tenant_quotas (
  tenant      queen.tenant_text PRIMARY KEY,
  max_pending bigint,            -- pending messages over all the tenant's queues
  push_rate   double precision,  -- messages per second, per broker process
  push_burst  int,               -- token bucket size, messages
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tenant_quotas_not_negative CHECK (max_pending >= 0 AND push_rate >= 0 AND push_burst >= 0)
);
COMMENT ON TABLE queen.tenant_quotas IS
  'Per-tenant overrides of the broker quota defaults: null = the broker default, 0 = unlimited. Written by queen.set_tenant_quota, read by brokers through queen.tenant_quota_state (cached).';

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

-- What a broker needs to enforce one tenant's quotas: the overrides and the
-- tenant's pending messages as the statistics reconciler last counted them
-- (queen.queue_stats: one row per queue, no message is counted here).
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

COMMIT;
