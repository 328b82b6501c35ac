-- Deploy queen:system_state to pg
BEGIN;

-- Cluster-wide settings shared by every broker (push and pop maintenance flags).
CREATE TABLE queen.system_state (
  key        text        PRIMARY KEY,
  value      jsonb       NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE queen.system_state IS
  'Cluster-wide state by key; maintenance flags are {"enabled": bool}. Use set_system_flag/get_system_flag.';

COMMIT;
