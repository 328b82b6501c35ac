CREATE OR REPLACE FUNCTION queen_internal.set_counted_bytes()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
BEGIN
  IF TG_TABLE_NAME = 'kv' THEN
    NEW.counted_bytes := octet_length(NEW.key) + pg_column_size(NEW.value);
  ELSE
    NEW.counted_bytes := pg_column_size(NEW.data);
  END IF;
  RETURN NEW;
END;
$function$;
