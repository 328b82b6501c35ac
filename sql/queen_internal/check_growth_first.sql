CREATE OR REPLACE FUNCTION queen_internal.check_growth_first()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
DECLARE
  v_tenant text;
  v_rows_quota text;          -- the quota counting rows (kv_keys, traces, queues, partitions, consumer_groups)
  v_bytes_quota text;         -- and the one counting bytes (kv_bytes, trace_bytes), null for the others
  v_rows bigint := 1;         -- what the row adds to each
  v_bytes bigint := 0;
  v_rows_limit bigint := 0;
  v_bytes_limit bigint := 0;
  v_rows_used bigint;
  v_bytes_used bigint;
  v_quota text;
  v_usage bigint;
BEGIN
  IF TG_TABLE_NAME = 'kv' THEN
    IF TG_OP = 'INSERT' THEN
      -- An upsert of a stored key creates nothing: its BEFORE UPDATE is checked instead. Most KV writes
      -- replace a value, so this probe (the key the INSERT probes next anyway) saves them the sum below.
      IF EXISTS (SELECT 1 FROM queen.kv k WHERE k.tenant = NEW.tenant AND k.key = NEW.key) THEN
        RETURN NEW;
      END IF;
    END IF;
    v_tenant := NEW.tenant;
    v_rows_quota := 'kv_keys';
    v_bytes_quota := 'kv_bytes';
  ELSIF TG_TABLE_NAME = 'message_traces' THEN
    v_tenant := NEW.tenant;
    v_rows_quota := 'traces';
    v_bytes_quota := 'trace_bytes';
  ELSIF TG_TABLE_NAME = 'queues' THEN
    v_tenant := NEW.tenant;
    v_rows_quota := 'queues';
  ELSE
    -- partitions, consumer_groups: their queue's tenant (no queue: nothing is counted, as count_growth)
    SELECT q.tenant INTO v_tenant FROM queen.queues q WHERE q.id = NEW.queue_id;
    IF NOT FOUND THEN
      RETURN NEW;
    END IF;
    v_rows_quota := TG_TABLE_NAME;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- UPDATE OF value / data (an upsert replacing a KV value): the bytes grow by new minus old.
    v_rows := 0;
    v_bytes := NEW.counted_bytes - OLD.counted_bytes;
  ELSIF v_bytes_quota IS NOT NULL THEN
    v_bytes := NEW.counted_bytes;  -- set by the *_counted_bytes trigger, which fires first (trigger name order)
  END IF;

  IF v_rows > 0 THEN
    v_rows_limit := queen_internal.tenant_quota_limit(v_tenant, v_rows_quota);
  END IF;
  IF v_bytes > 0 THEN
    v_bytes_limit := queen_internal.tenant_quota_limit(v_tenant, v_bytes_quota);
  END IF;
  IF v_rows_limit = 0 AND v_bytes_limit = 0 THEN
    RETURN NEW;  -- nothing grows, or no limit: no sum
  END IF;
  -- At most 32 usage rows of the tenant. A statement of its own, so its plan is kept: a call of
  -- queen.tenant_usage_of would plan its body again on every call.
  SELECT coalesce(sum(CASE v_rows_quota WHEN 'kv_keys' THEN u.kv_keys WHEN 'traces' THEN u.traces
                                        WHEN 'queues' THEN u.queues WHEN 'partitions' THEN u.partitions
                                        ELSE u.consumer_groups END), 0),
         coalesce(sum(CASE v_bytes_quota WHEN 'kv_bytes' THEN u.kv_bytes ELSE u.trace_bytes END), 0)
    INTO v_rows_used, v_bytes_used
    FROM queen.tenant_usage u WHERE u.tenant = v_tenant;
  -- The same order and message as the AFTER check (queen_internal.add_tenant_usage): rows, then bytes.
  IF v_rows_limit > 0 AND v_rows_used + v_rows > v_rows_limit THEN
    v_quota := v_rows_quota;
    v_usage := v_rows_used + v_rows;
  ELSIF v_bytes_limit > 0 AND v_bytes_used + v_bytes > v_bytes_limit THEN
    v_quota := v_bytes_quota;
    v_usage := v_bytes_used + v_bytes;
  ELSE
    RETURN NEW;
  END IF;
  -- An INSERT ... ON CONFLICT of an existing queue, partition or group creates nothing (configure of a
  -- queue at the quota): looked up only now, when the row would be refused.
  IF TG_TABLE_NAME = 'queues' THEN
    IF EXISTS (SELECT 1 FROM queen.queues q WHERE q.tenant = NEW.tenant AND q.name = NEW.name) THEN
      RETURN NEW;
    END IF;
  ELSIF TG_TABLE_NAME = 'partitions' THEN
    IF EXISTS (SELECT 1 FROM queen.partitions p WHERE p.queue_id = NEW.queue_id AND p.name = NEW.name) THEN
      RETURN NEW;
    END IF;
  ELSIF TG_TABLE_NAME = 'consumer_groups' THEN
    IF EXISTS (SELECT 1 FROM queen.consumer_groups g
                WHERE g.queue_id = NEW.queue_id AND g.consumer_group = NEW.consumer_group) THEN
      RETURN NEW;
    END IF;
  END IF;
  PERFORM queen_internal.check_tenant_quota(v_tenant, v_quota, v_usage);
  RETURN NEW;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_growth_first() IS 'BEFORE row trigger of the tables counted in queen.tenant_usage: raises QQ429 (queen_internal.check_tenant_quota, the same message) before a row is written when what it adds (a row and its counted bytes; an UPDATE: new minus old bytes) would take its tenant past a storage quota, so a refused write leaves no row, TOAST or WAL; a row whose key exists already (INSERT ... ON CONFLICT) is not refused here. No limit or no growth: no usage sum. The AFTER triggers (count_growth) count the row and check again, exactly.';
