#pragma once
// Requests a browser sends on behalf of a page of another origin (docs/auth.md
// "Browsers and CORS"). CORS alone does not stop them: a POST with a text/plain,
// form or multipart body, an HTML form and a GET (an <img>, a link) need no
// preflight, so they reach the broker and run; only their answer is withheld.
// The broker parses JSON whatever the Content-Type, so each would push, ack,
// configure or flip maintenance. A browser says where a request comes from
// (Sec-Fetch-Site, else Origin), and the official clients, curl and scripts
// send neither: such a request is refused unless its origin is listed in
// HTTP_CORS_ORIGINS or its route is public (the probes, the metrics, the
// dashboard's page and files: reads that change nothing, and a link from
// elsewhere must still open the dashboard).
#include <optional>
#include <string>
#include <string_view>

#include "http/transport/cors.h"
#include "http/transport/http_types.h"

namespace queen::http {

// Whether the browser that sent a request marks it as coming from a page of another origin.
// Sec-Fetch-Site decides when present: "same-origin" and "none" (typed, bookmarked) are not,
// "same-site" (another port of the same host is still another origin) and "cross-site" are,
// and so is any other value. Without it (old browsers, and browsers calling a plain-http host
// that is not localhost send none), an Origin header is compared with the Host the request
// was sent to (or X-Forwarded-Host, which a page cannot set without a preflight), ignoring the
// scheme, which a broker behind a TLS proxy cannot see; "null" is always another origin.
// With neither header it is no browser's cross-origin request (a client, curl, a browser's
// own navigation).
bool from_another_origin(const RequestSource& source);

// The refusal (403) of a request from another origin that HTTP_CORS_ORIGINS does not list, to a
// route that is not public, or nullopt when it may go on.
std::optional<Response> refuse_cross_origin(const RequestSource& source, const CorsPolicy& cors, bool public_route);

}  // namespace queen::http
