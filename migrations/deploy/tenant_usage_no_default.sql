-- Deploy queen:tenant_usage_no_default to pg (release 1.1.0)
-- queen.tenant_usage_of was the one API procedure with a default for its tenant (p_tenant DEFAULT ''): every
-- call names its tenant, the default one as '' (docs/procedures.md). A parameter default cannot be removed by
-- CREATE OR REPLACE, so the function is dropped and created again as it was otherwise: owned by queen_owner,
-- SECURITY DEFINER with a fixed search_path, its comment and its grants (queen_reader, queen_admin; PUBLIC none).
-- Nothing depends on it in pg_depend; queen_internal.add_tenant_usage calls it by name, resolved at run time.

BEGIN;

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

DROP FUNCTION queen.tenant_usage_of(text);

CREATE FUNCTION queen.tenant_usage_of(p_tenant text, OUT kv_keys bigint, OUT kv_bytes bigint, OUT traces bigint, OUT trace_bytes bigint, OUT queues bigint, OUT partitions bigint, OUT consumer_groups bigint)
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

-- Who may call it (docs/procedures.md, Roles): readers and DBAs, as before; the broker never does.
GRANT EXECUTE ON FUNCTION queen.tenant_usage_of(text) TO queen_reader, queen_admin;

RESET ROLE;

COMMIT;
