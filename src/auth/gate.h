#pragma once
// The access gate the HTTP dispatcher calls before a handler runs
// (docs/auth.md): public routes and JWT_SKIP_PATHS pass as the anonymous
// principal; anything else needs a valid bearer token (401 otherwise) whose
// role reaches the route's level (403 otherwise). Built only when
// JWT_ENABLED is true: with authentication off there is no gate and no work.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "auth/access.h"
#include "auth/jwks_fetch.h"
#include "auth/principal.h"

namespace queen::config {
struct JwtConfig;
}

namespace queen::auth {

class JwksSource;
class JwtVerifier;
class TokenCache;

// Whether a request may reach its route, and as whom.
struct AccessDecision {
  bool granted = false;
  Principal principal;  // when granted
  int status = 0;       // 401 or 403 when not
  std::string error;    // the body's "error"
};

// The token of an Authorization value: after a case-insensitive "Bearer ",
// or the whole value when it is a bare token (no scheme, as some clients
// send it); "" when there is none.
std::string_view bearer_token(std::string_view authorization);

class Gate {
 public:
  using Now = std::function<std::int64_t()>;  // seconds since the epoch

  // Loads the keys JWT_* names; throws KeyError with a message for the boot
  // log when they are unusable (authentication never silently runs open).
  explicit Gate(const config::JwtConfig& config, JwksFetch fetch = fetch_with_curl, Now now = nullptr);
  ~Gate();

  // Fetches the JWKS once (when configured) and starts its refresh; stop() ends it.
  void start();
  void stop();

  // `route`: the matched route's demand, or null for a path no route serves
  // (a valid token then gets through, to the 404/405 that follows).
  AccessDecision authorize(std::string_view authorization, std::string_view path, const RouteAccess* route) const;


 private:
  SkipPaths skip_paths_;
  std::unique_ptr<JwksSource> jwks_;
  std::unique_ptr<JwtVerifier> verifier_;
  Now now_;
  std::unique_ptr<TokenCache> verified_;  // thread-safe
};

}  // namespace queen::auth
