CREATE OR REPLACE FUNCTION queen_internal.expiry_cutoffs(p_now timestamp with time zone, OUT queue_id uuid, OUT cutoff timestamp with time zone, OUT reason text)
 RETURNS SETOF record
 LANGUAGE sql STABLE AS $function$
  SELECT q.id, p_now - rule.max_age_seconds * interval '1 second', rule.reason
    FROM queen.queues q
    CROSS JOIN LATERAL queen_internal.expiry_rule(q) rule
   WHERE rule.max_age_seconds IS NOT NULL
$function$;

COMMENT ON FUNCTION queen_internal.expiry_cutoffs(p_now timestamp with time zone, OUT queue_id uuid, OUT cutoff timestamp with time zone, OUT reason text) IS 'Internal to expire_messages: each queue with an expiry rule, the cutoff at p_now (messages created before it expire) and the DLQ reason.';
