-- Deploy queen:timers to pg
-- Timers: push items carrying deliverAt wait here until that time, then the
-- sweeper of any broker fires them into queen.messages through store_messages.
-- Queue and partition are kept as names (with the tenant) and resolved at fire time, exactly as a
-- push resolves them (auto-creation included). The message id is minted when the
-- timer is scheduled and kept when it fires, so the id a producer was given is
-- the id consumers see.

BEGIN;

CREATE TABLE queen.timers (
  id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant           queen.tenant_text NOT NULL DEFAULT '',  -- the queue's tenant (docs/tenants.md)
  queue_name       queen.name_text NOT NULL,
  partition_name   queen.name_text NOT NULL,
  namespace        text,                    -- used only if the fire creates the queue
  task             text,                    -- idem
  message_id       uuid        NOT NULL,
  transaction_id   text        NOT NULL,
  payload          jsonb,
  trace_id         uuid,
  producer_sub     text,
  is_encrypted     boolean     NOT NULL DEFAULT false,
  deliver_at       timestamptz NOT NULL,
  claimed_by       text,                    -- server id of the broker holding the claim
  claim_expires_at timestamptz,             -- the claim is void from this instant on
  fire_attempts    int         NOT NULL DEFAULT 0,
  last_error       text,                    -- why the last fire did not store the message
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT timers_queue_partition_transaction_key UNIQUE (tenant, queue_name, partition_name, transaction_id),
  -- A claim has an owner and an end, and ends after deliver_at (it is taken at or
  -- after deliver_at, for at least 1 ms): next_timer_due relies on both.
  CONSTRAINT timers_claim_complete CHECK ((claimed_by IS NULL) = (claim_expires_at IS NULL)),
  CONSTRAINT timers_claim_ends_after_deliver_at CHECK (claim_expires_at > deliver_at)
);
COMMENT ON TABLE queen.timers IS
  'Scheduled messages (push items with deliverAt), fired into queen.messages by the sweeper at or after deliver_at. A row is claimed (claimed_by, claim_expires_at) by one broker at a time; it is deleted by the fire that stores its message.';
COMMENT ON COLUMN queen.timers.claim_expires_at IS
  'End of the current claim (QUEEN_SWEEPER_LEASE_MS after it was taken). Past it, any broker may claim the row again; a fire by the old holder then does nothing.';

-- Claims scan due rows in delivery order.
CREATE INDEX timers_deliver_at_idx ON queen.timers (deliver_at, id);
-- next_timer_due looks at claimed rows by the end of their claim.
CREATE INDEX timers_claim_expires_at_idx ON queen.timers (claim_expires_at) WHERE claim_expires_at IS NOT NULL;

COMMIT;
