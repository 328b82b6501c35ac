CREATE OR REPLACE FUNCTION queen_internal.requested_subscription(p_mode text, p_from text, p_now timestamp with time zone, OUT mode text, OUT start_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql STABLE AS $function$
BEGIN
  IF coalesce(p_from, '') <> '' THEN
    IF lower(p_from) = 'now' THEN
      mode := 'new'; start_at := p_now;
    ELSE
      BEGIN
        start_at := p_from::timestamptz;
        mode := 'timestamp';
      EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR invalid_parameter_value THEN
        start_at := NULL; mode := NULL;  -- unparsable: behave like 'all'
      END;
    END IF;
  ELSIF lower(coalesce(p_mode, '')) IN ('new', 'new-only') THEN
    mode := 'new'; start_at := p_now;
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.requested_subscription(p_mode text, p_from text, p_now timestamp with time zone, OUT mode text, OUT start_at timestamp with time zone) IS 'Start point requested by pop parameters subscriptionMode/subscriptionFrom: (new, now), (timestamp, t), or nulls for the whole history.';
