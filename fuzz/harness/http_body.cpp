// Fuzzes the JSON body and query parsing of every route (src/http/json_body.*, request_parsing.*, kv_request.*,
// dlq_request.*, transaction_request.*, query.*). The parsers answer bad input by throwing HttpError (a 4xx the
// server renders); anything else escaping (another exception, a crash, a sanitizer report) is a finding.
//
// Input: one control byte choosing the parser (byte % 14), then the body (or the query string).
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "http/dlq_request.h"
#include "http/http_types.h"
#include "http/json_body.h"
#include "http/kv_request.h"
#include "http/query.h"
#include "http/request_parsing.h"
#include "http/transaction_request.h"

using namespace queen;
using namespace queen::http;
using queen::fuzz::Cursor;

namespace {

// JSON text the parsers hand on to the database must be valid JSON.
void check_json(const std::string& text, const char* what) {
  FUZZ_CHECK(nlohmann::json::accept(text), "%s is not valid JSON: %.200s", what, text.c_str());
}

void check_push_item(const broker::PushItem& item) {
  FUZZ_CHECK(!item.queue.empty(), "a push item without a queue was accepted");
  check_json(item.payload_json, "payload_json");
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

void run(int target, const std::string& body) {
  switch (target) {
    case 0:
      for (const auto& item : parse_push_body(body)) check_push_item(item);
      break;
    case 1:
      FUZZ_CHECK(parse_ack_body(body).items.size() == 1, "ack parsed to other than one item");
      break;
    case 2:
      (void)parse_ack_batch_body(body);
      break;
    case 3: {
      const ConfigureRequest c = parse_configure_body(body);
      FUZZ_CHECK(!c.queue.empty(), "configure without a queue was accepted");
      check_json(c.options_json, "options_json");
      break;
    }
    case 4:
      (void)parse_enabled_body(body);
      break;
    case 5: {
      const int seconds = parse_lease_seconds(body);
      FUZZ_CHECK(seconds >= 1 && seconds <= 86400 * 365, "lease seconds %d", seconds);
      break;
    }
    case 6: {
      const KvPutRequest kv = parse_kv_put_body(body);
      check_json(kv.value_json, "value_json");
      FUZZ_CHECK(!kv.ttl_ms || (*kv.ttl_ms >= 0 && *kv.ttl_ms <= kMaxKvTtlMs), "ttlMs out of range");
      break;
    }
    case 7: {
      const broker::TransactionCommand t = parse_transaction_body(body);
      for (const auto& op : t.operations) {
        if (op.kind == broker::TransactionOperation::Kind::Verbatim) check_json(op.verbatim_json, "verbatim_json");
        for (const auto& item : op.items) check_push_item(item);
      }
      break;
    }
    case 8: {
      const QueryParams query = parse_query_string(body);
      const broker::DlqQuery q = parse_dlq_query(query);
      FUZZ_CHECK(q.limit >= 1 && q.limit <= kMaxDlqPageSize && q.offset >= 0, "DLQ page out of range");
      break;
    }
    case 9:
    case 10:
    case 11: {
      const config::PopConfig pop;
      const Request request = make_request(body);
      const auto form = target == 9 ? PopForm::Wildcard : target == 10 ? PopForm::Specific : PopForm::Filter;
      const broker::PopCommand c = parse_pop_request(form, request, pop);
      FUZZ_CHECK(c.query.batch >= 1 && c.query.batch <= pop.max_batch_size, "pop batch %d", c.query.batch);
      FUZZ_CHECK(c.timeout_ms >= 0 && c.timeout_ms <= pop.max_timeout_ms, "pop timeout out of range");
      break;
    }
    case 12:
      (void)parse_json_body(body, body.size() % 2 ? BodyRule::Required : BodyRule::Optional);
      break;
    case 13:
      validate_kv_key(body);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Cursor in(data, size);
  const int target = in.byte() % 14;
  const std::string body(in.rest());
  try {
    run(target, body);
  } catch (const HttpError& e) {
    FUZZ_CHECK(e.status() >= 400 && e.status() < 500, "HttpError %d", e.status());
  }
  return 0;
}
