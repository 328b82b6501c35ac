#pragma once
// base64url without padding (RFC 7515 §2), as JWS segments and JWK members use it.
#include <optional>
#include <string>
#include <string_view>

namespace queen::auth {

// nullopt for a character outside the alphabet, padding, an impossible
// length (4n+1) or non-zero trailing bits: one token has one spelling.
std::optional<std::string> base64url_decode(std::string_view text);

std::string base64url_encode(std::string_view bytes);

}  // namespace queen::auth
