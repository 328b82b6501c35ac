-- pgTAP: queen.schema_version(), the release a broker checks at boot (src/db/boot_check.cpp).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(3);
SELECT has_function('queen', 'schema_version', ARRAY[]::text[], 'queen.schema_version() exists');
SELECT is(queen.schema_version(), '2.0.0', 'the deployed schema is release 2.0.0');
SELECT volatility_is('queen', 'schema_version', ARRAY[]::text[], 'immutable', 'a constant of the deployed release');
SELECT * FROM finish();
ROLLBACK;
