-- Deploy queen:tenant_usage to pg (release 1.0.0, a rework of tenant_usage@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- tenant_usage@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

-- What refers to the functions replaced below.
DROP TRIGGER kv_counted_bytes ON queen.kv;
DROP TRIGGER message_traces_counted_bytes ON queen.message_traces;
DROP TRIGGER kv_usage_growth ON queen.kv;
DROP TRIGGER message_traces_usage_growth ON queen.message_traces;
DROP TRIGGER queues_usage_growth ON queen.queues;
DROP TRIGGER partitions_usage_growth ON queen.partitions;
DROP TRIGGER consumer_groups_usage_growth ON queen.consumer_groups;
DROP TRIGGER kv_usage_give_back ON queen.kv;
DROP TRIGGER message_traces_usage_give_back ON queen.message_traces;
DROP TRIGGER queues_usage_give_back ON queen.queues;
DROP TRIGGER partitions_usage_give_back ON queen.partitions;
DROP TRIGGER consumer_groups_usage_give_back ON queen.consumer_groups;

DROP FUNCTION
  queen.tenant_usage_stripes(),
  queen.storage_quota_names(),
  queen.tenant_quota_limit(text,text),
  queen.check_tenant_quota(text,text,bigint),
  queen.add_tenant_usage(text,bigint,bigint,bigint,bigint,bigint,bigint,bigint,boolean),
  queen.tenant_usage_of(text),
  queen.set_counted_bytes(),
  queen.count_growth(),
  queen.kv_give_back(),
  queen.trace_give_back(),
  queen.queue_give_back(),
  queen.queue_child_give_back(),
  queen.set_tenant_quota(text,bigint,double precision,integer,bigint,bigint,bigint,bigint,bigint,bigint,bigint,bigint),
  queen.tenant_quota_state(text);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.tenant_usage_stripes()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT 16 $function$;
COMMENT ON FUNCTION queen_internal.tenant_usage_stripes() IS
  'Stripes per tenant for growth (0-15, by session) and as many for give-back (16-31): at most 32 usage rows a tenant.';

CREATE OR REPLACE FUNCTION queen_internal.storage_quota_names()
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT ARRAY['kv_keys', 'kv_bytes', 'traces', 'trace_bytes', 'queues', 'partitions', 'consumer_groups']
$function$;
COMMENT ON FUNCTION queen_internal.storage_quota_names() IS
  'The quotas the usage triggers enforce; each has a tenant_usage column, a tenant_quotas max_<name> override and a broker variable QUEEN_TENANT_MAX_<NAME>.';

CREATE OR REPLACE FUNCTION queen_internal.tenant_quota_limit(p_tenant text, p_quota text)
 RETURNS bigint
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_override bigint;
BEGIN
  IF coalesce(current_setting('queen.tenant_quota_overrides', true), '') = 'on' THEN
    SELECT CASE p_quota
             WHEN 'kv_keys' THEN t.max_kv_keys WHEN 'kv_bytes' THEN t.max_kv_bytes
             WHEN 'traces' THEN t.max_traces WHEN 'trace_bytes' THEN t.max_trace_bytes
             WHEN 'queues' THEN t.max_queues WHEN 'partitions' THEN t.max_partitions
             WHEN 'consumer_groups' THEN t.max_consumer_groups WHEN 'dead_letters' THEN t.max_dead_letters
           END
      INTO v_override
      FROM queen.tenant_quotas t WHERE t.tenant = queen_internal.tenant_arg(p_tenant);
    IF v_override IS NOT NULL THEN
      RETURN v_override;
    END IF;
  END IF;
  RETURN coalesce(nullif(current_setting('queen.tenant_max_' || p_quota, true), '')::bigint, 0);
END;
$function$;
COMMENT ON FUNCTION queen_internal.tenant_quota_limit(text,text) IS
  'The limit of quota p_quota (a storage_quota_names() entry or dead_letters) for tenant p_tenant in this session: the tenant_quotas override when queen.tenant_quota_overrides is on and the override is set, else the session setting queen.tenant_max_<quota> (set by the broker), else 0 (unlimited).';

CREATE OR REPLACE FUNCTION queen_internal.check_tenant_quota(p_tenant text, p_quota text, p_usage bigint)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_limit bigint := queen_internal.tenant_quota_limit(p_tenant, p_quota);
BEGIN
  IF v_limit > 0 AND p_usage > v_limit THEN
    RAISE EXCEPTION '% quota of % reached (% %, QUEEN_TENANT_MAX_%)',
      CASE p_quota WHEN 'kv_keys' THEN 'KV keys' WHEN 'kv_bytes' THEN 'KV bytes' WHEN 'trace_bytes' THEN 'trace bytes'
                   ELSE replace(p_quota, '_', ' ') END,
      CASE WHEN p_tenant = '' THEN 'the default tenant' ELSE 'tenant ' || p_tenant END,
      v_limit, CASE WHEN p_quota LIKE '%bytes' THEN 'bytes' ELSE replace(p_quota, '_', ' ') END, upper(p_quota)
      USING ERRCODE = 'QQ429';
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.check_tenant_quota(text,text,bigint) IS
  'Raises SQLSTATE QQ429 ("<quota> quota of <tenant> reached (<limit> <unit>, QUEEN_TENANT_MAX_<QUOTA>)") when p_usage exceeds the tenant''s limit of p_quota; nothing when the limit is 0.';

CREATE OR REPLACE FUNCTION queen_internal.add_tenant_usage(p_tenant text, p_kv_keys bigint DEFAULT 0, p_kv_bytes bigint DEFAULT 0, p_traces bigint DEFAULT 0, p_trace_bytes bigint DEFAULT 0, p_queues bigint DEFAULT 0, p_partitions bigint DEFAULT 0, p_consumer_groups bigint DEFAULT 0, p_give_back boolean DEFAULT false)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_usage record;
  -- Growth and give-back use separate stripes (see the triggers below).
  v_stripe smallint := pg_backend_pid() % queen_internal.tenant_usage_stripes()
                       + CASE WHEN p_give_back THEN queen_internal.tenant_usage_stripes() ELSE 0 END;
BEGIN
  IF p_kv_keys = 0 AND p_kv_bytes = 0 AND p_traces = 0 AND p_trace_bytes = 0 AND p_queues = 0
     AND p_partitions = 0 AND p_consumer_groups = 0 THEN
    RETURN;
  END IF;
  INSERT INTO queen.tenant_usage AS u (tenant, stripe, kv_keys, kv_bytes, traces, trace_bytes, queues, partitions,
                                       consumer_groups)
  VALUES (p_tenant, v_stripe, p_kv_keys, p_kv_bytes, p_traces, p_trace_bytes,
          p_queues, p_partitions, p_consumer_groups)
  ON CONFLICT ON CONSTRAINT tenant_usage_pkey DO UPDATE
     SET kv_keys = u.kv_keys + EXCLUDED.kv_keys, kv_bytes = u.kv_bytes + EXCLUDED.kv_bytes,
         traces = u.traces + EXCLUDED.traces, trace_bytes = u.trace_bytes + EXCLUDED.trace_bytes,
         queues = u.queues + EXCLUDED.queues, partitions = u.partitions + EXCLUDED.partitions,
         consumer_groups = u.consumer_groups + EXCLUDED.consumer_groups;
  IF greatest(p_kv_keys, p_kv_bytes, p_traces, p_trace_bytes, p_queues, p_partitions, p_consumer_groups) <= 0 THEN
    RETURN;
  END IF;
  SELECT * INTO v_usage FROM queen.tenant_usage_of(p_tenant);
  IF p_kv_keys > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'kv_keys', v_usage.kv_keys); END IF;
  IF p_kv_bytes > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'kv_bytes', v_usage.kv_bytes); END IF;
  IF p_traces > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'traces', v_usage.traces); END IF;
  IF p_trace_bytes > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'trace_bytes', v_usage.trace_bytes); END IF;
  IF p_queues > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'queues', v_usage.queues); END IF;
  IF p_partitions > 0 THEN PERFORM queen_internal.check_tenant_quota(p_tenant, 'partitions', v_usage.partitions); END IF;
  IF p_consumer_groups > 0 THEN
    PERFORM queen_internal.check_tenant_quota(p_tenant, 'consumer_groups', v_usage.consumer_groups);
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.add_tenant_usage(text,bigint,bigint,bigint,bigint,bigint,bigint,bigint,boolean) IS
  'Internal to the usage triggers: adds the deltas to this session''s stripe of p_tenant (a give-back stripe when p_give_back) and, for every positive delta, raises QQ429 when the tenant''s usage of that quota is now past its limit (queen_internal.tenant_quota_limit).';

CREATE OR REPLACE FUNCTION queen.tenant_usage_of(p_tenant text DEFAULT ''::text, OUT kv_keys bigint, OUT kv_bytes bigint, OUT traces bigint, OUT trace_bytes bigint, OUT queues bigint, OUT partitions bigint, OUT consumer_groups bigint)
 RETURNS record
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
  SELECT coalesce(sum(u.kv_keys), 0)::bigint, coalesce(sum(u.kv_bytes), 0)::bigint,
         coalesce(sum(u.traces), 0)::bigint, coalesce(sum(u.trace_bytes), 0)::bigint,
         coalesce(sum(u.queues), 0)::bigint, coalesce(sum(u.partitions), 0)::bigint,
         coalesce(sum(u.consumer_groups), 0)::bigint
    FROM queen.tenant_usage u WHERE u.tenant = queen_internal.tenant_arg(p_tenant)
$function$;
COMMENT ON FUNCTION queen.tenant_usage_of(text) IS
  'What tenant p_tenant ('''' = default) stores now, as counted by the usage triggers: KV keys and bytes, traces and trace bytes, queues, partitions, registered consumer groups.';

CREATE OR REPLACE FUNCTION queen_internal.set_counted_bytes()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_TABLE_NAME = 'kv' THEN
    NEW.counted_bytes := octet_length(NEW.key) + pg_column_size(NEW.value);
  ELSE
    NEW.counted_bytes := pg_column_size(NEW.data);
  END IF;
  RETURN NEW;
END;
$function$;

CREATE OR REPLACE FUNCTION queen_internal.count_growth()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_tenant text;
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'kv' THEN
      IF TG_OP = 'INSERT' THEN
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_kv_keys => 1, p_kv_bytes => NEW.counted_bytes);
      ELSE
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_kv_bytes => NEW.counted_bytes - OLD.counted_bytes);
      END IF;
    WHEN 'message_traces' THEN
      IF TG_OP = 'INSERT' THEN
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_traces => 1, p_trace_bytes => NEW.counted_bytes);
      ELSE
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_trace_bytes => NEW.counted_bytes - OLD.counted_bytes);
      END IF;
    WHEN 'queues' THEN
      PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_queues => 1);
    ELSE
      -- partitions, consumer_groups: their queue's tenant.
      SELECT q.tenant INTO v_tenant FROM queen.queues q WHERE q.id = NEW.queue_id;
      IF FOUND AND TG_TABLE_NAME = 'partitions' THEN
        PERFORM queen_internal.add_tenant_usage(v_tenant, p_partitions => 1);
      ELSIF FOUND THEN
        PERFORM queen_internal.add_tenant_usage(v_tenant, p_consumer_groups => 1);
      END IF;
  END CASE;
  RETURN NULL;
END;
$function$;

CREATE OR REPLACE FUNCTION queen_internal.kv_give_back()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT o.tenant, count(*) AS keys, sum(o.counted_bytes)::bigint AS bytes
             FROM old_rows o GROUP BY o.tenant ORDER BY o.tenant LOOP
    PERFORM queen_internal.add_tenant_usage(r.tenant, p_kv_keys => -r.keys, p_kv_bytes => -r.bytes, p_give_back => true);
  END LOOP;
  RETURN NULL;
END;
$function$;

CREATE OR REPLACE FUNCTION queen_internal.trace_give_back()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM queen_internal.add_tenant_usage(OLD.tenant, p_traces => -1, p_trace_bytes => -OLD.counted_bytes, p_give_back => true);
  RETURN NULL;
END;
$function$;

CREATE OR REPLACE FUNCTION queen_internal.queue_give_back()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM queen_internal.add_tenant_usage(OLD.tenant, p_queues => -1,
            p_partitions => -(SELECT count(*) FROM queen.partitions p WHERE p.queue_id = OLD.id),
            p_consumer_groups => -(SELECT count(*) FROM queen.consumer_groups g WHERE g.queue_id = OLD.id),
            p_give_back => true);
  RETURN OLD;
END;
$function$;

CREATE OR REPLACE FUNCTION queen_internal.queue_child_give_back()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT q.tenant, count(*) AS n FROM old_rows c JOIN queen.queues q ON q.id = c.queue_id
            GROUP BY q.tenant ORDER BY q.tenant LOOP
    IF TG_TABLE_NAME = 'partitions' THEN
      PERFORM queen_internal.add_tenant_usage(r.tenant, p_partitions => -r.n, p_give_back => true);
    ELSE
      PERFORM queen_internal.add_tenant_usage(r.tenant, p_consumer_groups => -r.n, p_give_back => true);
    END IF;
  END LOOP;
  RETURN NULL;
END;
$function$;

CREATE OR REPLACE FUNCTION queen.set_tenant_quota(p_tenant text, p_max_pending bigint DEFAULT NULL::bigint, p_push_rate double precision DEFAULT NULL::double precision, p_push_burst integer DEFAULT NULL::integer, p_max_kv_keys bigint DEFAULT NULL::bigint, p_max_kv_bytes bigint DEFAULT NULL::bigint, p_max_traces bigint DEFAULT NULL::bigint, p_max_trace_bytes bigint DEFAULT NULL::bigint, p_max_dead_letters bigint DEFAULT NULL::bigint, p_max_queues bigint DEFAULT NULL::bigint, p_max_partitions bigint DEFAULT NULL::bigint, p_max_consumer_groups bigint DEFAULT NULL::bigint)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_all numeric[] := ARRAY[p_max_pending, p_push_rate, p_push_burst, p_max_kv_keys, p_max_kv_bytes, p_max_traces,
                           p_max_trace_bytes, p_max_dead_letters, p_max_queues, p_max_partitions,
                           p_max_consumer_groups];
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(v_all) v WHERE v < 0) THEN
    RAISE EXCEPTION 'tenant quotas must not be negative' USING ERRCODE = '22023';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM unnest(v_all) v WHERE v IS NOT NULL) THEN
    DELETE FROM queen.tenant_quotas t WHERE t.tenant = v_tenant;
    RETURN;
  END IF;
  INSERT INTO queen.tenant_quotas AS t (tenant, max_pending, push_rate, push_burst, max_kv_keys, max_kv_bytes,
                                        max_traces, max_trace_bytes, max_dead_letters, max_queues, max_partitions,
                                        max_consumer_groups, updated_at)
  VALUES (v_tenant, p_max_pending, p_push_rate, p_push_burst, p_max_kv_keys, p_max_kv_bytes, p_max_traces,
          p_max_trace_bytes, p_max_dead_letters, p_max_queues, p_max_partitions, p_max_consumer_groups, now())
  ON CONFLICT (tenant) DO UPDATE
     SET max_pending = EXCLUDED.max_pending, push_rate = EXCLUDED.push_rate, push_burst = EXCLUDED.push_burst,
         max_kv_keys = EXCLUDED.max_kv_keys, max_kv_bytes = EXCLUDED.max_kv_bytes,
         max_traces = EXCLUDED.max_traces, max_trace_bytes = EXCLUDED.max_trace_bytes,
         max_dead_letters = EXCLUDED.max_dead_letters, max_queues = EXCLUDED.max_queues,
         max_partitions = EXCLUDED.max_partitions, max_consumer_groups = EXCLUDED.max_consumer_groups,
         updated_at = EXCLUDED.updated_at;
END;
$function$;
COMMENT ON FUNCTION queen.set_tenant_quota(text,bigint,double precision,integer,bigint,bigint,bigint,bigint,bigint,bigint,bigint,bigint) IS
  'Sets the quota overrides of tenant p_tenant ('''' = default), every one at once: null = the broker default, 0 = unlimited; all null removes the overrides. Brokers started with QUEEN_TENANT_QUOTA_OVERRIDES=true apply a change to the storage quotas at once and to the push and dead-letter quotas within their quota cache time. 22023 on a negative value.';

CREATE OR REPLACE FUNCTION queen.tenant_quota_state(p_tenant text, OUT max_pending bigint, OUT push_rate double precision, OUT push_burst integer, OUT pending bigint, OUT counted_at timestamp with time zone, OUT max_dead_letters bigint, OUT dead_letters bigint)
 RETURNS record
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
  SELECT t.max_pending, t.push_rate, t.push_burst, st.pending, st.counted_at, t.max_dead_letters, st.dead_letters
    FROM (SELECT coalesce(sum(s.pending), 0)::bigint AS pending, max(s.updated_at) AS counted_at,
                 coalesce(sum(s.dead_letter), 0)::bigint AS dead_letters
            FROM queen.queues q JOIN queen.queue_stats s ON s.queue_id = q.id
           WHERE q.tenant = queen_internal.tenant_arg(p_tenant)) st
    LEFT JOIN queen.tenant_quotas t ON t.tenant = queen_internal.tenant_arg(p_tenant)
$function$;
COMMENT ON FUNCTION queen.tenant_quota_state(text) IS
  'Quota overrides of tenant p_tenant the broker enforces itself (nulls when none), its pending messages and dead letters summed from queen.queue_stats (as fresh as the statistics reconciler left them) and counted_at, the newest refresh among those rows (null: none yet).';

RESET ROLE;

CREATE TRIGGER kv_counted_bytes BEFORE INSERT OR UPDATE OF value ON queen.kv FOR EACH ROW EXECUTE FUNCTION queen_internal.set_counted_bytes();
CREATE TRIGGER message_traces_counted_bytes BEFORE INSERT OR UPDATE OF data ON queen.message_traces FOR EACH ROW EXECUTE FUNCTION queen_internal.set_counted_bytes();
CREATE TRIGGER kv_usage_growth AFTER INSERT OR UPDATE OF value ON queen.kv FOR EACH ROW EXECUTE FUNCTION queen_internal.count_growth();
CREATE TRIGGER message_traces_usage_growth AFTER INSERT OR UPDATE OF data ON queen.message_traces FOR EACH ROW EXECUTE FUNCTION queen_internal.count_growth();
CREATE TRIGGER queues_usage_growth AFTER INSERT ON queen.queues FOR EACH ROW EXECUTE FUNCTION queen_internal.count_growth();
CREATE TRIGGER partitions_usage_growth AFTER INSERT ON queen.partitions FOR EACH ROW EXECUTE FUNCTION queen_internal.count_growth();
CREATE TRIGGER consumer_groups_usage_growth AFTER INSERT ON queen.consumer_groups FOR EACH ROW EXECUTE FUNCTION queen_internal.count_growth();
CREATE TRIGGER kv_usage_give_back AFTER DELETE ON queen.kv REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION queen_internal.kv_give_back();
CREATE TRIGGER message_traces_usage_give_back AFTER DELETE ON queen.message_traces FOR EACH ROW EXECUTE FUNCTION queen_internal.trace_give_back();
CREATE TRIGGER queues_usage_give_back BEFORE DELETE ON queen.queues FOR EACH ROW EXECUTE FUNCTION queen_internal.queue_give_back();
CREATE TRIGGER partitions_usage_give_back AFTER DELETE ON queen.partitions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION queen_internal.queue_child_give_back();
CREATE TRIGGER consumer_groups_usage_give_back AFTER DELETE ON queen.consumer_groups REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION queen_internal.queue_child_give_back();

COMMIT;
