-- pgTAP: queen.set_system_flag / queen.get_system_flag
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(9);

DELETE FROM queen.system_state;
SELECT is(queen.get_system_flag('maintenance'), false, 'a flag never set reads false');
SELECT is(queen.set_system_flag('maintenance', true), true, 'set returns the new value');
SELECT is(queen.get_system_flag('maintenance'), true, 'maintenance reads back true');
SELECT is(queen.get_system_flag('pop_maintenance'), false, 'flags are independent');
SELECT is(queen.set_system_flag('maintenance', false), false, 'set false');
SELECT is(queen.get_system_flag('maintenance'), false, 'maintenance reads back false');
SELECT is((SELECT value FROM queen.system_state WHERE key = 'maintenance'), '{"enabled": false}'::jsonb,
          'stored as {"enabled": bool}');
SELECT throws_ok($$SELECT queen.set_system_flag('bogus', true)$$, '22023', NULL, 'unknown key on set is 22023');
SELECT throws_ok($$SELECT queen.get_system_flag(NULL)$$, '22023', NULL, 'null key on get is 22023');

SELECT * FROM finish();
ROLLBACK;
