-- A name column: 1 to name_max_chars() characters. A value outside raises 23514
-- naming the constraint; procedures check their arguments first and raise 22023
-- naming the field (see name_problem).
CREATE DOMAIN queen.name_text AS text
  CONSTRAINT name_text_length CHECK (((length(VALUE) >= 1) AND (length(VALUE) <= queen_internal.name_max_chars())));

COMMENT ON DOMAIN queen.name_text IS 'A name (queue, partition, consumer group, KV key, timer queue/partition): 1 to queen_internal.name_max_chars() (255) characters.';
