#include "config/command_line.h"

namespace queen::config {

CommandLine parse_command_line(const std::vector<std::string>& arguments) {
  if (arguments.empty()) return {};
  if (arguments.size() > 1) {
    return {CommandLine::Mode::Invalid,
            "one option at a time, got " + std::to_string(arguments.size()) + " arguments (see --help)"};
  }
  const std::string& flag = arguments.front();
  if (flag == "--help" || flag == "-h") return {CommandLine::Mode::Help, ""};
  if (flag == "--version") return {CommandLine::Mode::Version, ""};
  if (flag == "--check-config") return {CommandLine::Mode::CheckConfig, ""};
  if (flag == "--healthcheck") return {CommandLine::Mode::Healthcheck, ""};
  if (flag == "--catalogue") return {CommandLine::Mode::Catalogue, ""};
  return {CommandLine::Mode::Invalid,
          "unknown argument '" + flag + "' (expected --help, --version, --check-config, --healthcheck or --catalogue)"};
}

}  // namespace queen::config
