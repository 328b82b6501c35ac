#include "auth/bounded_json.h"

namespace queen::auth {
namespace {

struct TooDeep {};

}  // namespace

std::optional<nlohmann::json> parse_bounded_json(std::string_view text, int max_depth) {
  try {
    return nlohmann::json::parse(text.begin(), text.end(),
                                 [max_depth](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
                                   if (depth > max_depth) throw TooDeep{};
                                   return true;
                                 });
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  } catch (const TooDeep&) {
    return std::nullopt;
  }
}

}  // namespace queen::auth
