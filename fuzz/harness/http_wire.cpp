// Fuzzes the HTTP/1.1 request parsing of the transport (src/http/transport/wire_request.*: Beast's parser under the
// configured limits, the head checks, the split of the target into path and query), then hands what it
// produced to the route parsers the way the dispatcher would (body and query parsers of the route the path
// names). HttpError from a route parser is a 4xx the server renders; anything else escaping is a finding.
//
// Input: one control byte, then the raw request bytes. Bit 0 chooses small transport and request limits (so
// every limit is reachable within libFuzzer's input sizes) instead of the defaults; bits 4-7 set
// HTTP_MAX_QUERY_PARAMS - 1 under the small limits.
#include <string>

#include "config/config.h"
#include "fuzz_support.h"
#include "http/api/ack_request.h"
#include "http/api/dlq_request.h"
#include "http/api/kv_request.h"
#include "http/api/lease_request.h"
#include "http/api/maintenance_request.h"
#include "http/api/pop_request.h"
#include "http/api/push_request.h"
#include "http/api/queue_request.h"
#include "http/api/transaction_request.h"
#include "http/transport/query.h"
#include "http/transport/wire_request.h"
#include "util/percent_decode.h"

using namespace queen;
using namespace queen::http;
using queen::fuzz::Cursor;

namespace {

config::HttpConfig limits_for(std::uint8_t control) {
  config::HttpConfig limits = config::Config::defaults().http;  // the defaults
  if (control & 1) {
    // Small limits, so that every limit is reachable within libFuzzer's input sizes.
    limits.max_header_bytes = 1024;
    limits.max_header_count = 8;
    limits.max_url_bytes = 256;
    limits.max_query_params = 1 + (control >> 4);
    limits.max_body_bytes = 1024;
  }
  return limits;
}

config::LimitsConfig request_limits_for(std::uint8_t control) {
  config::LimitsConfig limits = config::Config::defaults().limits;
  if (control & 1) {
    limits.json_max_depth = 4;
    limits.json_max_string_bytes = 64;
    limits.json_max_array_items = 4;
    limits.json_max_object_keys = 6;
    limits.json_max_values = 40;
    limits.push_max_items = 3;
    limits.name_max_chars = 8;
  }
  return limits;
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// What the route for `request.path` would parse, as far as the route parsers are pure.
void route(const Request& request, const config::LimitsConfig& limits) {
  const std::string& p = request.path;
  const std::string& body = request.body;
  if (p == "/api/v1/push") {
    (void)parse_push_body(body, limits);
  } else if (p == "/api/v1/ack") {
    (void)parse_ack_body(body, limits);
  } else if (p == "/api/v1/ack/batch") {
    (void)parse_ack_batch_body(body, limits);
  } else if (p == "/api/v1/configure") {
    (void)parse_configure_body(body, limits);
  } else if (p == "/api/v1/transaction") {
    (void)parse_transaction_body(body, limits);
  } else if (starts_with(p, "/api/v1/system/maintenance")) {
    (void)parse_enabled_body(body, limits);
  } else if (starts_with(p, "/api/v1/lease/")) {
    (void)parse_lease_seconds(body, limits);
  } else if (starts_with(p, "/api/v1/kv/")) {
    validate_kv_key(util::percent_decode(std::string_view(p).substr(11), util::PlusMeans::Plus), limits);
    if (request.method == "PUT") (void)parse_kv_put_body(body, limits);
  } else if (starts_with(p, "/api/v1/dlq")) {
    (void)parse_dlq_query(Tenant::default_tenant(), request.query, limits);
  } else if (starts_with(p, "/api/v1/pop")) {
    Request r = request;
    r.params["queue"] = "q";
    r.params["partition"] = "p";
    (void)parse_pop_request(PopForm::Wildcard, r, config::Config::defaults().pop, limits);
    (void)parse_pop_request(PopForm::Filter, r, config::Config::defaults().pop, limits);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  queen::fuzz::quiet_logs();
  Cursor in(data, size);
  const std::uint8_t control = in.byte();
  const config::HttpConfig limits = limits_for(control);
  const WireParse parsed = parse_wire_request(in.rest(), limits);
  FUZZ_CHECK(!(parsed.request && parsed.error), "both a request and an error");
  if (parsed.error) {
    FUZZ_CHECK(parsed.error->status >= 400 && parsed.error->status < 500, "answered %d", parsed.error->status);
    return 0;
  }
  if (!parsed.request) return 0;
  const Request& request = *parsed.request;
  FUZZ_CHECK(request.path.size() <= static_cast<std::size_t>(limits.max_url_bytes), "URL past its limit");
  FUZZ_CHECK(request.query.size() <= static_cast<std::size_t>(limits.max_query_params), "query past its limit");
  FUZZ_CHECK(request.body.size() <= static_cast<std::size_t>(limits.max_body_bytes), "body past its limit");
  try {
    route(request, request_limits_for(control));
  } catch (const HttpError& e) {
    FUZZ_CHECK(e.status() >= 400 && e.status() < 500, "HttpError %d", e.status());
  }
  return 0;
}
