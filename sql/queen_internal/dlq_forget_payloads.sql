CREATE OR REPLACE FUNCTION queen_internal.dlq_forget_payloads()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
DECLARE
  v_ids uuid[];
BEGIN
  SELECT array_agg(x.message_id ORDER BY x.message_id) INTO v_ids
    FROM (SELECT p.message_id FROM queen.dlq_payloads p
           WHERE p.message_id IN (SELECT DISTINCT g.message_id FROM gone g)
           ORDER BY p.message_id FOR UPDATE) x;
  IF v_ids IS NOT NULL THEN
    DELETE FROM queen.dlq_payloads p
     WHERE p.message_id = ANY (v_ids)
       AND NOT EXISTS (SELECT 1 FROM queen.dlq d WHERE d.message_id = p.message_id);
  END IF;
  RETURN NULL;
END;
$function$;

COMMENT ON FUNCTION queen_internal.dlq_forget_payloads() IS 'Trigger after DELETE on queen.dlq: deletes the queen.dlq_payloads rows whose message has no DLQ entry left.';
