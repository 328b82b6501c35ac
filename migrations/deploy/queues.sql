-- Deploy queen:queues to pg
BEGIN;

-- One row per queue. The 15 options of POST /configure are typed columns (the
-- wire names are in the comments); configure_queue is the only writer of the
-- options and always writes all of them (full replace).
CREATE TABLE queen.queues (
  id                          uuid        PRIMARY KEY DEFAULT queen.uuid_v7(),
  tenant                      queen.tenant_text NOT NULL DEFAULT '',  -- docs/tenants.md
  name                        queen.name_text NOT NULL,
  namespace                   text        NOT NULL DEFAULT '',
  task                        text        NOT NULL DEFAULT '',
  lease_time                  int         NOT NULL DEFAULT 300,   -- leaseTime, s; 0 = 60 s at pop time
  retry_limit                 int         NOT NULL DEFAULT 3,     -- retryLimit
  retry_delay_ms              int         NOT NULL DEFAULT 1000,  -- retryDelay, ms
  priority                    int         NOT NULL DEFAULT 0,     -- priority (namespace/task pop)
  delayed_processing          int         NOT NULL DEFAULT 0,     -- delayedProcessing, s
  window_buffer               int         NOT NULL DEFAULT 0,     -- windowBuffer, s
  max_size                    int         NOT NULL DEFAULT 0,     -- maxSize, pending messages; 0 = unlimited
  ttl                         int         NOT NULL DEFAULT 3600,  -- ttl, s; 0 = off
  retention_enabled           boolean     NOT NULL DEFAULT false, -- retentionEnabled
  retention_seconds           int         NOT NULL DEFAULT 0,     -- retentionSeconds
  completed_retention_seconds int         NOT NULL DEFAULT 0,     -- completedRetentionSeconds
  max_wait_time_seconds       int         NOT NULL DEFAULT 0,     -- maxWaitTimeSeconds; 0 = off
  dead_letter_queue           boolean     NOT NULL DEFAULT false, -- deadLetterQueue (echoed only)
  dlq_after_max_retries       boolean     NOT NULL DEFAULT false, -- dlqAfterMaxRetries (echoed only)
  encryption_enabled          boolean     NOT NULL DEFAULT false, -- encryptionEnabled (the broker encrypts)
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT queues_options_not_negative CHECK (
    lease_time >= 0 AND retry_limit >= 0 AND retry_delay_ms >= 0 AND delayed_processing >= 0
    AND window_buffer >= 0 AND max_size >= 0 AND ttl >= 0 AND retention_seconds >= 0
    AND completed_retention_seconds >= 0 AND max_wait_time_seconds >= 0),
  -- Two tenants may both have a queue named orders; one tenant may not have two.
  CONSTRAINT queues_tenant_name_key UNIQUE (tenant, name)
);
COMMENT ON TABLE queen.queues IS
  'Queues of every tenant ('''' = the default tenant) and their options (one typed column per configure option; names in docs/procedures.md). Written by configure_queue and by push auto-creation.';

-- Namespace/task pops select a tenant's queues by these two columns.
CREATE INDEX queues_namespace_task_idx ON queen.queues (tenant, namespace, task);

COMMIT;
