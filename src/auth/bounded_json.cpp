#include "auth/bounded_json.h"

#include <algorithm>
#include <set>
#include <vector>

namespace queen::auth {
namespace {

struct TooDeep {};
struct Duplicate {
  std::string key;
};

constexpr std::size_t kQuotedKeyBytes = 64;

// At most kQuotedKeyBytes of a (valid UTF-8) name, cut between characters.
std::string quoted_prefix(const std::string& name) {
  std::size_t cut = std::min(name.size(), kQuotedKeyBytes);
  while (cut > 0 && cut < name.size() && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return name.substr(0, cut);
}

}  // namespace

BoundedJson parse_bounded_json(std::string_view text, int max_depth) {
  BoundedJson out;
  // The member names seen so far in each object being parsed, innermost last.
  std::vector<std::set<std::string>> open_objects;
  try {
    out.value = nlohmann::json::parse(
        text.begin(), text.end(),
        [max_depth, &open_objects](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (depth > max_depth) throw TooDeep{};
          switch (event) {
            case nlohmann::json::parse_event_t::object_start: open_objects.emplace_back(); break;
            case nlohmann::json::parse_event_t::object_end: open_objects.pop_back(); break;
            case nlohmann::json::parse_event_t::key: {
              const auto& name = parsed.get_ref<const std::string&>();
              if (!open_objects.back().insert(name).second) throw Duplicate{quoted_prefix(name)};
              break;
            }
            default: break;
          }
          return true;
        });
  } catch (const nlohmann::json::exception&) {
    out.refusal = JsonRefusal::Invalid;
  } catch (const TooDeep&) {
    out.refusal = JsonRefusal::TooDeep;
  } catch (Duplicate& duplicate) {
    out.refusal = JsonRefusal::DuplicateKey;
    out.duplicate_key = std::move(duplicate.key);
  }
  return out;
}

}  // namespace queen::auth
