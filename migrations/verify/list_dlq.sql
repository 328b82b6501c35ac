-- Verify queen:list_dlq on pg
-- by name: dlq_payload_once replaces it with a budgeted signature
SELECT 'queen.list_dlq'::regproc;
