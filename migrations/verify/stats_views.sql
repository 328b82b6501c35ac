-- Verify queen:stats_views on pg

BEGIN;

SELECT has_function_privilege('queen_internal.stats_time_range(jsonb, interval)', 'execute');
SELECT has_function_privilege('queen_internal.stats_bucket_minutes(timestamptz, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.stats_bucket(timestamptz, int)', 'execute');
SELECT has_function_privilege('queen_internal.stats_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen_internal.stats_series(uuid[], timestamptz, timestamptz, int)', 'execute');
SELECT has_function_privilege('queen_internal.stats_partitions(uuid, int, int)', 'execute');
SELECT has_function_privilege('queen_internal.stats_counters(numeric, numeric, numeric, numeric, numeric)', 'execute');
SELECT has_function_privilege('queen_internal.stats_age_seconds(timestamptz)', 'execute');

ROLLBACK;
