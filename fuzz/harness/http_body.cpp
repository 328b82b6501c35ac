// Fuzzes the JSON body and query parsing of every route (src/http/transport/json_body.* and query.*, the
// src/http/api/*_request.* parsers). The parsers answer bad input by throwing HttpError (a 4xx the
// server renders); anything else escaping (another exception, a crash, a sanitizer report) is a finding.
//
// Input: one control byte, then the body (or the query string). The low 7 bits choose the parser (% 14); the
// high bit runs it under small request limits (config::LimitsConfig), so every limit is reachable within
// libFuzzer's input sizes, instead of the defaults.
#include <nlohmann/json.hpp>

#include <algorithm>

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
#include "http/transport/http_types.h"
#include "http/transport/json_body.h"
#include "http/transport/query.h"

using namespace queen;
using namespace queen::http;
using queen::fuzz::Cursor;

namespace {

// JSON text the parsers hand on to the database must be valid JSON.
void check_json(const std::string& text, const char* what) {
  FUZZ_CHECK(nlohmann::json::accept(text), "%s is not valid JSON: %.200s", what, text.c_str());
}

config::LimitsConfig small_limits() {
  config::LimitsConfig l = config::Config::defaults().limits;
  l.json_max_depth = 4;
  l.json_max_string_bytes = 64;
  l.json_max_array_items = 4;
  l.json_max_object_keys = 6;
  l.json_max_values = 40;
  l.push_max_items = 3;
  l.name_max_chars = 8;
  return l;
}

// Depth of arrays/objects in JSON text (brackets in strings do not count).
std::size_t json_depth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void check_push_item(const broker::PushItem& item, const config::LimitsConfig& limits) {
  FUZZ_CHECK(!item.queue.empty(), "a push item without a queue was accepted");
  check_json(item.payload_json, "payload_json");
  // The payload sits at least two levels down ({"items":[{...}]}), so it nests less than the limit.
  FUZZ_CHECK(json_depth(item.payload_json) < static_cast<std::size_t>(limits.json_max_depth),
             "a payload nested %zu deep passed JSON_MAX_DEPTH %d", json_depth(item.payload_json),
             limits.json_max_depth);
}

// "queue/partition?query" -> a Request as the router would build it.
Request make_request(std::string_view text) {
  Request r;
  r.method = "GET";
  const auto q = text.find('?');
  const std::string_view path = text.substr(0, q);
  const auto slash = path.find('/');
  r.params["queue"] = std::string(path.substr(0, slash));
  r.params["partition"] = slash == std::string_view::npos ? std::string() : std::string(path.substr(slash + 1));
  if (q != std::string_view::npos) r.query = parse_query_string(text.substr(q + 1));
  return r;
}

void run(int target, const std::string& body, const config::LimitsConfig& limits) {
  switch (target) {
    case 0: {
      const auto items = parse_push_body(body, limits);
      FUZZ_CHECK(items.size() <= static_cast<std::size_t>(limits.push_max_items), "%zu items passed PUSH_MAX_ITEMS",
                 items.size());
      for (const auto& item : items) check_push_item(item, limits);
      break;
    }
    case 1:
      FUZZ_CHECK(parse_ack_body(body, limits).items.size() == 1, "ack parsed to other than one item");
      break;
    case 2:
      (void)parse_ack_batch_body(body, limits);
      break;
    case 3: {
      const ConfigureRequest c = parse_configure_body(body, limits);
      FUZZ_CHECK(!c.queue.empty(), "configure without a queue was accepted");
      check_json(c.options_json, "options_json");
      break;
    }
    case 4:
      (void)parse_enabled_body(body, limits);
      break;
    case 5: {
      const int seconds = parse_lease_seconds(body, limits);
      FUZZ_CHECK(seconds >= 1 && seconds <= 86400 * 365, "lease seconds %d", seconds);
      break;
    }
    case 6: {
      const KvPutRequest kv = parse_kv_put_body(body, limits);
      check_json(kv.value_json, "value_json");
      FUZZ_CHECK(!kv.ttl_ms || (*kv.ttl_ms >= 0 && *kv.ttl_ms <= kMaxKvTtlMs), "ttlMs out of range");
      break;
    }
    case 7: {
      const broker::TransactionCommand t = parse_transaction_body(body, limits);
      for (const auto& op : t.operations) {
        if (op.kind == broker::TransactionOperation::Kind::Verbatim) check_json(op.verbatim_json, "verbatim_json");
        for (const auto& item : op.items) check_push_item(item, limits);
      }
      break;
    }
    case 8: {
      const QueryParams query = parse_query_string(body);
      const broker::DlqQuery q = parse_dlq_query(Tenant::default_tenant(), query, limits);
      FUZZ_CHECK(q.limit >= 1 && q.limit <= kMaxDlqPageSize && q.offset >= 0, "DLQ page out of range");
      break;
    }
    case 9:
    case 10:
    case 11: {
      const config::PopConfig pop = config::Config::defaults().pop;
      const Request request = make_request(body);
      const auto form = target == 9 ? PopForm::Wildcard : target == 10 ? PopForm::Specific : PopForm::Filter;
      const broker::PopCommand c = parse_pop_request(form, request, pop, limits);
      FUZZ_CHECK(c.query.batch >= 1 && c.query.batch <= pop.max_batch_size, "pop batch %d", c.query.batch);
      FUZZ_CHECK(c.timeout_ms >= 0 && c.timeout_ms <= pop.max_timeout_ms, "pop timeout out of range");
      break;
    }
    case 12:
      (void)parse_json_body(body, body.size() % 2 ? BodyRule::Required : BodyRule::Optional, limits);
      break;
    case 13:
      validate_kv_key(body, limits);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Cursor in(data, size);
  const std::uint8_t control = in.byte();
  const int target = (control & 0x7f) % 14;
  const config::LimitsConfig limits = (control & 0x80) ? small_limits() : config::Config::defaults().limits;
  const std::string body(in.rest());
  try {
    run(target, body, limits);
  } catch (const HttpError& e) {
    FUZZ_CHECK(e.status() >= 400 && e.status() < 500, "HttpError %d", e.status());
  }
  return 0;
}
