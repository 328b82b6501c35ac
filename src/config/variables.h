#pragma once
// The declarative table of every environment variable the broker reads: name,
// kind, default, range, unit and a one-line description. load_config reads the
// environment through it (ranges come from here), `queen-broker --help` prints
// it, and docs/configuration.md is generated from it (a unit test compares them).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace queen::config {

enum class VariableKind { Integer, Number, Boolean, Text };

struct Variable {
  std::string_view name;
  std::string_view group;         // the section it is listed under
  VariableKind kind = VariableKind::Text;
  std::string_view default_text;  // the value used when unset, spelt as in the environment
  std::int64_t min = 0;           // Integer and Number: the valid range, inclusive
  std::int64_t max = 0;
  std::string_view unit;          // ms, s, bytes, ... ("" = a count or a word)
  std::string_view values;        // Text: the accepted words or shape ("" = any text)
  std::string_view doc;
  bool secret = false;            // masked wherever the configuration is printed
  bool derived = false;           // the default is computed from other variables (default_text says how)
};

// Every variable, in the order of --help and docs/configuration.md.
const std::vector<Variable>& variables();

// The entry of `name`, or null.
const Variable* find_variable(std::string_view name);

// "[min, max]", "true|false|1|0", the accepted words, or "any".
std::string range_text(const Variable& variable);

// Variables of the reference Queen server that have no meaning here: accepted without a warning.
// Exact names, and prefixes (a trailing '*').
const std::vector<std::string_view>& reference_only_patterns();
bool is_reference_only_variable(const std::string& name);

// The prefixes our variables share (QUEEN_, PG_, DB_, HTTP_, JWT_, FILE_BUFFER_, ...), derived from the table:
// for every first word (up to its '_') that two or more variables begin with, the longest prefix they all
// share, cut after an '_'. An unknown name with one of them is reported (config.h, UnknownVariable).
const std::vector<std::string>& variable_prefixes();

// The table's variable closest to `name` (case-insensitive optimal string alignment distance:
// an insertion, deletion, substitution or swap of neighbours is one edit), and that distance; only among
// the variables whose name begins with `head` when given (null variable when none does).
struct ClosestVariable {
  const Variable* variable = nullptr;
  std::size_t distance = 0;
};
ClosestVariable closest_variable(std::string_view name, std::string_view head = {});

// The text of `queen-broker --help` (flags, then every variable by group).
std::string render_help();

// The generated part of docs/configuration.md (every variable by group, then the ignored ones).
std::string render_reference_markdown();

}  // namespace queen::config
