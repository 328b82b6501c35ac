CREATE OR REPLACE FUNCTION queen_internal.tenant_usage_stripes()
 RETURNS integer
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT 16 $function$;

COMMENT ON FUNCTION queen_internal.tenant_usage_stripes() IS 'Stripes per tenant for growth (0-15, by session) and as many for give-back (16-31): at most 32 usage rows a tenant.';
