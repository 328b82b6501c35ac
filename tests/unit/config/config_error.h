#pragma once
// The boot error load_config raises for an environment, or "" when it loads.
#include <string>

#include "config/config.h"

namespace queen::config::testing {

inline std::string config_error_of(const EnvMap& env) {
  try {
    load_config(env, "h");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace queen::config::testing
