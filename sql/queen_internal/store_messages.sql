CREATE OR REPLACE FUNCTION queen_internal.store_messages(p_items jsonb, p_producer_sub text DEFAULT NULL::text, p_message_ids uuid[] DEFAULT NULL::uuid[], p_tenant text DEFAULT ''::text)
 RETURNS SETOF queen.push_result
 LANGUAGE sql AS $function$
  SELECT * FROM queen_internal.store_items(p_items, p_producer_sub, p_message_ids, p_tenant, NULL)
$function$;

COMMENT ON FUNCTION queen_internal.store_messages(p_items jsonb, p_producer_sub text, p_message_ids uuid[], p_tenant text) IS 'Internal to fire_locked_timers and requeue_dead_letters: queen_internal.store_items without a caller''s dedup bounds (the whole dedup window, queen_internal.dedup_window(NULL), is read).';
