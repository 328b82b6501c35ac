-- Verify queen:dlq_payload_once on pg
SELECT message_id, partition_id, payload, payload_bytes FROM queen.dlq_payloads WHERE false;
SELECT has_function_privilege('queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text, bigint)', 'execute');
SELECT has_function_privilege('queen.dlq_forget_payloads()', 'execute');
