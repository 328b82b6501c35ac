#include "db/catalogue.h"

#include <iterator>

#include <nlohmann/json.hpp>
#include <pqxx/connection_base>

namespace queen::db::catalogue {
namespace {

// `pattern` with every `mark` replaced by `with`.
std::string substitute(const char* pattern, char mark, const std::string& with) {
  std::string out;
  for (const char* c = pattern; *c != '\0'; ++c) {
    if (*c == mark) {
      out += with;
    } else {
      out += *c;
    }
  }
  return out;
}

// "a,b" -> {"a", "b"}; "" -> {}.
std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from < names.size()) {
    const std::size_t comma = names.find(',', from);
    const std::size_t to = comma == std::string::npos ? names.size() : comma;
    out.push_back(names.substr(from, to - from));
    from = to + 1;
  }
  return out;
}

std::string column_sql(const Column& c) {
  switch (c.read) {
    case Read::AsIs: return c.source;
    case Read::AsText: return std::string(c.source) + "::text AS " + c.name;
    case Read::EpochUs: return std::string("(extract(epoch from ") + c.source + ") * 1000000)::int8 AS " + c.name;
  }
  return c.source;
}

template <typename P>
Entry entry_of(const char* name) {
  using R = typename P::result;
  Entry e{name, P::function, P::statement, P::patterns, P::pg_types, R::rows, nullptr, nullptr, nullptr, 0};
  if constexpr (R::rows) {
    static_assert(fields_fit(R::fields), "a column's type, reading or null does not fit its member");
    static constexpr auto columns = columns_of(R::fields);
    e.columns = columns.data();
    e.column_count = columns.size();
  } else {
    e.select = R::select;
    e.returns = R::returns;
  }
  return e;
}

}  // namespace

const std::vector<Entry>& entries() {
#define QUEEN_CATALOGUE_ENTRY(Id, ...) entry_of<Id>(#Id),
  static const std::vector<Entry> all = {QUEEN_CATALOGUE(QUEEN_CATALOGUE_ENTRY)
                                             QUEEN_CATALOGUE_VIEWS(QUEEN_CATALOGUE_ENTRY)};
#undef QUEEN_CATALOGUE_ENTRY
  return all;
}

const std::vector<View>& views() {
#define QUEEN_CATALOGUE_VIEW(Id, fn, path, access, parameters, page_size, queue_in_path) \
  View{Id::function, Id::statement, path, ViewAccess::access, split_names(parameters), page_size, queue_in_path},
  static const std::vector<View> all = {QUEEN_CATALOGUE_VIEWS(QUEEN_CATALOGUE_VIEW)};
#undef QUEEN_CATALOGUE_VIEW
  return all;
}

std::string statement_sql(const Entry& e) {
  std::string call = std::string("queen.") + e.function + "(";
  for (int i = 0; e.patterns[i] != nullptr; ++i) {
    if (i > 0) call += ", ";
    call += substitute(e.patterns[i], '#', std::to_string(i + 1));
  }
  call += ")";
  if (!e.rows) return substitute(e.select, '@', call);
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < e.column_count; ++i) {
    if (i > 0) sql += ", ";
    sql += column_sql(e.columns[i]);
  }
  return sql + " FROM " + call;
}

const std::vector<const char*>& sql_helpers() {
  static const std::vector<const char*> helpers = {
      "ack_item_action",
      "ack_item_error",
      "ack_item_rows",
      "ack_lease_group",
      "add_partition_cursors",
      "add_stream_usage",
      "add_tenant_usage",
      "analytics_per_queue",
      "apply_acks",
      "apply_stream_state_ops",
      "check_ack_items",
      "check_at_least",
      "check_growth_first",
      "check_push_items",
      "check_schedule_items",
      "check_stream_limit",
      "check_system_flag_key",
      "check_tenant_quota",
      "compute_queue_stats",
      "count_growth",
      "create_cursors",
      "create_push_targets",
      "cursor_is_free",
      "cursor_lags",
      "dead_letter",
      "delete_partition_head",
      "dlq_admin_max_per_call",
      "dlq_forget_payloads",
      "dlq_matching",
      "ensure_consumer",
      "expiry_cutoffs",
      "expiry_rule",
      "fire_locked_timers",
      "insert_new_timers",
      "insert_push_items",
      "iso_millis",
      "job_cycle",
      "job_lock_key",
      "job_runs_kept",
      "kv_check_key",
      "kv_give_back",
      "kv_is_live",
      "lag_seconds",
      "list_max_payload_bytes",
      "lock_ack_cursor",
      "lock_group_queues",
      "lock_push_targets",
      "message_delivery",
      "message_group_state",
      "move_cursors",
      "name_max_chars",
      "name_problem",
      "option_bool",
      "option_int",
      "parse_schedule_items",
      "partition_seq_at",
      "partitions_mode",
      "pop_candidates",
      "pop_claim_partitions",
      "pop_record_start_point",
      "push_item_deliver_at",
      "push_item_partition",
      "queue_child_give_back",
      "queue_give_back",
      "queue_namespace_of",
      "queue_options_json",
      "queue_pending_count",
      "queue_task_of",
      "refused_push_partitions",
      "register_consumer_group",
      "release_ack_batch",
      "requested_subscription",
      "requeued_transaction_id",
      "resources_groups",
      "schedule_messages",
      "select_dead_letters",
      "set_counted_bytes",
      "settle_drained",
      "start_cursor",
      "stats_age_seconds",
      "stats_bucket",
      "stats_bucket_minutes",
      "stats_counters",
      "stats_partitions",
      "stats_queues",
      "stats_series",
      "stats_time_range",
      "stats_work_lock_key",
      "stats_workers",
      "statistics_outgrown",
      "storage_quota_names",
      "store_ack_state",
      "stream_ack",
      "stream_final_ops",
      "stream_key_retention",
      "stream_limit",
      "stream_query_give_back",
      "stream_query_of",
      "store_messages",
      "subscription_start_at",
      "tenant_arg",
      "tenant_quota_limit",
      "tenant_usage_stripes",
      "trace_give_back",
      "trace_max_data_bytes",
      "trace_max_names",
      "transaction_ack",
      "uuid_or_null",
      "uuid_v7",
      "uuid_v7_ordinal",
  };
  return helpers;
}

const std::vector<const char*>& sql_admin_procedures() {
  static const std::vector<const char*> procedures = {
      "set_tenant_quota",
      "stream_usage_of",
      "tenant_usage_of",
  };
  return procedures;
}

namespace {

// "text, jsonb" (none: empty).
std::string argument_list(const Entry& e) {
  std::string out;
  for (int i = 0; e.pg_types[i] != nullptr; ++i) out += std::string(i > 0 ? ", " : "") + e.pg_types[i];
  return out;
}

// A scalar's type, or the columns a table result is read from.
std::string result_text(const Entry& e) {
  if (!e.rows) return e.returns;
  std::string out = "table(";
  for (std::size_t i = 0; i < e.column_count; ++i) {
    out += std::string(i > 0 ? ", " : "") + e.columns[i].source + " " + e.columns[i].pg_type;
  }
  return out + ")";
}

std::string route_text(const char* function) {
  for (const View& v : views()) {
    if (std::string(v.function) != function) continue;
    return std::string("`GET ") + v.path + "` (" + (v.access == ViewAccess::Operator ? "operator" : "read-only") +
           ")";
  }
  return "";
}

}  // namespace

std::string procedures_markdown() {
  std::string out =
      "| procedure | C++ (`call<...>`) | arguments | result | route (access) |\n"
      "|---|---|---|---|---|\n";
  for (const Entry& e : entries()) {
    out += std::string("| `queen.") + e.function + "` | `" + e.name + "` | " + argument_list(e) + " | " +
           result_text(e) + " | " + route_text(e.function) + " |\n";
  }
  return out;
}

std::string to_json() {
  nlohmann::json out;
  out["entries"] = nlohmann::json::array();
  for (const Entry& e : entries()) {
    nlohmann::json entry;
    entry["function"] = e.function;
    entry["statement"] = e.statement;
    entry["sql"] = statement_sql(e);
    entry["args"] = nlohmann::json::array();
    for (int i = 0; e.pg_types[i] != nullptr; ++i) entry["args"].push_back(e.pg_types[i]);
    entry["returns"] = e.returns != nullptr ? nlohmann::json(e.returns) : nlohmann::json();
    entry["columns"] = nlohmann::json::array();
    for (std::size_t i = 0; i < e.column_count; ++i) {
      entry["columns"].push_back({{"name", e.columns[i].source}, {"type", e.columns[i].pg_type}});
    }
    out["entries"].push_back(std::move(entry));
  }
  out["views"] = nlohmann::json::array();
  for (const View& v : views()) {
    out["views"].push_back({{"function", v.function}, {"path", v.path}, {"parameters", v.parameters},
                            {"operator", v.access == ViewAccess::Operator}});
  }
  out["helpers"] = sql_helpers();
  out["admin_procedures"] = sql_admin_procedures();
  return out.dump(2);
}

}  // namespace queen::db::catalogue

namespace queen::db {

void register_statements(pqxx::connection_base& connection) {
  for (const catalogue::Entry& e : catalogue::entries()) connection.prepare(e.statement, catalogue::statement_sql(e));
  connection.prepare(kPingStatement, "SELECT 1 AS one");
}

}  // namespace queen::db
