-- Verify queen:partitions on pg
SELECT id, queue_id, name, last_seq, last_message_at, created_at FROM queen.partitions WHERE false;
