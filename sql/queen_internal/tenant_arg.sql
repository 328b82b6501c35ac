CREATE OR REPLACE FUNCTION queen_internal.tenant_arg(p_tenant text)
 RETURNS text
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  IF length(p_tenant) > queen_internal.name_max_chars() THEN
    RAISE EXCEPTION 'tenant is longer than % characters', queen_internal.name_max_chars() USING ERRCODE = '22023';
  END IF;
  RETURN coalesce(p_tenant, '');
END;
$function$;

COMMENT ON FUNCTION queen_internal.tenant_arg(p_tenant text) IS 'p_tenant as a procedure uses it: null = the default tenant ''''; 22023 when longer than 255 characters.';
