CREATE OR REPLACE FUNCTION queen_internal.check_ack_items(p_acks jsonb)
 RETURNS void
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  IF p_acks IS NULL OR jsonb_typeof(p_acks) <> 'array' THEN
    RAISE EXCEPTION 'acknowledgments array is required' USING ERRCODE = '22023';
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_acks) e
              WHERE jsonb_typeof(e) <> 'object' OR jsonb_typeof(e -> 'transactionId') IS DISTINCT FROM 'string') THEN
    RAISE EXCEPTION 'each acknowledgment must be an object with a transactionId string' USING ERRCODE = '22023';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_ack_items(p_acks jsonb) IS 'Internal to ack_messages: 22023 unless p_acks is an array of objects with a transactionId string.';
