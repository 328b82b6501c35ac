-- The storage lab's scratch schema (bench/storage_lab/README.md): one table per candidate layout, and the
-- pre-built inputs every variant reads, so each variant's statement costs only what its layout costs plus
-- the parse of the parameters a broker would send as text.
DROP SCHEMA IF EXISTS lab CASCADE;
CREATE SCHEMA lab;
SET search_path = lab, public;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- The allocator: one counter row per partition, as queen.partitions.last_seq.
CREATE TABLE partitions (id int PRIMARY KEY, last_seq bigint NOT NULL DEFAULT 0) WITH (fillfactor = 50);
INSERT INTO partitions SELECT g FROM generate_series(0, :partitions - 1) g;

-- rows: today's engine, a heap row per message with two index entries (order and dedup).
CREATE TABLE rows (partition_id int, seq bigint, id uuid NOT NULL, transaction_id text NOT NULL, payload jsonb,
  created_at timestamptz NOT NULL, PRIMARY KEY (partition_id, seq), UNIQUE (partition_id, transaction_id));

-- A segment: one row per push and partition, one primary-key entry; arrays hold the per-message columns and
-- txn_hashes 16 bytes a message (md5 of the transactionId) for dedup.
CREATE TABLE segments_jsonb (partition_id int, base_seq bigint, end_seq bigint NOT NULL, created_at timestamptz NOT NULL,
  ids uuid[] NOT NULL, txn_hashes bytea NOT NULL, transaction_ids text[] NOT NULL, payloads jsonb NOT NULL,
  PRIMARY KEY (partition_id, base_seq));
ALTER TABLE segments_jsonb ALTER payloads SET COMPRESSION lz4;
-- The same with the payloads as the JSON array text the broker sent (validated there), not parsed into jsonb.
CREATE TABLE segments_text (LIKE segments_jsonb INCLUDING ALL);
ALTER TABLE segments_text ALTER payloads TYPE text;
ALTER TABLE segments_text ALTER payloads SET COMPRESSION lz4;
-- segments_text plus a dedup row per message (an index entry per message again).
CREATE TABLE segments_keyed (LIKE segments_text INCLUDING ALL);
CREATE TABLE dedup_keys (partition_id int, txn_hash bytea, seq bigint NOT NULL, PRIMARY KEY (partition_id, txn_hash));
-- segments_text with 8-byte keys in a GIN index (pending-list inserts) probed before every insert.
CREATE TABLE segments_gin (LIKE segments_text INCLUDING ALL);
ALTER TABLE segments_gin ADD COLUMN txn_keys bigint[] NOT NULL;
CREATE INDEX ON segments_gin USING gin (partition_id, txn_keys);

-- segments_text again, for the probe that reads the hashes of the partition's latest messages (a window of
-- :window messages, set by run.py) before each push.
CREATE TABLE segments_scanned (LIKE segments_text INCLUDING ALL);

-- Inputs: :inputs pushes per batch size, as the text a broker would bind.
CREATE TABLE inputs (batch int, k int, items text, payloads text, transaction_ids text, ids text, txn_hashes text,
  txn_keys text, payload_texts text, engine_items text, PRIMARY KEY (batch, k));
ALTER TABLE inputs ALTER items SET STORAGE EXTERNAL, ALTER payloads SET STORAGE EXTERNAL,
  ALTER payload_texts SET STORAGE EXTERNAL, ALTER engine_items SET STORAGE EXTERNAL;
INSERT INTO inputs (batch, k, items, payloads, transaction_ids, ids, txn_hashes)
SELECT b, k,
  (SELECT jsonb_agg(jsonb_build_object('transactionId', 'tx-' || b || '-' || k || '-' || n, 'id', gen_random_uuid(),
     'payload', jsonb_build_object('seq', n, 'fill', repeat('x', :payload_bytes))) ORDER BY n)::text FROM generate_series(1, b) n),
  (SELECT jsonb_agg(jsonb_build_object('seq', n, 'fill', repeat('x', :payload_bytes)) ORDER BY n)::text FROM generate_series(1, b) n),
  (SELECT array_agg('tx-' || b || '-' || k || '-' || n ORDER BY n)::text FROM generate_series(1, b) n),
  (SELECT array_agg(gen_random_uuid())::text FROM generate_series(1, b) n),
  (SELECT string_agg(decode(md5('tx-' || b || '-' || k || '-' || n), 'hex'), ''::bytea ORDER BY n)::text FROM generate_series(1, b) n)
FROM unnest(ARRAY[1, 10, 100]) b, generate_series(0, :inputs - 1) k;
-- The engine variants' inputs: the payloads as a text[] of JSON texts (append_segment's parameter), and the items
-- as push_messages takes them, with placeholders the variant replaces (the partition, a prefix that keeps every
-- transaction id new).
UPDATE inputs SET payload_texts = (SELECT array_agg(e::text ORDER BY n) FROM jsonb_array_elements(payloads::jsonb) WITH ORDINALITY x(e, n))::text,
                  engine_items = (SELECT jsonb_agg(jsonb_build_object('queue', 'lab', 'partition', 'PARTITION',
                                    'transactionId', 'PREFIX' || (e ->> 'transactionId'), 'payload', e -> 'payload') ORDER BY n)
                                    FROM jsonb_array_elements(items::jsonb) WITH ORDINALITY x(e, n))::text;
UPDATE inputs SET txn_keys = (SELECT array_agg(('x' || encode(substring(txn_hashes::bytea FROM 16 * (n - 1) + 1 FOR 8), 'hex'))::bit(64)::bigint ORDER BY n)
                                FROM generate_series(1, batch) n)::text;
VACUUM ANALYZE;
