#include "db/sqlstate.h"

namespace queen::db {
namespace {
constexpr std::string_view kReadOnlySqlTransaction = "25006";

bool is_sqlstate_char(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'); }

bool looks_like_sqlstate(std::string_view s) {
  if (s.size() != 5) return false;
  for (const char c : s) {
    if (!is_sqlstate_char(c)) return false;
  }
  return true;
}
}  // namespace

bool reached_read_only_server(std::string_view s) noexcept { return s == kReadOnlySqlTransaction; }

FailureClass classify_sqlstate(std::string_view s) noexcept {
  if (s.empty() || reached_read_only_server(s)) return FailureClass::ConnectionLost;
  if (s.size() != 5) return FailureClass::Permanent;
  const std::string_view cls = s.substr(0, 2);
  if (cls == "08") return FailureClass::ConnectionLost;
  // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now,
  // 57P04 database_dropped, 57P05 idle_session_timeout: the session is gone.
  if (s >= "57P01" && s <= "57P05") return FailureClass::ConnectionLost;
  if (s == "40001" || s == "40P01" || s == "55P03") return FailureClass::Transient;
  if (cls == "53" || cls == "57" || cls == "58") return FailureClass::Transient;
  return FailureClass::Permanent;
}

bool is_bad_request(std::string_view s) noexcept { return s.size() == 5 && s.substr(0, 2) == "22"; }

bool enters_spool_mode(FailureClass c) noexcept { return c == FailureClass::ConnectionLost; }

bool retry_later(FailureClass c) noexcept { return c != FailureClass::Permanent; }

const char* to_string(FailureClass c) noexcept {
  switch (c) {
    case FailureClass::ConnectionLost: return "connection-lost";
    case FailureClass::Transient: return "transient";
    case FailureClass::Permanent: return "permanent";
  }
  return "permanent";
}

const char* transient_failure_text(std::string_view s) noexcept {
  if (classify_sqlstate(s) != FailureClass::Transient) return nullptr;
  if (s == "57014") {
    return "statement timeout (DB_STATEMENT_TIMEOUT): the database canceled this request; retry later";
  }
  if (s == "55P03") {
    return "lock timeout (DB_LOCK_TIMEOUT): another transaction holds what this request needs; retry later";
  }
  if (s == "40001") return "serialization failure: this request conflicted with a concurrent one; retry it";
  if (s == "40P01") return "deadlock detected: this request conflicted with a concurrent one; retry it";
  if (s.substr(0, 2) == "53") return "the database lacks resources for this request (disk, memory); retry later";
  return "the database could not complete this request now; retry later";
}

std::optional<ConfigurationFault> configuration_fault(std::string_view s) noexcept {
  if (s == "28P01") return ConfigurationFault{"password authentication failed", "PG_PASSWORD"};
  if (s == "28000") {
    return ConfigurationFault{"the server refuses this role (no such role, or pg_hba.conf rejects it)", "PG_USER"};
  }
  if (s == "3D000") return ConfigurationFault{"the database does not exist", "PG_DB"};
  if (s == "3F000") {
    return ConfigurationFault{"the database has no queen schema (migrations not deployed: sqitch deploy)", "PG_DB"};
  }
  if (s == "42883") {
    return ConfigurationFault{"a queen procedure the broker calls is missing (migrations not deployed or older than "
                              "the broker: sqitch deploy)",
                              "PG_DB"};
  }
  if (s == "42501") {
    return ConfigurationFault{"the role lacks a privilege on the queen schema", "PG_USER"};
  }
  return std::nullopt;
}

std::string_view sqlstate_in_verbose_message(std::string_view m) noexcept {
  // "<SEVERITY>:  <SQLSTATE>: <message>"; the severity may be localized, the layout is not.
  for (std::size_t at = m.find(":  "); at != std::string_view::npos; at = m.find(":  ", at + 1)) {
    const std::string_view rest = m.substr(at + 3);
    if (rest.size() > 5 && rest[5] == ':' && looks_like_sqlstate(rest.substr(0, 5))) return rest.substr(0, 5);
  }
  return {};
}

bool server_refused_connection(std::string_view m) noexcept { return m.find(":  ") != std::string_view::npos; }

}  // namespace queen::db
