CREATE OR REPLACE FUNCTION queen_internal.expiry_rule(q queen.queues, OUT max_age_seconds integer, OUT reason text)
 RETURNS record
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT CASE WHEN q.ttl > 0 AND (q.max_wait_time_seconds = 0 OR q.ttl <= q.max_wait_time_seconds) THEN q.ttl
              ELSE nullif(q.max_wait_time_seconds, 0) END,
         CASE WHEN q.ttl > 0 AND (q.max_wait_time_seconds = 0 OR q.ttl <= q.max_wait_time_seconds)
              THEN format('Message expired: ttl of %s s exceeded', q.ttl)
              WHEN q.max_wait_time_seconds > 0
              THEN format('Message expired: maxWaitTimeSeconds of %s s exceeded', q.max_wait_time_seconds) END
$function$;

COMMENT ON FUNCTION queen_internal.expiry_rule(q queen.queues, OUT max_age_seconds integer, OUT reason text) IS 'Expiry age of a queue (least of ttl and maxWaitTimeSeconds that is > 0; null = never) and the DLQ reason naming the option.';
