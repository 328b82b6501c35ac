#include "http/transport/http_types.h"

#include "util/json_text.h"

namespace queen::http {

const std::string& Request::param(const std::string& name) const {
  static const std::string kEmpty;
  auto it = params.find(name);
  return it == params.end() ? kEmpty : it->second;
}

std::optional<std::string> Request::query_value(const std::string& name) const {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

Response Response::json(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response Response::error(int status, const std::string& message) {
  std::string body = "{\"error\":";
  util::append_json_string(body, message);
  body += '}';
  return json(status, std::move(body));
}

Response Response::no_content() {
  Response r;
  r.status = 204;
  r.content_type.clear();
  return r;
}

Response Response::later() {
  Response r;
  r.deferred = true;
  return r;
}

}  // namespace queen::http
