-- One push item and where it goes: stored now, or scheduled as a timer.
-- sub_idx is its position among the items going the same way.
CREATE TYPE queen.push_item_route AS (
  idx integer,
  item jsonb,
  is_timer boolean,
  sub_idx integer
);
