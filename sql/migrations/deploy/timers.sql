-- Deploy queen:timers to pg
-- Timers: push items carrying deliverAt wait here until that time, then the
-- sweeper of any broker fires them into queen.messages through push_messages.
-- Queue and partition are kept as names and resolved at fire time, exactly as a
-- push resolves them (auto-creation included). The message id is minted when the
-- timer is scheduled and kept when it fires, so the id a producer was given is
-- the id consumers see.

BEGIN;

CREATE TABLE queen.timers (
  id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue_name       text        NOT NULL,
  partition_name   text        NOT NULL,
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
  CONSTRAINT timers_queue_partition_transaction_key UNIQUE (queue_name, partition_name, transaction_id)
);
COMMENT ON TABLE queen.timers IS
  'Scheduled messages (push items with deliverAt), fired into queen.messages by the sweeper at or after deliver_at. A row is claimed (claimed_by, claim_expires_at) by one broker at a time; it is deleted by the fire that stores its message.';
COMMENT ON COLUMN queen.timers.claim_expires_at IS
  'End of the current claim (QUEEN_SWEEPER_LEASE_MS after it was taken). Past it, any broker may claim the row again; a fire by the old holder then does nothing.';

-- Claims scan due rows in delivery order.
CREATE INDEX timers_deliver_at_idx ON queen.timers (deliver_at, id);
-- next_timer_due looks at claimed rows by the end of their claim.
CREATE INDEX timers_claim_expires_at_idx ON queen.timers (claim_expires_at) WHERE claim_expires_at IS NOT NULL;

-- deliverAt of a push item: an ISO-8601 timestamp string, or epoch milliseconds
-- as a number or a string of digits. Null when the item has none.
CREATE FUNCTION queen.push_item_deliver_at(p_item jsonb, p_idx int DEFAULT NULL) RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_value jsonb := p_item -> 'deliverAt';
  v_text  text;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN NULL;
  END IF;
  BEGIN
    IF jsonb_typeof(v_value) = 'number' THEN
      RETURN to_timestamp((v_value #>> '{}')::numeric / 1000);
    ELSIF jsonb_typeof(v_value) = 'string' THEN
      v_text := btrim(v_value #>> '{}');
      IF v_text ~ '^[0-9]+$' THEN
        RETURN to_timestamp(v_text::numeric / 1000);
      END IF;
      IF v_text <> '' THEN
        RETURN v_text::timestamptz;
      END IF;
    END IF;
  EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR invalid_parameter_value
                 OR numeric_value_out_of_range THEN
    NULL;  -- reported below with the item's index
  END;
  RAISE EXCEPTION 'push item %: deliverAt must be an ISO-8601 timestamp or epoch milliseconds (got %)',
    coalesce(p_idx::text, '?'), v_value USING ERRCODE = '22023';
END;
$$;
COMMENT ON FUNCTION queen.push_item_deliver_at(jsonb, int) IS
  'The deliverAt of a push item as timestamptz (ISO-8601 text, or epoch ms as number or digit string); null when absent. 22023 when unparsable (p_idx names the item in the message).';

COMMIT;
