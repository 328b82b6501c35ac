#pragma once
// A tenant (docs/tenants.md): whose queues, messages, KV keys and statistics
// a call sees. A strong type, not a string: it is made only from a name
// (explicitly) or as the default tenant (by name), so no call can leave its
// tenant out or pass some other string where a tenant is meant. The database
// API takes the name as text ('' is the default tenant; no procedure has a
// default for it, docs/procedures.md).
#include <cstddef>
#include <functional>
#include <string>
#include <utility>

namespace queen {

class Tenant {
 public:
  // The tenant a token's tenant claim (or a stored row) names.
  explicit Tenant(std::string name) : name_(std::move(name)) {}
  // The default tenant: the one of every request without authentication and
  // of a token without a tenant claim.
  static Tenant default_tenant() { return Tenant(std::string()); }

  Tenant() = delete;

  const std::string& name() const noexcept { return name_; }
  bool is_default() const noexcept { return name_.empty(); }

  friend bool operator==(const Tenant& a, const Tenant& b) noexcept { return a.name_ == b.name_; }
  friend bool operator!=(const Tenant& a, const Tenant& b) noexcept { return a.name_ != b.name_; }
  friend bool operator<(const Tenant& a, const Tenant& b) noexcept { return a.name_ < b.name_; }

 private:
  std::string name_;
};

}  // namespace queen

namespace std {
template <>
struct hash<queen::Tenant> {
  size_t operator()(const queen::Tenant& tenant) const noexcept { return hash<string>{}(tenant.name()); }
};
}  // namespace std
