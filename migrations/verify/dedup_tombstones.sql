-- Verify queen:dedup_tombstones on pg
SELECT partition_id, transaction_id, message_id, expires_at FROM queen.dedup_tombstones WHERE false;
