#include "util/json_text.h"

namespace queen::util {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0x0F]);
    }
  }
  out.append(text.data() + run_start, text.size() - run_start);
  out.push_back('"');
}

void append_json_string_or_null(std::string& out, const std::optional<std::string>& text) {
  if (text) {
    append_json_string(out, *text);
  } else {
    out += "null";
  }
}

void append_json_key(std::string& out, std::string_view key) {
  append_json_string(out, key);
  out.push_back(':');
}

void append_json_member(std::string& out, std::string_view key, std::string_view text) {
  out.push_back(',');
  append_json_key(out, key);
  append_json_string(out, text);
}

void append_json_member_if_set(std::string& out, std::string_view key, const std::optional<std::string>& text) {
  if (text) append_json_member(out, key, *text);
}

void append_json_bool(std::string& out, bool value) { out += value ? "true" : "false"; }

}  // namespace queen::util
