#pragma once
// Percent-decoding of URL path segments and form-encoded query components.
#include <string>
#include <string_view>

namespace queen::util {

enum class PlusMeans { Plus, Space };

// Decodes %XX escapes (either hex case). A '%' not followed by two hex digits
// is kept literally, as browsers and the official clients never produce one
// and rejecting it would only turn a typo into an opaque 400.
// Path segments keep '+' (PlusMeans::Plus); query strings are form-encoded,
// where '+' is a space (PlusMeans::Space).
std::string percent_decode(std::string_view text, PlusMeans plus);

}  // namespace queen::util
