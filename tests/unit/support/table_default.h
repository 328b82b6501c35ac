#pragma once
// The default of a variable as the variable table declares it (config/variables.cpp), for the tests that show a
// component's own default is that one.
#include <cstdint>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "config/variables.h"

namespace queen::test {

// The declared default text of `name` ("" and a failed test when the table has no such variable).
inline std::string table_default_text(std::string_view name) {
  const config::Variable* variable = config::find_variable(name);
  EXPECT_NE(variable, nullptr) << name;
  return variable ? std::string(variable->default_text) : std::string();
}

// The declared default of the integer variable `name`.
inline std::int64_t table_default(std::string_view name) { return std::stoll(table_default_text(name)); }

}  // namespace queen::test
