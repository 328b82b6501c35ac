#pragma once
// The OpenAPI 3.1 document of every route (docs/openapi.json), compiled into
// the broker so GET /openapi.json serves exactly the file of this source tree.
#include <string_view>

namespace queen::http {

std::string_view openapi_document() noexcept;

}  // namespace queen::http
