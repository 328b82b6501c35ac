-- Revert queen:traces from pg
BEGIN;
DROP FUNCTION queen.trace_names(int, int, text);
DROP FUNCTION queen.traces_by_name(text, int, int, text);
DROP FUNCTION queen.message_traces_of(uuid, text, text);
DROP FUNCTION queen.record_trace(uuid, text, jsonb, text[], text, text, text, text);
DROP FUNCTION queen.trace_max_data_bytes();
DROP FUNCTION queen.trace_max_names();
DROP TABLE queen.message_traces;
COMMIT;
