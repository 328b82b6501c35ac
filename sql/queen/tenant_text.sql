-- A tenant (docs/tenants.md): a name, or '' for the default tenant (authentication
-- off, or a token without the tenant claim). Every queue belongs to one tenant;
-- everything under a queue is scoped through it.
CREATE DOMAIN queen.tenant_text AS text
  CONSTRAINT tenant_text_length CHECK ((length(VALUE) <= queen_internal.name_max_chars()));

COMMENT ON DOMAIN queen.tenant_text IS 'A tenant: '''' (the default tenant) or a name of up to queen_internal.name_max_chars() (255) characters.';
