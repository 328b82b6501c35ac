-- Revert queen:streams from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.stream_cycle(jsonb, text, text, timestamptz);
DROP FUNCTION queen_internal.stream_ack(jsonb, uuid, text, bool, timestamptz, text);
DROP FUNCTION queen_internal.apply_stream_state_ops(queen.stream_queries, uuid, jsonb, timestamptz);
DROP FUNCTION queen_internal.stream_final_ops(jsonb);
DROP FUNCTION queen.stream_state_get(jsonb, text);
DROP FUNCTION queen_internal.stream_query_of(text, text);
DROP FUNCTION queen.stream_register_query(jsonb, text);
DROP TRIGGER stream_queries_give_back ON queen.stream_queries;
DROP FUNCTION queen_internal.stream_query_give_back();
DROP FUNCTION queen.stream_usage_of(text);
DROP FUNCTION queen_internal.add_stream_usage(text, bigint, bigint);
DROP FUNCTION queen_internal.stream_key_retention();
DROP FUNCTION queen_internal.check_stream_limit(text, text, bigint);
DROP FUNCTION queen_internal.stream_limit(text);
DROP TABLE queen.stream_usage;
DROP TABLE queen.stream_cycle_keys;
DROP TABLE queen.stream_state;
DROP TABLE queen.stream_queries;
COMMIT;
