-- Deploy queen:quota_prechecks to pg (release 1.1.0)
-- The storage quotas of queen.tenant_usage (KV keys and bytes, traces and trace bytes, queues, partitions,
-- consumer groups) are checked before the row is written, by a BEFORE row trigger on each counted table:
-- a write that the quota refuses raises QQ429 before the heap, its TOAST chunks, its index entries and
-- their WAL exist. The AFTER triggers of tenant_usage keep counting, and keep their own check: it is the
-- exact one against writers of the same tenant racing past each other's pre-check (docs/tenants.md,
-- "Accuracy").
--
-- Why a BEFORE trigger rather than a check in each procedure: every writer of these tables is covered
-- (kv_set, record_trace, configure, push, pop registering a group) whatever statement it uses. An INSERT
-- ... ON CONFLICT fires BEFORE INSERT even for a row that then conflicts, so a row the quota would refuse
-- is first looked up by its key: when it exists already the statement updates it (KV: BEFORE UPDATE checks
-- new bytes minus old) or does nothing, and is not refused. That lookup is paid only by a write past the
-- quota. Rows of one statement are checked against the usage before the statement (the AFTER triggers
-- count at its end): a statement creating several rows that crosses the quota is still refused after
-- writing them, which at most one request's rows can do.
BEGIN;

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE FUNCTION queen_internal.quota_passed_by(p_tenant text, p_quotas text[], p_growth bigint[],
                                               OUT quota text, OUT usage bigint)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
DECLARE
  v_limit bigint;
  v_usage record;
  v_summed boolean := false;
  v_used bigint;
BEGIN
  FOR i IN 1 .. cardinality(p_quotas) LOOP
    CONTINUE WHEN p_growth[i] <= 0;
    v_limit := queen_internal.tenant_quota_limit(p_tenant, p_quotas[i]);
    CONTINUE WHEN v_limit = 0;
    IF NOT v_summed THEN
      -- Only a limited quota that grows needs the sum (at most 32 rows of the tenant). A statement of this
      -- function keeps its plan; a call of queen.tenant_usage_of would plan its body again each time.
      SELECT coalesce(sum(u.kv_keys), 0) AS kv_keys, coalesce(sum(u.kv_bytes), 0) AS kv_bytes,
             coalesce(sum(u.traces), 0) AS traces, coalesce(sum(u.trace_bytes), 0) AS trace_bytes,
             coalesce(sum(u.queues), 0) AS queues, coalesce(sum(u.partitions), 0) AS partitions,
             coalesce(sum(u.consumer_groups), 0) AS consumer_groups
        INTO v_usage
        FROM queen.tenant_usage u WHERE u.tenant = p_tenant;
      v_summed := true;
    END IF;
    v_used := CASE p_quotas[i]
                WHEN 'kv_keys' THEN v_usage.kv_keys WHEN 'kv_bytes' THEN v_usage.kv_bytes
                WHEN 'traces' THEN v_usage.traces WHEN 'trace_bytes' THEN v_usage.trace_bytes
                WHEN 'queues' THEN v_usage.queues WHEN 'partitions' THEN v_usage.partitions
                WHEN 'consumer_groups' THEN v_usage.consumer_groups
              END;
    IF v_used + p_growth[i] > v_limit THEN
      quota := p_quotas[i];
      usage := v_used + p_growth[i];
      RETURN;
    END IF;
  END LOOP;
END;
$$;
COMMENT ON FUNCTION queen_internal.quota_passed_by(text, text[], bigint[]) IS
  'Internal to check_growth_first: the first of quotas p_quotas (storage_quota_names() entries) that tenant p_tenant would pass by growing p_growth (same positions), and the usage it would reach; nulls when none would (a quota of limit 0 or growth <= 0 is not looked at, and with none left the usage is not summed).';

CREATE FUNCTION queen_internal.check_growth_first()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  v_tenant text;
  v_quotas text[];
  v_growth bigint[];
  v_passed record;
  v_exists boolean;
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'kv' THEN
      v_tenant := NEW.tenant;
      v_quotas := ARRAY['kv_keys', 'kv_bytes'];
    WHEN 'message_traces' THEN
      v_tenant := NEW.tenant;
      v_quotas := ARRAY['traces', 'trace_bytes'];
    WHEN 'queues' THEN
      v_tenant := NEW.tenant;
      v_quotas := ARRAY['queues'];
    ELSE
      -- partitions, consumer_groups: their queue's tenant (no queue: nothing is counted, as count_growth)
      SELECT q.tenant INTO v_tenant FROM queen.queues q WHERE q.id = NEW.queue_id;
      IF NOT FOUND THEN
        RETURN NEW;
      END IF;
      v_quotas := ARRAY[TG_TABLE_NAME::text];
  END CASE;
  IF TG_OP = 'UPDATE' THEN
    -- UPDATE OF value / data (an upsert replacing a KV value): the bytes grow by new minus old.
    v_growth := ARRAY[0, NEW.counted_bytes - OLD.counted_bytes];
  ELSIF TG_TABLE_NAME IN ('kv', 'message_traces') THEN
    v_growth := ARRAY[1, NEW.counted_bytes];  -- counted_bytes is set by the *_counted_bytes trigger, which fires first
  ELSE
    v_growth := ARRAY[1];
  END IF;
  SELECT * INTO v_passed FROM queen_internal.quota_passed_by(v_tenant, v_quotas, v_growth);
  IF v_passed.quota IS NULL THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    -- An INSERT ... ON CONFLICT on an existing key creates nothing: it updates (checked then) or does nothing.
    -- (one branch per table: a record field is resolved when its expression is first run)
    IF TG_TABLE_NAME = 'kv' THEN
      v_exists := EXISTS (SELECT 1 FROM queen.kv k WHERE k.tenant = NEW.tenant AND k.key = NEW.key);
    ELSIF TG_TABLE_NAME = 'queues' THEN
      v_exists := EXISTS (SELECT 1 FROM queen.queues q WHERE q.tenant = NEW.tenant AND q.name = NEW.name);
    ELSIF TG_TABLE_NAME = 'partitions' THEN
      v_exists := EXISTS (SELECT 1 FROM queen.partitions p WHERE p.queue_id = NEW.queue_id AND p.name = NEW.name);
    ELSIF TG_TABLE_NAME = 'consumer_groups' THEN
      v_exists := EXISTS (SELECT 1 FROM queen.consumer_groups g
                           WHERE g.queue_id = NEW.queue_id AND g.consumer_group = NEW.consumer_group);
    ELSE
      v_exists := false;
    END IF;
    IF v_exists THEN
      RETURN NEW;
    END IF;
  END IF;
  PERFORM queen_internal.check_tenant_quota(v_tenant, v_passed.quota, v_passed.usage);
  RETURN NEW;
END;
$$;
COMMENT ON FUNCTION queen_internal.check_growth_first() IS
  'BEFORE row trigger of the tables counted in queen.tenant_usage: raises QQ429 (queen_internal.check_tenant_quota) before a row is written when it would take its tenant past a storage quota, so a refused write leaves no row, TOAST or WAL; a row whose key exists already (INSERT ... ON CONFLICT) is not refused here. The AFTER triggers (count_growth) count the row and check again, exactly.';

RESET ROLE;

CREATE TRIGGER kv_usage_precheck BEFORE INSERT OR UPDATE OF value ON queen.kv
  FOR EACH ROW EXECUTE FUNCTION queen_internal.check_growth_first();
CREATE TRIGGER message_traces_usage_precheck BEFORE INSERT OR UPDATE OF data ON queen.message_traces
  FOR EACH ROW EXECUTE FUNCTION queen_internal.check_growth_first();
CREATE TRIGGER queues_usage_precheck BEFORE INSERT ON queen.queues
  FOR EACH ROW EXECUTE FUNCTION queen_internal.check_growth_first();
CREATE TRIGGER partitions_usage_precheck BEFORE INSERT ON queen.partitions
  FOR EACH ROW EXECUTE FUNCTION queen_internal.check_growth_first();
CREATE TRIGGER consumer_groups_usage_precheck BEFORE INSERT ON queen.consumer_groups
  FOR EACH ROW EXECUTE FUNCTION queen_internal.check_growth_first();

COMMIT;
