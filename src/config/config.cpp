#include "config/config.h"

#include "config/db_hosts.h"
#include "config/variables.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

extern char** environ;

namespace queen::config {
namespace {

// The accepted forms of each kind of value, as the refusals name them (docs/configuration.md, Reading rules).
constexpr std::string_view kBooleanForms = "true, false (in any case), 1 or 0";
constexpr std::string_view kIntegerForms = "decimal digits, optionally preceded by '-'";
constexpr std::string_view kNumberForms = "a decimal number such as 2, 0.5 or 1e3";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool has_outer_whitespace(const std::string& text) {
  return !text.empty() && (is_space(text.front()) || is_space(text.back()));
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// How a secret is shown wherever the configuration is printed or refused.
std::string mask(const std::string& secret) { return secret.empty() ? "(unset)" : "***"; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// -?digits
bool is_integer_text(std::string_view text) {
  if (!text.empty() && text.front() == '-') text.remove_prefix(1);
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

// -?digits(.digits)?([eE][+-]?digits)?: what strtod takes beyond this (spaces, '+', hex, inf, nan) is refused.
bool is_number_text(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    return i > from;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (!digits()) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// The words of an enumerated Text variable ("a|b|c"), or none.
std::vector<std::string> enumerated_words(const Variable& spec) {
  std::vector<std::string> words;
  if (spec.values.find('|') == std::string_view::npos || spec.values.find(' ') != std::string_view::npos) return words;
  std::string_view rest = spec.values;
  while (true) {
    const auto bar = rest.find('|');
    words.emplace_back(rest.substr(0, bar));
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return words;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + words[i];
  return out;
}

// Reads typed values out of an EnvMap through the variable table (defaults
// and ranges come from there), collecting every refusal so that one boot
// reports every bad variable at once, and the effective value of each. A
// refused variable takes its default, so the rest can still be read. A
// variable's default is its table entry's default_text, but for a derived one
// (computed from other variables): its reader is given it.
class EnvReader {
 public:
  explicit EnvReader(const EnvMap& env) : env_(env) {}

  std::int64_t integer(const std::string& name) {
    const Variable& spec = variable(name, VariableKind::Integer, false);
    return read_integer(spec, table_integer(spec));
  }
  std::int64_t integer(const std::string& name, std::int64_t derived_default) {
    return read_integer(variable(name, VariableKind::Integer, true), derived_default);
  }

  int int32(const std::string& name) { return static_cast<int>(integer(name)); }
  int int32(const std::string& name, int derived_default) { return static_cast<int>(integer(name, derived_default)); }

  double number(const std::string& name) {
    const Variable& spec = variable(name, VariableKind::Number, false);
    const double fallback = table_number(spec);
    const std::string* raw = find(spec);
    if (!raw) return record(spec, fallback, false);
    // strtod reads the shape is_number_text accepts the same in every locale the broker runs in ("C").
    const double value = is_number_text(*raw) ? std::strtod(raw->c_str(), nullptr) : HUGE_VAL;
    if (!std::isfinite(value)) {
      return refuse(spec, *raw, "a number", kNumberForms, fallback);
    }
    if (value < static_cast<double>(spec.min) || value > static_cast<double>(spec.max)) {
      return refuse_range(spec, *raw, fallback);
    }
    return record(spec, value, true);
  }

  bool boolean(const std::string& name) {
    const Variable& spec = variable(name, VariableKind::Boolean, false);
    const bool fallback = table_boolean(spec);
    const std::string* raw = find(spec);
    if (!raw) return record(spec, fallback, false);
    if (*raw == "1" || equals_ignoring_case(*raw, "true")) return record(spec, true, true);
    if (*raw == "0" || equals_ignoring_case(*raw, "false")) return record(spec, false, true);
    return refuse(spec, *raw, "a boolean", kBooleanForms, fallback);
  }

  std::string text(const std::string& name) {
    const Variable& spec = variable(name, VariableKind::Text, false);
    return read_text(spec, std::string(spec.default_text));
  }
  std::string text(const std::string& name, const std::string& derived_default) {
    return read_text(variable(name, VariableKind::Text, true), derived_default);
  }

  // A Text variable whose table entry lists its words ("a|b|c"): exactly one of them.
  std::string word(const std::string& name) {
    const Variable& spec = variable(name, VariableKind::Text, false);
    const std::vector<std::string> words = enumerated_words(spec);
    if (words.empty()) throw std::logic_error("config: " + name + " lists no words in the variable table");
    const std::string fallback(spec.default_text);
    const std::string* raw = find(spec);
    if (!raw) return record(spec, fallback, false);
    if (std::find(words.begin(), words.end(), *raw) == words.end()) {
      return refuse(spec, *raw, "", joined(words), fallback);
    }
    return record(spec, *raw, true);
  }

  // Present even when empty: DEFAULT_SUBSCRIPTION_MODE="" is meaningful.
  std::string text_allow_empty(const std::string& name) {
    const Variable& spec = variable(name, VariableKind::Text, false);
    auto it = env_.find(name);
    const bool present = it != env_.end();
    return record(spec, present ? it->second : std::string(spec.default_text), present);
  }

  // A problem with one variable's value found after reading it (a list entry, a host list).
  void refuse_variable(const std::string& name, std::string message) {
    if (!refused_.insert(name).second) return;
    mark_refused(name);
    errors_.push_back(std::move(message));
  }

  // A rule between variables, checked only when each of them was read without a refusal (their
  // defaults would be compared otherwise); once broken, every one of them counts as refused.
  void relation(std::initializer_list<std::string> names, std::string message) {
    for (const std::string& name : names) {
      if (refused_.count(name) != 0) return;
    }
    refused_.insert(names.begin(), names.end());
    errors_.push_back(std::move(message));
  }

  // relation() for `name` compared with `other`: "<name> (<value>) must be <rule> <other> (<other_value>)",
  // then ": <why>" when given.
  void comparison(const std::string& name, std::int64_t value, const char* rule, const std::string& other,
                  std::int64_t other_value, const std::string& why = "") {
    std::string message = name + " (" + std::to_string(value) + ") must be " + rule + " " + other + " (" +
                          std::to_string(other_value) + ")";
    if (!why.empty()) message += ": " + why;
    relation({name, other}, std::move(message));
  }

  // Names in the environment that are not ours but look like they were meant to be. A near miss is an
  // error: a case-only difference from a variable, or a name beginning with a variable's first word
  // (DB_, JWT_, QUEEN_ ...) within near_miss_distance edits of it. Any other name with one of our prefixes
  // is a warning (Kubernetes service links, HTTP_PROXY, another program's DB_PASSWORD); reference-server
  // variables are accepted silently; the rest of the environment is not ours to judge.
  void check_unknown_names() {
    for (const auto& [name, value] : env_) {
      if (find_variable(name) != nullptr || is_reference_only_variable(name)) continue;
      const std::string upper = upper_case(name);
      if (const Variable* same = find_variable(upper)) {
        errors_.push_back(near_miss(name, value, *same));
        continue;
      }
      if (!has_our_prefix(upper)) continue;
      const ClosestVariable near = closest_variable(upper, upper.substr(0, upper.find('_') + 1));
      if (near.variable != nullptr && near.distance <= near_miss_distance(*near.variable)) {
        errors_.push_back(near_miss(name, value, *near.variable));
      } else {
        const Variable* hint = near.variable != nullptr ? near.variable : closest_variable(upper).variable;
        warnings_.push_back(name + " is not a queen-broker variable (closest: " + std::string(hint->name) +
                            "); ignored");
      }
    }
  }

  std::vector<std::string>& errors() { return errors_; }
  std::vector<std::string>& warnings() { return warnings_; }
  std::set<std::string>& refused() { return refused_; }

  // What was read, in the table's order.
  std::vector<Setting> settings() const {
    std::vector<Setting> out;
    for (const Variable& v : variables()) {
      const auto it = settings_.find(v.name);
      if (it != settings_.end()) out.push_back(it->second);
    }
    return out;
  }

 private:
  // A name missing from the table (or read as another kind) is a programming
  // error; the unit tests read every variable, so it never reaches a user.
  static const Variable& variable(const std::string& name, VariableKind kind, bool given_default) {
    const Variable* spec = find_variable(name);
    if (spec == nullptr || spec->kind != kind) {
      throw std::logic_error("config: " + name + " is read but not in the variable table as that kind");
    }
    if (spec->derived != given_default) {
      throw std::logic_error("config: " + name + (spec->derived ? " has a derived default: its reader computes it"
                                                                 : " has its default in the variable table only"));
    }
    return *spec;
  }

  // The default_text of a variable whose default is a value (not a rule).
  static std::int64_t table_integer(const Variable& spec) {
    const std::string text(spec.default_text);
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || errno == ERANGE || *end != '\0') throw bad_default(spec);
    return static_cast<std::int64_t>(value);
  }
  static double table_number(const Variable& spec) {
    const std::string text(spec.default_text);
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') throw bad_default(spec);
    return value;
  }
  static bool table_boolean(const Variable& spec) {
    if (spec.default_text == "true") return true;
    if (spec.default_text == "false") return false;
    throw bad_default(spec);
  }
  static std::logic_error bad_default(const Variable& spec) {
    return std::logic_error("config: the default of " + std::string(spec.name) + " in the variable table is not a " +
                            (spec.kind == VariableKind::Boolean ? "boolean" : "number"));
  }

  // Within this many edits of a variable's name, an unknown name is taken for a typo of it: one for short
  // names (PG_DB and PG_DSN are two apart), two for the rest.
  static std::size_t near_miss_distance(const Variable& known) { return known.name.size() < 8 ? 1 : 2; }

  static std::string upper_case(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
  }

  static bool has_our_prefix(const std::string& upper) {
    const auto& prefixes = variable_prefixes();
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&upper](const std::string& prefix) { return upper.rfind(prefix, 0) == 0; });
  }

  static std::string near_miss(const std::string& name, const std::string& value, const Variable& meant) {
    return name + "=" + (meant.secret ? mask(value) : value) + " is not a queen-broker variable; did you mean " +
           std::string(meant.name) + "?";
  }

  std::int64_t read_integer(const Variable& spec, std::int64_t fallback) {
    const std::string* raw = find(spec);
    if (!raw) return record(spec, fallback, false);
    if (!is_integer_text(*raw)) {
      return refuse(spec, *raw, "an integer", kIntegerForms, fallback);
    }
    errno = 0;
    const long long value = std::strtoll(raw->c_str(), nullptr, 10);
    if (errno == ERANGE || value < spec.min || value > spec.max) return refuse_range(spec, *raw, fallback);
    return record(spec, static_cast<std::int64_t>(value), true);
  }

  std::string read_text(const Variable& spec, const std::string& fallback) {
    const std::string* raw = find(spec);
    return record(spec, raw ? *raw : fallback, raw != nullptr);
  }

  static std::string given(const Variable& spec, const std::string& raw) {
    return spec.secret ? mask(raw) : "'" + raw + "'";
  }

  // NAME='value' is not <what> (accepted: <forms>), or, for enumerated words (no `what`), is not one of
  // <forms>; a value with whitespace around it is refused for that reason.
  template <typename T>
  T refuse(const Variable& spec, const std::string& raw, std::string_view what, std::string_view forms, T fallback) {
    std::string reason;
    if (has_outer_whitespace(raw)) {
      reason.append("has leading or trailing whitespace (accepted: ").append(forms).append(")");
    } else if (what.empty()) {
      reason.append("is not one of ").append(forms);
    } else {
      reason.append("is not ").append(what).append(" (accepted: ").append(forms).append(")");
    }
    errors_.push_back(std::string(spec.name) + "=" + given(spec, raw) + " " + reason);
    return refused_value(spec, raw, fallback);
  }

  template <typename T>
  T refuse_range(const Variable& spec, const std::string& raw, T fallback) {
    errors_.push_back(std::string(spec.name) + "=" + raw + " is out of range " + range_text(spec));
    return refused_value(spec, raw, fallback);
  }

  template <typename T>
  T refused_value(const Variable& spec, const std::string& raw, T fallback) {
    refused_.emplace(spec.name);
    settings_[spec.name] = Setting{&spec, raw, true, false, true};
    return fallback;
  }

  void mark_refused(const std::string& name) {
    const auto it = settings_.find(name);
    if (it != settings_.end()) it->second.refused = true;
  }

  template <typename T>
  T record(const Variable& spec, T value, bool from_environment) {
    const auto it = env_.find(std::string(spec.name));
    const bool set_empty = !from_environment && it != env_.end() && it->second.empty();
    settings_[spec.name] = Setting{&spec, shown(value), from_environment, set_empty, false};
    return value;
  }

  static std::string shown(const std::string& value) { return value; }
  static std::string shown(bool value) { return value ? "true" : "false"; }
  static std::string shown(std::int64_t value) { return std::to_string(value); }
  static std::string shown(double value) {
    std::ostringstream s;
    s << value;
    return s.str();
  }

  // An empty value is treated as unset (deployment templates often render "").
  const std::string* find(const Variable& spec) const {
    auto it = env_.find(std::string(spec.name));
    if (it == env_.end() || it->second.empty()) return nullptr;
    return &it->second;
  }

  const EnvMap& env_;
  std::vector<std::string> warnings_;
  std::vector<std::string> errors_;
  std::set<std::string> refused_;
  std::map<std::string_view, Setting> settings_;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  std::istringstream in(text);
  while (std::getline(in, current, ',')) {
    const auto first = current.find_first_not_of(" \t");
    const auto last = current.find_last_not_of(" \t");
    if (first == std::string::npos) continue;
    parts.push_back(current.substr(first, last - first + 1));
  }
  return parts;
}

bool is_host_port(const std::string& peer) {
  const auto colon = peer.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == peer.size()) return false;
  const std::string port = peer.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
  const int value = std::stoi(port);
  return value >= 1 && value <= 65535;
}

// An origin as a browser sends it: http(s)://host[:port], nothing after.
bool is_cors_origin(const std::string& origin) {
  std::size_t host = 0;
  if (origin.rfind("http://", 0) == 0) host = 7;
  else if (origin.rfind("https://", 0) == 0) host = 8;
  else return false;
  if (host == origin.size()) return false;
  return origin.find_first_of("/?#@ \t", host) == std::string::npos;
}

std::vector<std::string> reference_only_variables(const EnvMap& env) {
  std::vector<std::string> names;
  for (const auto& entry : env) {
    if (is_reference_only_variable(entry.first)) names.push_back(entry.first);
  }
  return names;
}

const char* on_off(bool value) { return value ? "true" : "false"; }

// QUEEN_SERVER_ID and LOG_LEVEL.
void read_process(EnvReader& r, Config& c, const std::string& hostname) {
  c.process.server_id = r.text("QUEEN_SERVER_ID", hostname.empty() ? "queen" : hostname);
  c.process.log_level = r.word("LOG_LEVEL");
  c.process.log_format = r.word("LOG_FORMAT");
  c.process.access_log = r.boolean("ACCESS_LOG");
  c.metrics.max_queues = r.int32("METRICS_MAX_QUEUES");
  c.metrics.refresh_interval_ms = r.integer("METRICS_REFRESH_INTERVAL_MS");
}

// The HTTP listener and its per-connection limits and deadlines (docs/limits.md).
void read_http(EnvReader& r, Config& c) {
  c.http.host = r.text("HOST");
  c.http.port = r.int32("PORT");
  c.http.max_threads = r.int32("HTTP_MAX_THREADS");
  c.http.min_threads = r.int32("NUM_WORKERS");
  if (c.http.min_threads > c.http.max_threads) {
    r.comparison("NUM_WORKERS", c.http.min_threads, "<=", "HTTP_MAX_THREADS", c.http.max_threads);
  }
  c.http.max_queued = r.int32("HTTP_MAX_QUEUED");
  c.http.keep_alive_timeout_ms = r.int32("HTTP_KEEPALIVE_TIMEOUT_MS");
  c.http.max_body_bytes = r.integer("MAX_BODY_BYTES");
  c.http.drain_timeout_ms = r.int32("HTTP_DRAIN_TIMEOUT_MS");
  c.http.shutdown_grace_ms = r.int32("SHUTDOWN_GRACE_MS");
  c.http.max_connections = r.int32("HTTP_MAX_CONNECTIONS");
  c.http.max_header_bytes = r.int32("HTTP_MAX_HEADER_BYTES");
  c.http.max_header_count = r.int32("HTTP_MAX_HEADERS");
  c.http.max_url_bytes = r.int32("HTTP_MAX_URL_BYTES");
  c.http.max_query_params = r.int32("HTTP_MAX_QUERY_PARAMS");
  c.http.header_timeout_ms = r.int32("HTTP_HEADER_TIMEOUT_MS");
  c.http.body_timeout_ms = r.int32("HTTP_BODY_TIMEOUT_MS");
  c.http.write_timeout_ms = r.int32("HTTP_WRITE_TIMEOUT_MS");
  // One largest body must always fit; raising MAX_BODY_BYTES alone raises the default budget with it.
  c.http.max_body_bytes_in_flight =
      r.integer("HTTP_MAX_BODY_BYTES_IN_FLIGHT", std::max(kMinBodyBytesInFlight, c.http.max_body_bytes));
  if (c.http.max_body_bytes_in_flight < c.http.max_body_bytes) {
    r.comparison("HTTP_MAX_BODY_BYTES_IN_FLIGHT", c.http.max_body_bytes_in_flight, ">=", "MAX_BODY_BYTES",
                 c.http.max_body_bytes, "one largest body must fit");
  }
  c.http.cors_origins = split_list(r.text("HTTP_CORS_ORIGINS"));
  for (const auto& origin : c.http.cors_origins) {
    if (origin == "*" ? c.http.cors_origins.size() != 1 : !is_cors_origin(origin)) {
      r.refuse_variable("HTTP_CORS_ORIGINS", "HTTP_CORS_ORIGINS entry '" + origin +
              "' is not an origin (scheme://host[:port], no path), or '*' alone");
    }
  }
}

// The PostgreSQL connection pool.
void read_db(EnvReader& r, Config& c) {
  std::string error;
  c.db.hosts = parse_db_hosts(r.text("PG_HOST"), error);
  const std::string ports = r.text("PG_PORT");
  if (!error.empty()) {
    r.refuse_variable("PG_HOST", error);
  } else {
    c.db.ports = parse_db_ports(ports, c.db.hosts.size(), error);
    if (!error.empty()) r.refuse_variable("PG_PORT", error);
  }
  c.db.name = r.text("PG_DB");
  c.db.user = r.text("PG_USER");
  c.db.password = r.text_allow_empty("PG_PASSWORD");
  c.db.use_ssl = r.boolean("PG_USE_SSL");
  c.db.ssl_reject_unauthorized = r.boolean("PG_SSL_REJECT_UNAUTHORIZED");
  c.db.pool_size = r.int32("DB_POOL_SIZE");
  c.db.connection_timeout_ms = r.int32("DB_CONNECTION_TIMEOUT");
  c.db.statement_timeout_ms = r.int32("DB_STATEMENT_TIMEOUT");
  c.db.lock_timeout_ms = r.int32("DB_LOCK_TIMEOUT");
  c.db.tcp_user_timeout_ms = r.int32("DB_TCP_USER_TIMEOUT_MS");
  c.db.keepalives_idle_s = r.int32("DB_KEEPALIVES_IDLE");
  c.db.keepalives_interval_s = r.int32("DB_KEEPALIVES_INTERVAL");
  c.db.keepalives_count = r.int32("DB_KEEPALIVES_COUNT");
}

// Pop defaults, bounds and the long-poll re-check floor.
void read_pop(EnvReader& r, Config& c) {
  c.pop.default_timeout_ms = r.int32("DEFAULT_TIMEOUT");
  c.pop.default_batch_size = r.int32("DEFAULT_BATCH_SIZE");
  c.pop.default_subscription_mode = r.text_allow_empty("DEFAULT_SUBSCRIPTION_MODE");
  c.pop.wait_initial_interval_ms = r.int32("POP_WAIT_INITIAL_INTERVAL_MS");
  c.pop.wait_backoff_threshold = r.int32("POP_WAIT_BACKOFF_THRESHOLD");
  c.pop.wait_backoff_multiplier = r.number("POP_WAIT_BACKOFF_MULTIPLIER");
  c.pop.wait_max_interval_ms = r.int32("POP_WAIT_MAX_INTERVAL_MS");
  c.pop.wait_recheck_budget_per_s = r.int32("POP_WAIT_RECHECK_BUDGET_PER_S");
  c.pop.max_batch_size = r.int32("POP_MAX_BATCH_SIZE");
  c.pop.max_partitions = r.int32("POP_MAX_PARTITIONS");
  c.pop.max_timeout_ms = r.int32("POP_MAX_TIMEOUT_MS");
  if (c.pop.wait_max_interval_ms < c.pop.wait_initial_interval_ms) {
    r.comparison("POP_WAIT_MAX_INTERVAL_MS", c.pop.wait_max_interval_ms, ">=", "POP_WAIT_INITIAL_INTERVAL_MS",
                 c.pop.wait_initial_interval_ms);
  }
}

// The push combiner, dedup window and the spool (FILE_BUFFER_*).
void read_push_and_spool(EnvReader& r, Config& c) {
  c.push.combine_max_items = r.int32("PUSH_COMBINE_MAX_ITEMS");
  c.push.combine_max_bytes = r.integer("PUSH_COMBINE_MAX_BYTES");
  c.push.max_concurrent_calls = r.int32("PUSH_MAX_CONCURRENT_CALLS");
  c.push.dedup_window_ms = r.integer("QUEEN_DEDUP_WINDOW_MS");
  c.push.dedup_cache_mb = r.integer("QUEEN_DEDUP_CACHE_MB");
  c.combine.ack_max_items = r.int32("ACK_COMBINE_MAX_ITEMS");
  c.combine.ack_max_bytes = r.integer("ACK_COMBINE_MAX_BYTES");
  c.combine.ack_max_concurrent_calls = r.int32("ACK_MAX_CONCURRENT_CALLS");
  // queen.pop_many accepts at most 1000 requests per call.
  c.combine.pop_max_messages = r.int32("POP_COMBINE_MAX_MESSAGES");
  c.combine.pop_max_concurrent_calls = r.int32("POP_MAX_CONCURRENT_CALLS");


  c.spool.dir = r.text("FILE_BUFFER_DIR");
  c.spool.flush_ms = r.int32("FILE_BUFFER_FLUSH_MS");
  c.spool.max_batch = r.int32("FILE_BUFFER_MAX_BATCH");
  c.spool.max_batch_bytes = r.integer("FILE_BUFFER_MAX_BATCH_BYTES");
  c.spool.poison_attempts = r.int32("FILE_BUFFER_POISON_ATTEMPTS");
  c.spool.events_per_file = r.int32("FILE_BUFFER_EVENTS_PER_FILE");
  c.spool.replay_lanes = r.int32("FILE_BUFFER_REPLAY_LANES");
  c.spool.fsync = r.word("FILE_BUFFER_FSYNC") == "batch" ? FsyncMode::Batch : FsyncMode::Off;
}

// The broker mesh: a peer list needs a port and a shared secret.
void read_mesh(EnvReader& r, Config& c) {
  c.mesh.port = r.int32("QUEEN_MESH_PORT");
  c.mesh.peers = split_list(r.text("QUEEN_MESH_PEERS"));
  for (const auto& peer : c.mesh.peers) {
    if (!is_host_port(peer)) r.refuse_variable("QUEEN_MESH_PEERS", "QUEEN_MESH_PEERS entry '" + peer + "' is not host:port");
  }
  c.mesh.host = r.text("QUEEN_MESH_HOST");
  c.mesh.sync_secret = r.text("QUEEN_SYNC_SECRET");
  c.mesh.heartbeat_ms = r.int32("QUEEN_SYNC_HEARTBEAT_MS");
  c.mesh.dead_threshold_ms = r.int32("QUEEN_SYNC_DEAD_THRESHOLD_MS");
  if (!c.mesh.peers.empty()) {
    // The mesh port is a control surface: it never runs unauthenticated, and
    // peers dial a port this broker must actually bind.
    if (c.mesh.sync_secret.empty()) {
      r.relation({"QUEEN_MESH_PEERS", "QUEEN_SYNC_SECRET"},
                 "QUEEN_MESH_PEERS is set but QUEEN_SYNC_SECRET is empty: mesh frames must be authenticated; "
              "set the same QUEEN_SYNC_SECRET on every broker");
    }
    if (c.mesh.port == 0) {
      r.relation({"QUEEN_MESH_PEERS", "QUEEN_MESH_PORT"},
                 "QUEEN_MESH_PEERS is set but QUEEN_MESH_PORT is not: peers need a port to dial");
    }
    if (c.mesh.dead_threshold_ms <= c.mesh.heartbeat_ms) {
      r.comparison("QUEEN_SYNC_DEAD_THRESHOLD_MS", c.mesh.dead_threshold_ms, "greater than", "QUEEN_SYNC_HEARTBEAT_MS",
                   c.mesh.heartbeat_ms);
    }
  }
}

// The sweeper, the jobs and the maintenance-flag refresh.
void read_background(EnvReader& r, Config& c) {
  c.sweeper.lease_ms = r.int32("QUEEN_SWEEPER_LEASE_MS");
  c.sweeper.max_sleep_ms = r.int32("QUEEN_SWEEPER_MAX_SLEEP_MS");

  c.jobs.retention_interval_ms = r.integer("RETENTION_INTERVAL");
  c.jobs.retention_batch_size = r.int32("RETENTION_BATCH_SIZE");
  c.jobs.eviction_interval_ms = r.integer("EVICTION_INTERVAL");
  c.jobs.eviction_batch_size = r.int32("EVICTION_BATCH_SIZE");
  c.jobs.stats_reconcile_interval_ms = r.integer("STATS_RECONCILE_INTERVAL_MS");
  c.jobs.table_statistics_interval_ms = r.integer("TABLE_STATISTICS_INTERVAL_MS");
  c.jobs.stats_history_retention_hours = r.int32("STATS_HISTORY_RETENTION_HOURS");
  c.jobs.broker_stats_flush_interval_ms = r.integer("BROKER_STATS_FLUSH_INTERVAL_MS");

  c.system.flag_refresh_ms = r.int32("SYSTEM_FLAG_REFRESH_MS");
}

// Request limits (docs/limits.md).
void read_limits(EnvReader& r, Config& c) {
  // Upper bounds: nesting stays far from the
  // handler threads' stack (rendering recurses per level), and no string can
  // exceed what one jsonb string holds (2^28 - 1 bytes); names stay within
  // the database's name domain (kNameMaxChars).
  c.limits.json_max_depth = r.int32("JSON_MAX_DEPTH");
  c.limits.json_max_string_bytes = r.integer("JSON_MAX_STRING_BYTES");
  c.limits.json_max_array_items = r.int32("JSON_MAX_ARRAY_ITEMS");
  c.limits.json_max_object_keys = r.int32("JSON_MAX_OBJECT_KEYS");
  c.limits.json_max_values = r.int32("JSON_MAX_VALUES");
  c.limits.push_max_items = r.int32("PUSH_MAX_ITEMS");
  c.limits.name_max_chars = r.int32("NAME_MAX_CHARS");
  c.limits.list_max_payload_bytes = r.integer("QUEEN_LIST_MAX_PAYLOAD_BYTES");
  c.limits.list_max_offset = r.int32("QUEEN_LIST_MAX_OFFSET");
  c.limits.stream_max_value_bytes = r.integer("QUEEN_STREAM_MAX_VALUE_BYTES");
  c.limits.stream_max_state_ops = r.int32("QUEEN_STREAM_MAX_STATE_OPS");
  c.limits.stream_max_push_items = r.int32("QUEEN_STREAM_MAX_PUSH_ITEMS");
  c.limits.stream_max_read_keys = r.int32("QUEEN_STREAM_MAX_READ_KEYS");
}

// Per-tenant push quotas (docs/tenants.md).
void read_tenant_quotas(EnvReader& r, Config& c) {
  TenantQuotaConfig& q = c.tenant_quotas;
  q.max_pending = r.integer("QUEEN_TENANT_MAX_PENDING");
  q.push_rate = r.number("QUEEN_TENANT_PUSH_RATE");
  q.push_burst = r.int32("QUEEN_TENANT_PUSH_BURST");
  q.overrides = r.boolean("QUEEN_TENANT_QUOTA_OVERRIDES");
  q.cache_ms = r.int32("QUEEN_TENANT_QUOTA_CACHE_MS");
  TenantStorageQuotas& s = q.storage;
  s.kv_keys = r.integer("QUEEN_TENANT_MAX_KV_KEYS");
  s.kv_bytes = r.integer("QUEEN_TENANT_MAX_KV_BYTES");
  s.traces = r.integer("QUEEN_TENANT_MAX_TRACES");
  s.trace_bytes = r.integer("QUEEN_TENANT_MAX_TRACE_BYTES");
  s.dead_letters = r.integer("QUEEN_TENANT_MAX_DEAD_LETTERS");
  s.queues = r.integer("QUEEN_TENANT_MAX_QUEUES");
  s.partitions = r.integer("QUEEN_TENANT_MAX_PARTITIONS");
  s.consumer_groups = r.integer("QUEEN_TENANT_MAX_CONSUMER_GROUPS");
  s.stream_state_bytes = r.integer("QUEEN_TENANT_MAX_STREAM_STATE_BYTES");
}

// One lane of the admission arbiter: QUEEN_FLOW_<LANE>_{SLOTS,QUEUE,WAIT_MS}.
// Its slots derive from QUEEN_FLOW_SLOTS; its queue derives from the thread
// count (`derived_queue`) unless the table gives a number; its wait is the table's.
FlowLaneConfig read_flow_lane(EnvReader& r, const std::string& lane, int derived_slots,
                              std::optional<int> derived_queue, int total_slots) {
  const std::string prefix = "QUEEN_FLOW_" + lane;
  FlowLaneConfig l;
  l.slots = r.int32(prefix + "_SLOTS", derived_slots);
  l.queue = derived_queue ? r.int32(prefix + "_QUEUE", *derived_queue) : r.int32(prefix + "_QUEUE");
  l.wait_ms = r.int32(prefix + "_WAIT_MS");
  if (l.slots > total_slots) {
    r.comparison(prefix + "_SLOTS", l.slots, "<=", "QUEEN_FLOW_SLOTS", total_slots,
                 "a lane cannot hold more slots than there are");
  }
  return l;
}

// The admission arbiter (docs/flow-control.md). Defaults derive from
// C = min(DB_POOL_SIZE, HTTP_MAX_THREADS), the database calls this broker can
// have in flight anyway, so with them nothing waits that would not have
// waited for a thread or a connection before, and a saturated Push or Pop
// lane leaves a quarter of C to the others.
void read_flow(EnvReader& r, Config& c) {
  const int capacity = std::min(c.db.pool_size, c.http.max_threads);
  c.flow.slots = r.int32("QUEEN_FLOW_SLOTS", capacity);
  if (c.flow.slots > c.db.pool_size) {
    r.comparison("QUEEN_FLOW_SLOTS", c.flow.slots, "<=", "DB_POOL_SIZE", c.db.pool_size,
                 "a slot is a database connection");
  }
  const int slots = c.flow.slots;
  const int queue = c.http.max_threads;  // never refuses for a full queue by default: the wait bound does
  c.flow.push = read_flow_lane(r, "PUSH", std::max(1, slots * 3 / 4), queue, slots);
  c.flow.pop = read_flow_lane(r, "POP", std::max(1, slots * 3 / 4), queue, slots);
  c.flow.ack = read_flow_lane(r, "ACK", std::max(1, slots / 2), queue, slots);
  c.flow.maint = read_flow_lane(r, "MAINT", std::max(1, slots / 16), std::nullopt, slots);
  // Reads wait on handler threads like every lane, so their slots and queue
  // are kept to half of them: a flood of slow reads leaves the other half to
  // health, metrics and the other lanes.
  const int read_threads = std::max(1, c.http.max_threads / 2);
  c.flow.read = read_flow_lane(r, "READ", std::max(1, slots / 8), c.http.max_threads / 4, slots);
  if (c.flow.read.slots + c.flow.read.queue > read_threads) {
    r.relation({"QUEEN_FLOW_READ_SLOTS", "QUEEN_FLOW_READ_QUEUE", "HTTP_MAX_THREADS"},
               "QUEEN_FLOW_READ_SLOTS + QUEEN_FLOW_READ_QUEUE (" +
            std::to_string(c.flow.read.slots + c.flow.read.queue) + ") must be <= HTTP_MAX_THREADS / 2 (" +
            std::to_string(read_threads) + "): reads may hold at most half the handler threads");
  }
  c.flow.read_statement_timeout_ms = r.int32("QUEEN_READ_STATEMENT_TIMEOUT_MS");
}

// JWT bearer authentication (docs/auth.md). Enabled without key material for
// the chosen algorithm is a boot error: the broker never runs open by accident.
// (Whether a PEM key parses is checked where keys are loaded, in src/auth.)
void read_jwt(EnvReader& r, Config& c) {
  JwtConfig& j = c.jwt;
  j.enabled = r.boolean("JWT_ENABLED");
  j.algorithm = r.word("JWT_ALGORITHM");
  j.secret = r.text("JWT_SECRET");
  j.public_key_pem = r.text("JWT_PUBLIC_KEY");
  j.jwks_url = r.text("JWT_JWKS_URL");
  j.issuer = r.text("JWT_ISSUER");
  j.audience = r.text("JWT_AUDIENCE");
  j.clock_skew_s = r.int32("JWT_CLOCK_SKEW");
  j.skip_paths = split_list(r.text("JWT_SKIP_PATHS"));
  j.jwks_refresh_interval_s = r.int32("JWT_JWKS_REFRESH_INTERVAL");
  j.jwks_timeout_ms = r.int32("JWT_JWKS_TIMEOUT_MS");
  j.roles_claim = r.text("JWT_ROLES_CLAIM");
  j.roles_array_claim = r.text("JWT_ROLES_ARRAY_CLAIM");
  j.role_admin = r.text("JWT_ROLE_ADMIN");
  j.role_read_write = r.text("JWT_ROLE_READ_WRITE");
  j.role_read_only = r.text("JWT_ROLE_READ_ONLY");
  j.tenant_claim = r.text("JWT_TENANT_CLAIM");
  if (!j.enabled) return;
  const bool has_public_keys = !j.public_key_pem.empty() || !j.jwks_url.empty();
  if (j.algorithm == "HS256" && j.secret.empty()) {
    r.relation({"JWT_ENABLED", "JWT_ALGORITHM", "JWT_SECRET"}, "JWT_ENABLED=true with JWT_ALGORITHM=HS256 needs JWT_SECRET");
  } else if ((j.algorithm == "RS256" || j.algorithm == "EdDSA") && !has_public_keys) {
    r.relation({"JWT_ENABLED", "JWT_ALGORITHM", "JWT_PUBLIC_KEY", "JWT_JWKS_URL"},
               "JWT_ENABLED=true with JWT_ALGORITHM=" + j.algorithm + " needs JWT_PUBLIC_KEY or JWT_JWKS_URL");
  } else if (j.algorithm == "auto" && j.secret.empty() && !has_public_keys) {
    r.relation({"JWT_ENABLED", "JWT_ALGORITHM", "JWT_SECRET", "JWT_PUBLIC_KEY", "JWT_JWKS_URL"},
               "JWT_ENABLED=true with JWT_ALGORITHM=auto needs JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL");
  }
}

}  // namespace

LoadedConfig read_config(const EnvMap& env, const std::string& hostname) {
  EnvReader r(env);
  LoadedConfig loaded;
  Config& c = loaded.config;
  read_process(r, c, hostname);
  read_http(r, c);
  read_db(r, c);
  read_pop(r, c);
  read_push_and_spool(r, c);
  read_mesh(r, c);
  read_background(r, c);
  read_limits(r, c);
  read_tenant_quotas(r, c);
  c.db.session_settings = database_session_settings(c);
  read_jwt(r, c);
  read_flow(r, c);
  c.encryption_key = r.text("QUEEN_ENCRYPTION_KEY");
  c.encryption_key_previous = r.text("QUEEN_ENCRYPTION_KEY_PREVIOUS");
  // Whether each key parses is checked through src/crypto's parser at boot (main.cpp, check_configuration).
  if (c.encryption_key.empty() && !c.encryption_key_previous.empty()) {
    r.relation({"QUEEN_ENCRYPTION_KEY_PREVIOUS", "QUEEN_ENCRYPTION_KEY"},
               "QUEEN_ENCRYPTION_KEY_PREVIOUS is set without QUEEN_ENCRYPTION_KEY: the previous key only decrypts "
               "beside a current one; set QUEEN_ENCRYPTION_KEY or unset both");
  }
  c.encryption_refresh_ms = r.int32("QUEEN_ENCRYPTION_REFRESH_MS");
  r.check_unknown_names();

  loaded.errors = std::move(r.errors());
  loaded.refused = std::move(r.refused());
  loaded.warnings = std::move(r.warnings());
  loaded.ignored = reference_only_variables(env);
  loaded.settings = r.settings();
  return loaded;
}

LoadedConfig load_config(const EnvMap& env, const std::string& hostname) {
  LoadedConfig loaded = read_config(env, hostname);
  if (!loaded.errors.empty()) {
    std::string message = "invalid configuration:";
    for (const auto& e : loaded.errors) message += "\n  " + e;
    throw ConfigError(message);
  }
  return loaded;
}

const Config& Config::defaults() {
  static const Config defaults = load_config({}, "").config;
  return defaults;
}

EnvMap read_process_environment() {
  EnvMap env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string::npos) continue;
    env.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return env;
}

std::string read_hostname() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "queen";
  return name;
}

namespace {

// The JWKS URL may carry credentials (user:password@host, a query token): only whether it is set is shown.
void describe_jwt(std::ostringstream& s, const JwtConfig& j) {
  s << "config: jwt enabled=" << on_off(j.enabled) << " algorithm=" << j.algorithm << " secret=" << mask(j.secret)
    << " public_key=" << (j.public_key_pem.empty() ? "(unset)" : "(set)")
    << " jwks_url=" << (j.jwks_url.empty() ? "(unset)" : "(set)") << " issuer='" << j.issuer << "' audience='"
    << j.audience << "' clock_skew_s=" << j.clock_skew_s << " skip_paths=";
  for (std::size_t i = 0; i < j.skip_paths.size(); ++i) s << (i ? "," : "") << j.skip_paths[i];
  s << " jwks_refresh_interval_s=" << j.jwks_refresh_interval_s << " jwks_timeout_ms=" << j.jwks_timeout_ms
    << " roles_claim=" << j.roles_claim << " roles_array_claim=" << j.roles_array_claim
    << " role_admin=" << j.role_admin << " role_read_write=" << j.role_read_write
    << " role_read_only=" << j.role_read_only << " tenant_claim=" << j.tenant_claim;
}

// The session settings that hand the storage quotas to the database: queen.tenant_max_<quota> for each quota it
// enforces and queen.tenant_quota_overrides (on/off).
std::vector<std::pair<std::string, std::string>> storage_quota_settings(const TenantQuotaConfig& q) {
  const TenantStorageQuotas& s = q.storage;
  // Names as queen_internal.tenant_quota_limit reads them (sql/queen_internal/tenant_quota_limit.sql).
  return {{"queen.tenant_max_kv_keys", std::to_string(s.kv_keys)},
          {"queen.tenant_max_kv_bytes", std::to_string(s.kv_bytes)},
          {"queen.tenant_max_traces", std::to_string(s.traces)},
          {"queen.tenant_max_trace_bytes", std::to_string(s.trace_bytes)},
          {"queen.tenant_max_queues", std::to_string(s.queues)},
          {"queen.tenant_max_partitions", std::to_string(s.partitions)},
          {"queen.tenant_max_consumer_groups", std::to_string(s.consumer_groups)},
          {"queen.tenant_max_stream_state_bytes", std::to_string(s.stream_state_bytes)},
          {"queen.tenant_quota_overrides", q.overrides ? "on" : "off"}};
}

// The session settings that hand the stream bounds to the database: queen.stream_max_<bound>.
std::vector<std::pair<std::string, std::string>> stream_limit_settings(const LimitsConfig& l) {
  // Names as queen_internal.stream_limit reads them (sql/queen_internal/stream_limit.sql).
  return {{"queen.stream_max_value_bytes", std::to_string(l.stream_max_value_bytes)},
          {"queen.stream_max_state_ops", std::to_string(l.stream_max_state_ops)},
          {"queen.stream_max_push_items", std::to_string(l.stream_max_push_items)},
          {"queen.stream_max_read_keys", std::to_string(l.stream_max_read_keys)}};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> database_session_settings(const Config& c) {
  std::vector<std::pair<std::string, std::string>> settings = storage_quota_settings(c.tenant_quotas);
  for (auto& setting : stream_limit_settings(c.limits)) settings.push_back(std::move(setting));
  // As queen_internal.dedup_window reads it: every push, transaction, timer and ack of this broker's sessions
  // deduplicates over the window its own pushes use.
  settings.emplace_back("queen.dedup_window_ms", std::to_string(c.push.dedup_window_ms));
  return settings;
}

std::vector<std::string> describe_settings(const std::vector<Setting>& settings) {
  std::vector<std::string> lines;
  for (const Setting& s : settings) {
    const std::string value = s.variable->secret ? mask(s.value) : s.refused ? "'" + s.value + "'" : s.value;
    const char* mark = s.refused ? "  (refused)" : s.from_environment ? "" : s.set_empty ? "  (default: set empty)" : "  (default)";
    lines.push_back(std::string(s.variable->name) + "=" + value + mark);
  }
  return lines;
}

std::vector<std::string> describe_config(const Config& c) {
  std::vector<std::string> lines;
  std::ostringstream s;
  auto flush = [&] {
    lines.push_back(s.str());
    s.str("");
  };
  s << "config: process server_id=" << c.process.server_id << " log_level=" << c.process.log_level
    << " log_format=" << c.process.log_format << " access_log=" << on_off(c.process.access_log)
    << " metrics_max_queues=" << c.metrics.max_queues
    << " metrics_refresh_interval_ms=" << c.metrics.refresh_interval_ms
    << " encryption_key=" << mask(c.encryption_key) << " encryption_key_previous=" << mask(c.encryption_key_previous)
    << " encryption_refresh_ms=" << c.encryption_refresh_ms;
  flush();
  s << "config: http host=" << c.http.host << " port=" << c.http.port << " min_threads=" << c.http.min_threads
    << " max_threads=" << c.http.max_threads << " max_queued=" << c.http.max_queued << " keep_alive_timeout_ms=" << c.http.keep_alive_timeout_ms
    << " max_body_bytes=" << c.http.max_body_bytes << " drain_timeout_ms=" << c.http.drain_timeout_ms
    << " shutdown_grace_ms=" << c.http.shutdown_grace_ms
    << " max_connections=" << c.http.max_connections << " max_header_bytes=" << c.http.max_header_bytes
    << " max_headers=" << c.http.max_header_count << " max_url_bytes=" << c.http.max_url_bytes
    << " max_query_params=" << c.http.max_query_params << " header_timeout_ms=" << c.http.header_timeout_ms
    << " body_timeout_ms=" << c.http.body_timeout_ms << " write_timeout_ms=" << c.http.write_timeout_ms
    << " max_body_bytes_in_flight=" << c.http.max_body_bytes_in_flight
    << " cors_origins=" << (c.http.cors_origins.empty() ? std::string("(none)") : join_list(c.http.cors_origins));
  flush();
  s << "config: db host=" << join_list(c.db.hosts) << " port=" << join_list(c.db.ports) << " name=" << c.db.name
    << " user=" << c.db.user
    << " password=" << mask(c.db.password) << " use_ssl=" << on_off(c.db.use_ssl)
    << " ssl_reject_unauthorized=" << on_off(c.db.ssl_reject_unauthorized) << " pool_size=" << c.db.pool_size
    << " connection_timeout_ms=" << c.db.connection_timeout_ms
    << " statement_timeout_ms=" << c.db.statement_timeout_ms << " lock_timeout_ms=" << c.db.lock_timeout_ms
    << " tcp_user_timeout_ms=" << c.db.tcp_user_timeout_ms << " keepalives_idle_s=" << c.db.keepalives_idle_s
    << " keepalives_interval_s=" << c.db.keepalives_interval_s << " keepalives_count=" << c.db.keepalives_count
    << " flag_refresh_ms=" << c.system.flag_refresh_ms;
  flush();
  s << "config: pop default_timeout_ms=" << c.pop.default_timeout_ms
    << " default_batch_size=" << c.pop.default_batch_size << " default_subscription_mode='"
    << c.pop.default_subscription_mode << "' wait_initial_interval_ms=" << c.pop.wait_initial_interval_ms
    << " wait_backoff_threshold=" << c.pop.wait_backoff_threshold
    << " wait_backoff_multiplier=" << c.pop.wait_backoff_multiplier
    << " wait_max_interval_ms=" << c.pop.wait_max_interval_ms
    << " wait_recheck_budget_per_s=" << c.pop.wait_recheck_budget_per_s << " max_batch_size=" << c.pop.max_batch_size
    << " max_partitions=" << c.pop.max_partitions << " max_timeout_ms=" << c.pop.max_timeout_ms;
  flush();
  s << "config: push combine_max_items=" << c.push.combine_max_items
    << " combine_max_bytes=" << c.push.combine_max_bytes
    << " max_concurrent_calls=" << c.push.max_concurrent_calls << " dedup_window_ms=" << c.push.dedup_window_ms;
  flush();
  s << "config: combine ack_max_items=" << c.combine.ack_max_items << " ack_max_bytes=" << c.combine.ack_max_bytes
    << " ack_max_concurrent_calls=" << c.combine.ack_max_concurrent_calls
    << " pop_max_messages=" << c.combine.pop_max_messages
    << " pop_max_concurrent_calls=" << c.combine.pop_max_concurrent_calls;
  flush();
  s << "config: spool dir=" << c.spool.dir << " flush_ms=" << c.spool.flush_ms << " max_batch=" << c.spool.max_batch
    << " max_batch_bytes=" << c.spool.max_batch_bytes << " poison_attempts=" << c.spool.poison_attempts
    << " events_per_file=" << c.spool.events_per_file << " fsync=" << to_string(c.spool.fsync)
    << " replay_lanes=" << c.spool.replay_lanes;
  flush();
  s << "config: mesh host=" << (c.mesh.host.empty() ? c.http.host : c.mesh.host) << " port=" << c.mesh.port
    << " peers=";
  for (std::size_t i = 0; i < c.mesh.peers.size(); ++i) s << (i ? "," : "") << c.mesh.peers[i];
  if (c.mesh.peers.empty()) s << "(none)";
  s << " sync_secret=" << mask(c.mesh.sync_secret) << " heartbeat_ms=" << c.mesh.heartbeat_ms
    << " dead_threshold_ms=" << c.mesh.dead_threshold_ms << " sweeper_lease_ms=" << c.sweeper.lease_ms
    << " sweeper_max_sleep_ms=" << c.sweeper.max_sleep_ms;
  flush();
  s << "config: jobs retention_interval_ms=" << c.jobs.retention_interval_ms
    << " retention_batch_size=" << c.jobs.retention_batch_size
    << " eviction_interval_ms=" << c.jobs.eviction_interval_ms
    << " eviction_batch_size=" << c.jobs.eviction_batch_size
    << " stats_reconcile_interval_ms=" << c.jobs.stats_reconcile_interval_ms
    << " table_statistics_interval_ms=" << c.jobs.table_statistics_interval_ms
    << " stats_history_retention_hours=" << c.jobs.stats_history_retention_hours
    << " broker_stats_flush_interval_ms=" << c.jobs.broker_stats_flush_interval_ms;
  flush();
  s << "config: limits json_max_depth=" << c.limits.json_max_depth
    << " json_max_string_bytes=" << c.limits.json_max_string_bytes
    << " json_max_array_items=" << c.limits.json_max_array_items
    << " json_max_object_keys=" << c.limits.json_max_object_keys << " json_max_values=" << c.limits.json_max_values
    << " push_max_items=" << c.limits.push_max_items << " name_max_chars=" << c.limits.name_max_chars
    << " list_max_payload_bytes=" << c.limits.list_max_payload_bytes << " list_max_offset=" << c.limits.list_max_offset;
  flush();
  s << "config: tenant quotas max_pending=" << c.tenant_quotas.max_pending
    << " push_rate=" << c.tenant_quotas.push_rate << " push_burst=" << c.tenant_quotas.push_burst
    << " overrides=" << on_off(c.tenant_quotas.overrides) << " cache_ms=" << c.tenant_quotas.cache_ms;
  flush();
  const TenantStorageQuotas& sq = c.tenant_quotas.storage;
  s << "config: tenant storage quotas kv_keys=" << sq.kv_keys << " kv_bytes=" << sq.kv_bytes
    << " traces=" << sq.traces << " trace_bytes=" << sq.trace_bytes << " dead_letters=" << sq.dead_letters
    << " queues=" << sq.queues << " partitions=" << sq.partitions << " consumer_groups=" << sq.consumer_groups
    << " stream_state_bytes=" << sq.stream_state_bytes;
  flush();
  describe_jwt(s, c.jwt);
  flush();
  s << "config: flow slots=" << c.flow.slots;
  const std::pair<const char*, const FlowLaneConfig*> lanes[] = {
      {"push", &c.flow.push}, {"pop", &c.flow.pop}, {"ack", &c.flow.ack}, {"maint", &c.flow.maint},
      {"read", &c.flow.read}};
  for (const auto& [name, lane] : lanes) {
    s << ' ' << name << "_slots=" << lane->slots << ' ' << name << "_queue=" << lane->queue << ' ' << name
      << "_wait_ms=" << lane->wait_ms;
  }
  s << " read_statement_timeout_ms=" << c.flow.read_statement_timeout_ms;
  flush();
  return lines;
}

const char* to_string(FsyncMode mode) noexcept { return mode == FsyncMode::Batch ? "batch" : "off"; }

}  // namespace queen::config
