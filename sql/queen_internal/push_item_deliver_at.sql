CREATE OR REPLACE FUNCTION queen_internal.push_item_deliver_at(p_item jsonb, p_idx integer DEFAULT NULL::integer)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_value jsonb := p_item -> 'deliverAt';
  v_text  text;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN NULL;
  END IF;
  BEGIN
    IF jsonb_typeof(v_value) = 'number' THEN
      RETURN to_timestamp((v_value #>> '{}')::numeric / 1000);
    ELSIF jsonb_typeof(v_value) = 'string' THEN
      v_text := btrim(v_value #>> '{}');
      IF v_text ~ '^[0-9]+$' THEN
        RETURN to_timestamp(v_text::numeric / 1000);
      END IF;
      IF v_text <> '' THEN
        RETURN v_text::timestamptz;
      END IF;
    END IF;
  EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR invalid_parameter_value
                 OR numeric_value_out_of_range THEN
    NULL;  -- reported below with the item's index
  END;
  RAISE EXCEPTION 'push item %: deliverAt must be an ISO-8601 timestamp or epoch milliseconds (got %)',
    coalesce(p_idx::text, '?'), v_value USING ERRCODE = '22023';
END;
$function$;

COMMENT ON FUNCTION queen_internal.push_item_deliver_at(p_item jsonb, p_idx integer) IS 'The deliverAt of a push item as timestamptz (ISO-8601 text, or epoch ms as number or digit string); null when absent. 22023 when unparsable (p_idx names the item in the message).';
