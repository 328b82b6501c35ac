#pragma once
// The broker's command line: no argument starts it; each flag does one thing
// and starts nothing (--help lists them, from render_help()).
#include <string>
#include <vector>

namespace queen::config {

struct CommandLine {
  enum class Mode { Run, Help, Version, CheckConfig, Healthcheck, Catalogue, Invalid };
  Mode mode = Mode::Run;
  std::string error;  // Invalid: one line naming the argument
};

// `arguments` without the program name.
CommandLine parse_command_line(const std::vector<std::string>& arguments);

}  // namespace queen::config
