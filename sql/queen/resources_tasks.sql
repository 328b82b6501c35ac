CREATE OR REPLACE FUNCTION queen.resources_tasks(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$ SELECT jsonb_build_object('tasks', queen_internal.resources_groups(p_tenant, 'task')) $function$;

COMMENT ON FUNCTION queen.resources_tasks(p_tenant text, p_params jsonb) IS 'GET /api/v1/resources/tasks: {"tasks": [{task, queues, partitions, messages {total, pending}}]}.';
GRANT EXECUTE ON FUNCTION queen.resources_tasks(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
