#pragma once
// The database check a broker makes before it boots (docs/operations.md,
// "Boot checks"): a database the broker can reach but cannot use as
// configured (wrong password, no such database or role, no queen schema, a
// procedure missing) stops the boot; one that is down does not (the broker
// boots into spool mode and drains once it is back).
#include <string>

#include "config/config.h"

namespace queen::db {

struct BootCheck {
  enum class Outcome { Usable, Unreachable, Misconfigured };
  Outcome outcome = Outcome::Usable;
  // Unreachable and Misconfigured: one line naming the cause, the target and
  // (Misconfigured) the variable to fix.
  std::string detail;
};

// One probe connection (its SQLSTATE learnt as connect_probe.h does), then
// the request-path statements prepared on the server (PREPARE checks that the
// schema and every procedure they call exist, without calling any).
BootCheck check_database_at_boot(const config::DbConfig& config);

}  // namespace queen::db
