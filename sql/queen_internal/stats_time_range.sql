CREATE OR REPLACE FUNCTION queen_internal.stats_time_range(p_params jsonb, p_default_span interval, OUT from_at timestamp with time zone, OUT to_at timestamp with time zone, OUT bucket_minutes integer, OUT first_bucket timestamp with time zone, OUT time_range jsonb)
 RETURNS record
 LANGUAGE plpgsql STABLE AS $function$
BEGIN
  to_at := coalesce('epoch'::timestamptz + (p_params->>'toMs')::bigint * interval '1 millisecond', clock_timestamp());
  from_at := coalesce('epoch'::timestamptz + (p_params->>'fromMs')::bigint * interval '1 millisecond',
                      to_at - p_default_span);
  IF from_at > to_at THEN
    RAISE EXCEPTION 'from must not be after to' USING ERRCODE = '22023';
  END IF;
  bucket_minutes := queen_internal.stats_bucket_minutes(from_at, to_at);
  first_bucket := queen_internal.stats_bucket(from_at, bucket_minutes);
  time_range := jsonb_build_object('from', queen_internal.iso_millis(from_at), 'to', queen_internal.iso_millis(to_at));
END;
$function$;

COMMENT ON FUNCTION queen_internal.stats_time_range(p_params jsonb, p_default_span interval, OUT from_at timestamp with time zone, OUT to_at timestamp with time zone, OUT bucket_minutes integer, OUT first_bucket timestamp with time zone, OUT time_range jsonb) IS 'The time range of a time-series request: [from, to] (fromMs/toMs epoch ms; to defaults to now, from to p_default_span before to), bucket_minutes and first_bucket for that span, time_range = {from, to} as ISO text. 22023 when from is after to.';
