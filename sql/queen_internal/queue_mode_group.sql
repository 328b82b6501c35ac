-- The consumer group of queue mode: a pop, ack or lease without a group reads and moves this cursor. Clients may
-- also name it (consumerGroup=__QUEUE_MODE__), which means queue mode as no group does.
CREATE OR REPLACE FUNCTION queen_internal.queue_mode_group()
 RETURNS text
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT '__QUEUE_MODE__'::text $function$;

COMMENT ON FUNCTION queen_internal.queue_mode_group() IS 'The consumer group name of queue mode, __QUEUE_MODE__ (an SQL function the planner folds to its constant).';
