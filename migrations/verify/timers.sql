-- Verify queen:timers on pg

BEGIN;

SELECT id, tenant, queue_name, partition_name, namespace, task, message_id, transaction_id, payload, trace_id,
       producer_sub, is_encrypted, deliver_at, claimed_by, claim_expires_at, fire_attempts, last_error, created_at
  FROM queen.timers WHERE false;

ROLLBACK;
