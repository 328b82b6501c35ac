CREATE OR REPLACE FUNCTION queen_internal.check_schedule_items(p_items jsonb)
 RETURNS void
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  v_missing int;
BEGIN
  PERFORM queen_internal.check_push_items(p_items);
  SELECT min(x.ord - 1) INTO v_missing
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
   WHERE queen_internal.push_item_deliver_at(x.e, (x.ord - 1)::int) IS NULL;
  IF v_missing IS NOT NULL THEN
    RAISE EXCEPTION 'push item %: deliverAt is required to schedule a message', v_missing USING ERRCODE = '22023';
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.check_schedule_items(p_items jsonb) IS 'Internal to schedule_messages: check_push_items plus a deliverAt on every item; 22023 naming the first bad item.';
