-- Revert queen:stats_views from pg

BEGIN;

DROP FUNCTION queen.stats_age_seconds(timestamptz);
DROP FUNCTION queen.stats_counters(numeric, numeric, numeric, numeric, numeric);
DROP FUNCTION queen.stats_partitions(uuid, int, int);
DROP FUNCTION queen.stats_series(uuid[], timestamptz, timestamptz, int);
DROP FUNCTION queen.stats_queues(text, jsonb);
DROP FUNCTION queen.stats_time_range(jsonb, interval);
DROP FUNCTION queen.stats_bucket(timestamptz, int);
DROP FUNCTION queen.stats_bucket_minutes(timestamptz, timestamptz);

COMMIT;
