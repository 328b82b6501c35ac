#pragma once
// The "spool" log target. Every spool message goes through it so operators can
// filter on it (enter/leave transitions, quarantine errors, fallbacks).
#include <memory>

namespace spdlog {
class logger;
}

namespace queen::spool {

// Returns the logger registered as "spool"; when the process has not
// registered one, creates it with the default logger's sinks.
std::shared_ptr<spdlog::logger> spool_log();

}  // namespace queen::spool
