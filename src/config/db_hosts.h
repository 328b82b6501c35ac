#pragma once
// PG_HOST and PG_PORT: one server or a list of them (a primary and its
// standbys), tried in order by libpq (docs/operations-ha.md, "When PostgreSQL
// fails over"). Pure functions: the config reader reports their errors.
#include <string>
#include <vector>

namespace queen::config {

// "db1, db2,db3" -> {"db1", "db2", "db3"}. Blanks around an entry are dropped.
// An empty entry ("a,,b", a trailing comma) or a blank value sets `error`.
std::vector<std::string> parse_db_hosts(const std::string& text, std::string& error);

// One port for every host ("5432") or one per host ("5432,5433"), each 1..65535.
// A list whose length differs from `host_count`, or a bad entry, sets `error`.
std::vector<int> parse_db_ports(const std::string& text, std::size_t host_count, std::string& error);

// {"a", "b"} -> "a,b" (the form libpq takes for host and port lists).
std::string join_list(const std::vector<std::string>& items);
std::string join_list(const std::vector<int>& items);

}  // namespace queen::config
