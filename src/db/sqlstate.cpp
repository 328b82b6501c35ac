#include "db/sqlstate.h"

namespace queen::db {
namespace {
constexpr std::string_view kReadOnlySqlTransaction = "25006";
}  // namespace

bool reached_read_only_server(std::string_view s) noexcept { return s == kReadOnlySqlTransaction; }

FailureClass classify_sqlstate(std::string_view s) noexcept {
  if (s.empty()) return FailureClass::Transient;
  if (s == "40001" || s == "40P01") return FailureClass::Transient;
  if (reached_read_only_server(s)) return FailureClass::Transient;
  if (s.size() == 5) {
    std::string_view cls = s.substr(0, 2);
    if (cls == "08" || cls == "53" || cls == "57" || cls == "58") return FailureClass::Transient;
  }
  return FailureClass::Permanent;
}

const char* to_string(FailureClass c) noexcept {
  return c == FailureClass::Transient ? "transient" : "permanent";
}

}  // namespace queen::db
