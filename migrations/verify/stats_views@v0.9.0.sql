-- Verify queen:stats_views on pg

BEGIN;

SELECT has_function_privilege('queen.stats_time_range(jsonb, interval)', 'execute');
SELECT has_function_privilege('queen.stats_bucket_minutes(timestamptz, timestamptz)', 'execute');
SELECT has_function_privilege('queen.stats_bucket(timestamptz, int)', 'execute');
SELECT has_function_privilege('queen.stats_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.stats_series(uuid[], timestamptz, timestamptz, int)', 'execute');
SELECT has_function_privilege('queen.stats_partitions(uuid, int, int)', 'execute');
SELECT has_function_privilege('queen.stats_counters(numeric, numeric, numeric, numeric, numeric)', 'execute');
SELECT has_function_privilege('queen.stats_age_seconds(timestamptz)', 'execute');

ROLLBACK;
