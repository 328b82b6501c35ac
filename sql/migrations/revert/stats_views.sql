-- Revert queen:stats_views from pg

BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

DROP FUNCTION queen_internal.stats_age_seconds(timestamptz);
DROP FUNCTION queen_internal.stats_counters(numeric, numeric, numeric, numeric, numeric);
DROP FUNCTION queen_internal.stats_partitions(uuid, int, int);
DROP FUNCTION queen_internal.stats_series(uuid[], timestamptz, timestamptz, int);
DROP FUNCTION queen_internal.stats_queues(text, jsonb);
DROP FUNCTION queen_internal.stats_time_range(jsonb, interval);
DROP FUNCTION queen_internal.stats_bucket(timestamptz, int);
DROP FUNCTION queen_internal.stats_bucket_minutes(timestamptz, timestamptz);

COMMIT;
