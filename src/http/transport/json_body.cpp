#include "http/transport/json_body.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"

namespace queen::http {
namespace {

using nlohmann::json;

// Longest piece of client text quoted back in an error message.
constexpr std::size_t kMaxQuotedBytes = 64;

// `text` cut to kMaxQuotedBytes on a UTF-8 character boundary (the text is
// well-formed UTF-8: the lexer checked it), with "..." when cut.
std::string quoted_prefix(const std::string& text) {
  if (text.size() <= kMaxQuotedBytes) return text;
  std::size_t end = kMaxQuotedBytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...";
}

// The tree builder behind nlohmann::json::sax_parse. Like nlohmann's own
// json_sax_dom_parser (no recursion: a stack of the open containers), but
// every event is checked against the limits before anything is added, and
// the first violation stops the parse (returning false) with its message.
class BoundedTreeBuilder {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  BoundedTreeBuilder(json& root, const config::LimitsConfig& limits) : root_(root), limits_(limits) {}

  const std::string& error() const { return error_; }

  bool null() { return add(json(nullptr)) != nullptr; }
  bool boolean(bool value) { return add(json(value)) != nullptr; }
  bool number_integer(number_integer_t value) { return add(json(value)) != nullptr; }
  bool number_unsigned(number_unsigned_t value) { return add(json(value)) != nullptr; }
  bool number_float(number_float_t value, const string_t& /*text*/) { return add(json(value)) != nullptr; }
  bool string(string_t& value) { return check_string(value) && add(json(std::move(value))) != nullptr; }
  bool binary(binary_t& /*value*/) { return fail("Invalid JSON: binary values are not JSON"); }

  bool start_object(std::size_t /*elements*/) { return open(json::value_t::object); }
  bool key(string_t& name) {
    if (!check_string(name)) return false;
    auto& object = *stack_.back()->get_ptr<json::object_t*>();
    if (object.size() >= static_cast<std::size_t>(limits_.json_max_object_keys)) {
      return fail("JSON object with more than " + std::to_string(limits_.json_max_object_keys) +
                  " keys (JSON_MAX_OBJECT_KEYS)");
    }
    // try_emplace leaves `name` untouched when the key is already there.
    auto [slot, inserted] = object.try_emplace(std::move(name));
    if (!inserted) return fail("JSON object has a duplicate key \"" + quoted_prefix(name) + "\"");
    member_ = &slot->second;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t /*elements*/) { return open(json::value_t::array); }
  bool end_array() { return close(); }

  bool parse_error(std::size_t position, const std::string& token, const json::exception& e) {
    if (e.id == 406) {  // out_of_range: a number beyond a double (1e999)
      return fail("Invalid JSON: number out of range: " + quoted_prefix(token));
    }
    // nlohmann's text ("[json.exception.parse_error.101] parse error at line
    // 1, column 5: syntax error while parsing value - ...; last read: '...'")
    // without its id and without the echo of the input ("last read" may hold
    // megabytes or the very bytes that were not UTF-8).
    std::string detail = e.what();
    if (const auto id_end = detail.find("] "); detail.rfind("[json.exception.", 0) == 0 && id_end != std::string::npos) {
      detail.erase(0, id_end + 2);
    }
    const std::string echo = "; last read: '" + token + "'";
    if (const auto at = detail.find(echo); at != std::string::npos) detail.erase(at, echo.size());
    if (detail.empty()) detail = "syntax error at byte " + std::to_string(position);
    return fail("Invalid JSON: " + detail);
  }

 private:
  bool fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  bool check_string(const string_t& text) {
    if (text.size() > static_cast<std::size_t>(limits_.json_max_string_bytes)) {
      return fail("JSON string longer than " + std::to_string(limits_.json_max_string_bytes) +
                  " bytes (JSON_MAX_STRING_BYTES)");
    }
    if (text.find('\0') != string_t::npos) {
      return fail("JSON strings must not contain \\u0000 (NUL): PostgreSQL cannot store it");
    }
    return true;
  }

  // Places `value` at the current position (the root, the end of the open
  // array, or the member whose key was just read); nullptr past a limit.
  json* add(json&& value) {
    if (++values_ > static_cast<std::size_t>(limits_.json_max_values)) {
      fail("JSON body with more than " + std::to_string(limits_.json_max_values) + " values (JSON_MAX_VALUES)");
      return nullptr;
    }
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& container = *stack_.back();
    if (container.is_array()) {
      auto& array = *container.get_ptr<json::array_t*>();
      if (array.size() >= static_cast<std::size_t>(limits_.json_max_array_items)) {
        fail("JSON array with more than " + std::to_string(limits_.json_max_array_items) +
             " items (JSON_MAX_ARRAY_ITEMS)");
        return nullptr;
      }
      array.push_back(std::move(value));
      return &array.back();
    }
    json* member = member_;
    member_ = nullptr;
    *member = std::move(value);
    return member;
  }

  bool open(json::value_t type) {
    if (stack_.size() >= static_cast<std::size_t>(limits_.json_max_depth)) {
      return fail("JSON nesting deeper than " + std::to_string(limits_.json_max_depth) + " (JSON_MAX_DEPTH)");
    }
    json* container = add(json(type));
    if (container == nullptr) return false;
    // Stays valid while open: later siblings are added only after it closes.
    stack_.push_back(container);
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  json& root_;
  const config::LimitsConfig& limits_;
  std::vector<json*> stack_;  // the open containers, outermost first
  json* member_ = nullptr;    // the member slot a key() prepared
  std::size_t values_ = 0;
  std::string error_;
};

}  // namespace

nlohmann::json parse_json_body(const std::string& body, BodyRule rule, const config::LimitsConfig& limits) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    if (rule == BodyRule::Required) throw HttpError(400, "Empty request body");
    return json::object();
  }
  json root;
  BoundedTreeBuilder builder(root, limits);
  bool complete = false;
  try {
    complete = json::sax_parse(body, &builder);
  } catch (const json::exception&) {
    // sax_parse reports through parse_error(); this is a safety net.
    throw HttpError(400, "Invalid JSON: unreadable body");
  }
  if (!complete) {
    throw HttpError(400, builder.error().empty() ? std::string("Invalid JSON: unreadable body") : builder.error());
  }
  return root;
}

const nlohmann::json* present_field(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> string_field(const nlohmann::json& object, const char* name) {
  const nlohmann::json* f = present_field(object, name);
  if (!f) return std::nullopt;
  if (!f->is_string()) throw HttpError(400, std::string(name) + " must be a string");
  if (f->get_ref<const std::string&>().empty()) return std::nullopt;
  return f->get<std::string>();
}

std::optional<std::string> name_field(const nlohmann::json& object, const char* name,
                                      const config::LimitsConfig& limits) {
  std::optional<std::string> value = string_field(object, name);
  if (value) check_name(*value, name, limits);
  return value;
}

std::optional<std::string> lenient_string_field(const nlohmann::json& object, const char* name) {
  const nlohmann::json* f = present_field(object, name);
  if (!f || !f->is_string()) return std::nullopt;
  return f->get<std::string>();
}

std::optional<std::string> lenient_name_field(const nlohmann::json& object, const char* name, const char* label,
                                              const config::LimitsConfig& limits) {
  std::optional<std::string> value = lenient_string_field(object, name);
  if (value) check_name(*value, label, limits);
  return value;
}

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace queen::http
