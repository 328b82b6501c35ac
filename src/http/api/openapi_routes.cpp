// GET /openapi.json: the API description (docs/openapi.json), public like /health.
#include <string>

#include "http/api/openapi_document.h"
#include "http/api/routes.h"

namespace queen::http {

void register_openapi_routes(Router& router, const RouteContext&) {
  router.add("GET", "/openapi.json", auth::kPublic,
             [](const Request&) { return Response::json(200, std::string(openapi_document())); });
}

}  // namespace queen::http
