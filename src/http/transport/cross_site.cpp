#include "http/transport/cross_site.h"

#include <cctype>

namespace queen::http {
namespace {

// "host[:port]" lower-cased, without the scheme's default port (browsers omit it in both headers,
// a proxy may not).
std::string authority(std::string_view host_port, std::string_view default_port) {
  std::string out;
  out.reserve(host_port.size());
  for (const char c : host_port) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string suffix = ":" + std::string(default_port);
  if (out.size() > suffix.size() && out.compare(out.size() - suffix.size(), suffix.size(), suffix) == 0) {
    out.resize(out.size() - suffix.size());
  }
  return out;
}

// The first entry of a list header ("a, b" -> "a"), without surrounding blanks.
std::string_view first_entry(std::string_view value) {
  value = value.substr(0, value.find(','));
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

// Whether `origin` ("scheme://host[:port]") names the host the request was sent to.
bool is_own_origin(std::string_view origin, const RequestSource& source) {
  const std::size_t separator = origin.find("://");
  if (separator == std::string_view::npos) return false;  // "null", or not an origin at all
  const std::string_view scheme = origin.substr(0, separator);
  const std::string_view host_port = origin.substr(separator + 3);
  if (host_port.empty() || host_port.find_first_of("/?#@") != std::string_view::npos) return false;
  const std::string_view default_port = scheme == "https" ? "443" : "80";
  const std::string own = authority(host_port, default_port);
  for (const std::string_view host : {std::string_view(source.host), first_entry(source.forwarded_host)}) {
    if (!host.empty() && authority(host, default_port) == own) return true;
  }
  return false;
}

}  // namespace

bool from_another_origin(const RequestSource& source) {
  if (!source.fetch_site.empty()) return source.fetch_site != "same-origin" && source.fetch_site != "none";
  if (!source.origin.empty()) return !is_own_origin(source.origin, source);
  return false;
}

std::optional<Response> refuse_cross_origin(const RequestSource& source, const CorsPolicy& cors, bool public_route) {
  if (public_route || !from_another_origin(source) || cors.allows(source.origin)) return std::nullopt;
  return Response::error(403, "Cross-origin request refused: the calling page's origin is not listed in "
                              "HTTP_CORS_ORIGINS");
}

}  // namespace queen::http
