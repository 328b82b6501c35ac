#include "spool/spool_log.h"

#include <spdlog/spdlog.h>

namespace queen::spool {

std::shared_ptr<spdlog::logger> spool_log() {
  if (auto existing = spdlog::get("spool")) return existing;
  auto fallback = spdlog::default_logger();
  auto created = std::make_shared<spdlog::logger>("spool", fallback->sinks().begin(), fallback->sinks().end());
  created->set_level(fallback->level());
  try {
    spdlog::register_logger(created);
  } catch (const spdlog::spdlog_ex&) {
    // Another thread registered it first: use that one.
    if (auto raced = spdlog::get("spool")) return raced;
  }
  return created;
}

}  // namespace queen::spool
