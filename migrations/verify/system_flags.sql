-- Verify queen:system_flags on pg
SELECT has_function_privilege('queen.set_system_flag(text, bool)', 'execute'),
       has_function_privilege('queen.get_system_flag(text)', 'execute');
