// Hostile request bodies (issue "Nothing a client sends can stop the broker"):
// the bounded parser of json_body.h and the limits of config::LimitsConfig,
// through parse_json_body and through the request parsers that use it.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "http/api/ack_request.h"
#include "http/api/kv_request.h"
#include "http/api/lease_request.h"
#include "http/api/pop_request.h"
#include "http/api/push_request.h"
#include "http/api/queue_request.h"
#include "http/api/transaction_request.h"
#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"

using namespace queen;
using namespace queen::http;
using nlohmann::json;

namespace {

const config::LimitsConfig kDefaults = config::Config::defaults().limits;

// The 400 message of `fn`, "<no error>" when it accepts. Every message must be
// valid UTF-8 (it is put in a JSON answer) and short (nothing is echoed whole).
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400) << e.what();
    const std::string message = e.what();
    EXPECT_TRUE(is_valid_utf8(message)) << message;
    EXPECT_LT(message.size(), 300u) << message.substr(0, 300);
    return message;
  }
  return "<no error>";
}

std::string parse_error(const std::string& body, const config::LimitsConfig& limits = kDefaults) {
  return error_of([&] { parse_json_body(body, BodyRule::Required, limits); });
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string nested_objects(std::size_t depth) {
  std::string out;
  out.reserve(depth * 6 + 2);
  for (std::size_t i = 0; i < depth; ++i) out += "{\"a\":";
  out += "1";
  out.append(depth, '}');
  return out;
}

std::string push_with_payload(const std::string& payload) {
  return R"({"items":[{"queue":"q","payload":)" + payload + "}]}";
}

std::string array_of(std::size_t n, const std::string& element) {
  std::string out = "[";
  out.reserve(n * (element.size() + 1) + 2);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    out += element;
  }
  out += ']';
  return out;
}

}  // namespace

// ------------------------------------------------------------------ nesting

TEST(HostileJson, A100000DeepArrayIsRefusedWithoutBuildingIt) {
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(parse_error(nested_arrays(100000)), "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
  // The issue's request: through the push parser, where the payload used to be dumped (recursively).
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(nested_arrays(100000))); }),
            "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(HostileJson, A100000DeepObjectIsRefused) {
  EXPECT_EQ(parse_error(nested_objects(100000)), "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(nested_objects(100000))); }),
            "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
}

TEST(HostileJson, DepthCountsEveryOpenContainerUpToTheLimit) {
  EXPECT_EQ(parse_error(nested_arrays(64)), "<no error>");
  EXPECT_EQ(parse_error(nested_arrays(65)), "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
  EXPECT_EQ(parse_error(nested_objects(64)), "<no error>");
  EXPECT_EQ(parse_error(nested_objects(65)), "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
  // A push envelope takes 3 levels: the payload gets the rest.
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(nested_arrays(61))); }), "<no error>");
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(nested_arrays(62))); }),
            "JSON nesting deeper than 64 (JSON_MAX_DEPTH)");
}

TEST(HostileJson, TheDepthLimitIsConfigurable) {
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.json_max_depth = 8;
  EXPECT_EQ(parse_error(nested_arrays(8), limits), "<no error>");
  EXPECT_EQ(parse_error(nested_arrays(9), limits), "JSON nesting deeper than 8 (JSON_MAX_DEPTH)");
}

TEST(HostileJson, AnAcceptedDeepPayloadIsStoredVerbatim) {
  const auto items = parse_push_body(push_with_payload(nested_arrays(61)));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].payload_json, nested_arrays(61));
}

// ------------------------------------------------------------------ strings

TEST(HostileJson, ATenMegabyteStringIsRefused) {
  const std::string big(10 * 1024 * 1024, 'x');
  EXPECT_EQ(parse_error("\"" + big + "\""), "JSON string longer than 8388608 bytes (JSON_MAX_STRING_BYTES)");
  EXPECT_EQ(error_of([&] { parse_push_body(push_with_payload("\"" + big + "\"")); }),
            "JSON string longer than 8388608 bytes (JSON_MAX_STRING_BYTES)");
  // Keys are strings too.
  EXPECT_EQ(parse_error("{\"" + big + "\":1}"), "JSON string longer than 8388608 bytes (JSON_MAX_STRING_BYTES)");
}

TEST(HostileJson, AStringAtTheLimitIsAccepted) {
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.json_max_string_bytes = 4096;
  EXPECT_EQ(parse_error("\"" + std::string(4096, 'x') + "\"", limits), "<no error>");
  EXPECT_EQ(parse_error("\"" + std::string(4097, 'x') + "\"", limits),
            "JSON string longer than 4096 bytes (JSON_MAX_STRING_BYTES)");
  // Bytes, not characters: 2049 two-byte characters are 4098 bytes.
  std::string accented;
  for (int i = 0; i < 2049; ++i) accented += "\xC3\xA9";
  EXPECT_EQ(parse_error("\"" + accented + "\"", limits), "JSON string longer than 4096 bytes (JSON_MAX_STRING_BYTES)");
}

TEST(HostileJson, BigPayloadStringsUnderTheDefaultPass) {
  const std::string blob(4 * 1024 * 1024, 'b');
  const auto items = parse_push_body(push_with_payload("{\"file\":\"" + blob + "\"}"));
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].payload_json.size(), blob.size() + 11);
}

// --------------------------------------------------------- arrays and objects

TEST(HostileJson, AHundredThousandItemArrayIsRefused) {
  EXPECT_EQ(parse_error(array_of(100000, "0")), "JSON array with more than 50000 items (JSON_MAX_ARRAY_ITEMS)");
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(array_of(100000, "1"))); }),
            "JSON array with more than 50000 items (JSON_MAX_ARRAY_ITEMS)");
  EXPECT_EQ(parse_error(array_of(50000, "0")), "<no error>");
  EXPECT_EQ(parse_error(array_of(50001, "0")), "JSON array with more than 50000 items (JSON_MAX_ARRAY_ITEMS)");
}

TEST(HostileJson, AnObjectWithTooManyKeysIsRefused) {
  auto object_of = [](int keys) {
    std::string out = "{";
    for (int i = 0; i < keys; ++i) out += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
    return out + "}";
  };
  EXPECT_EQ(parse_error(object_of(10000)), "<no error>");
  EXPECT_EQ(parse_error(object_of(10001)), "JSON object with more than 10000 keys (JSON_MAX_OBJECT_KEYS)");
  EXPECT_EQ(parse_error(object_of(100000)), "JSON object with more than 10000 keys (JSON_MAX_OBJECT_KEYS)");
}

TEST(HostileJson, TheValuesOfAWholeBodyAreBounded) {
  // Many small arrays, each under the per-array limit: the memory bound is the total.
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.json_max_values = 1000;
  EXPECT_EQ(parse_error(array_of(999, "0"), limits), "<no error>");  // 999 + the array itself
  EXPECT_EQ(parse_error(array_of(1000, "0"), limits), "JSON body with more than 1000 values (JSON_MAX_VALUES)");
  EXPECT_EQ(parse_error(array_of(40000, array_of(30, "[]"))),
            "JSON body with more than 1000000 values (JSON_MAX_VALUES)");
}

TEST(HostileJson, PushItemsAreBounded) {
  const std::string item = R"({"queue":"q","payload":1})";
  EXPECT_EQ(error_of([&] { parse_push_body("{\"items\":" + array_of(10000, item) + "}"); }), "<no error>");
  EXPECT_EQ(error_of([&] { parse_push_body("{\"items\":" + array_of(10001, item) + "}"); }),
            "push with more than 10000 items (PUSH_MAX_ITEMS)");
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.push_max_items = 2;
  EXPECT_EQ(error_of([&] { parse_push_body("{\"items\":" + array_of(3, item) + "}", limits); }),
            "push with more than 2 items (PUSH_MAX_ITEMS)");
  // A transaction counts the items of all its push operations.
  const std::string op = R"({"type":"push","items":)" + array_of(2, item) + "}";
  EXPECT_EQ(error_of([&] { parse_transaction_body("{\"operations\":[" + op + "]}", limits); }), "<no error>");
  EXPECT_EQ(error_of([&] { parse_transaction_body("{\"operations\":[" + op + "," + op + "]}", limits); }),
            "push with more than 2 items (PUSH_MAX_ITEMS)");
}

// ------------------------------------------------------ duplicates and NULs

TEST(HostileJson, DuplicateKeysAreRefusedAndNamed) {
  EXPECT_EQ(parse_error(R"({"a":1,"a":2})"), "JSON object has a duplicate key \"a\"");
  EXPECT_EQ(error_of([] { parse_push_body(R"({"items":[{"queue":"q","queue":"other"}]})"); }),
            "JSON object has a duplicate key \"queue\"");
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(R"({"n":{"x":1,"y":2,"x":3}})")); }),
            "JSON object has a duplicate key \"x\"");
  // The same key in different objects is fine.
  EXPECT_EQ(parse_error(R"([{"a":1},{"a":2},{"b":{"a":3}}])"), "<no error>");
  // A long duplicate key is quoted cut short.
  const std::string long_key(1000, 'k');
  const std::string message = parse_error("{\"" + long_key + "\":1,\"" + long_key + "\":2}");
  EXPECT_EQ(message.rfind("JSON object has a duplicate key \"kkkk", 0), 0u);
  EXPECT_NE(message.find("...\""), std::string::npos);
}

TEST(HostileJson, NulCharactersAreRefusedInValuesAndKeys) {
  const std::string expected = "JSON strings must not contain \\u0000 (NUL): PostgreSQL cannot store it";
  EXPECT_EQ(parse_error(R"({"a":"x\u0000y"})"), expected);
  EXPECT_EQ(parse_error(R"({"a\u0000":1})"), expected);
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload(R"({"text":"\u0000"})")); }), expected);
  // A raw NUL byte is not even a JSON string character.
  EXPECT_EQ(parse_error(std::string("{\"a\":\"x\0y\"}", 11)).rfind("Invalid JSON: ", 0), 0u);
  // Other escapes are fine.
  EXPECT_EQ(parse_error(R"({"a":"tab\there \u00e9 \ud83d\ude00"})"), "<no error>");
}

// ------------------------------------------------------------- bad encodings

TEST(HostileJson, InvalidUtf8IsACleanInvalidJson) {
  for (const std::string& bad : {std::string("\xFF"), std::string("\xC0\xAF"), std::string("\xE2\x82"),
                                std::string("\xED\xA0\x80"), std::string("\xF4\x90\x80\x80"),
                                std::string("ok\x80")}) {
    const std::string message = parse_error("{\"a\":\"" + bad + "\"}");
    EXPECT_EQ(message.rfind("Invalid JSON: ", 0), 0u) << message;
    EXPECT_NE(message.find("UTF-8"), std::string::npos) << message;
    EXPECT_EQ(message.find("last read"), std::string::npos) << message;
  }
  // Outside a string too.
  EXPECT_EQ(parse_error("{\"a\":\xFF}").rfind("Invalid JSON: ", 0), 0u);
  // A lone surrogate escape.
  EXPECT_EQ(parse_error(R"({"a":"\ud800"})").rfind("Invalid JSON: ", 0), 0u);
  EXPECT_EQ(parse_error(R"({"a":"\udc00x"})").rfind("Invalid JSON: ", 0), 0u);
}

TEST(HostileJson, SyntaxErrorsDoNotEchoTheBody) {
  const std::string secret(100000, 's');
  const std::string message = parse_error("{\"a\":\"" + secret + "\" oops}");
  EXPECT_EQ(message.rfind("Invalid JSON: ", 0), 0u) << message;
  EXPECT_EQ(message.find("sssssssss"), std::string::npos) << message;
  EXPECT_EQ(parse_error("{\"a\":"), "Invalid JSON: parse error at line 1, column 6: syntax error while parsing "
                                    "value - unexpected end of input; expected '[', '{', or a literal");
}

// ------------------------------------------------------------------ numbers

TEST(HostileJson, NumbersBeyondADoubleAreRefused) {
  EXPECT_EQ(parse_error(R"({"a":1e999})"), "Invalid JSON: number out of range: 1e999");
  EXPECT_EQ(parse_error(R"({"a":-1e999})"), "Invalid JSON: number out of range: -1e999");
  EXPECT_EQ(error_of([] { parse_push_body(push_with_payload("1E400")); }), "Invalid JSON: number out of range: 1E400");
  const std::string huge = "1" + std::string(400, '0');
  const std::string message = parse_error("[" + huge + "]");
  EXPECT_EQ(message.rfind("Invalid JSON: number out of range: 1000", 0), 0u) << message;
  EXPECT_NE(message.find("..."), std::string::npos);
}

TEST(HostileJson, IntegersBeyondInt64AreRefusedWhereAnIntegerIsExpected) {
  for (const char* ttl : {"9223372036854775808", "18446744073709551615", "99999999999999999999999", "-9223372036854775809",
                          "1e30"}) {
    EXPECT_EQ(error_of([&] { parse_kv_put_body(std::string(R"({"value":1,"ttlMs":)") + ttl + "}"); }),
              "ttlMs must be a non-negative integer (milliseconds)")
        << ttl;
  }
  for (const char* seconds : {"9223372036854775808", "18446744073709551615", "1e20", "2147483648"}) {
    EXPECT_EQ(error_of([&] { parse_lease_seconds(std::string(R"({"seconds":)") + seconds + "}"); }),
              "seconds must be a positive integer")
        << seconds;
  }
  for (const char* at : {"9223372036854775808", "18446744073709551615", "1e30", "-1"}) {
    EXPECT_EQ(error_of([&] {
                parse_push_body(std::string(R"({"items":[{"queue":"q","deliverAt":)") + at + "}]}");
              }),
              "push item 0: deliverAt must be an ISO-8601 timestamp or epoch milliseconds")
        << at;
  }
}

// -------------------------------------------------------------------- names

TEST(HostileNames, OverLongNamesInBodiesAreRefused) {
  const std::string n256(256, 'n');
  const std::string n255(255, 'n');
  auto push_field = [](const std::string& field, const std::string& value) {
    return error_of([&] {
      json item = {{"queue", "q"}, {"payload", 1}};
      item[field] = value;
      parse_push_body(json{{"items", json::array({item})}}.dump());
    });
  };
  EXPECT_EQ(push_field("queue", n255), "<no error>");
  EXPECT_EQ(push_field("queue", n256), "push item 0: Queue must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(push_field("partition", n256), "push item 0: Partition must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(push_field("transactionId", n256), "push item 0: TransactionId must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(push_field("namespace", n256), "push item 0: Namespace must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(push_field("task", n256), "push item 0: Task must be at most 255 characters (NAME_MAX_CHARS)");

  const std::string partition_id = "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2";
  EXPECT_EQ(error_of([&] {
              parse_ack_body(json{{"transactionId", n256}, {"partitionId", partition_id}}.dump());
            }),
            "transactionId must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] {
              parse_ack_body(
                  json{{"transactionId", "t"}, {"partitionId", partition_id}, {"leaseId", n256}}.dump());
            }),
            "leaseId must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] {
              parse_ack_batch_body(json{{"acknowledgments", json::array()}, {"consumerGroup", n256}}.dump());
            }),
            "consumerGroup must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] { parse_configure_body(json{{"queue", n256}}.dump()); }),
            "queue must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] { parse_configure_body(json{{"queue", "q"}, {"namespace", n256}}.dump()); }),
            "namespace must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] { parse_configure_body(json{{"queue", "q"}, {"task", n256}}.dump()); }),
            "task must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] {
              parse_transaction_body(json{{"operations", json::array({json{{"type", "ack"}}})},
                                          {"requiredLeases", json::array({n256})}}
                                         .dump());
            }),
            "requiredLeases entry must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] { validate_kv_key(n256); }), "key must be at most 255 characters (NAME_MAX_CHARS)");
}

TEST(HostileNames, NamesCountCharactersAndTheLimitIsConfigurable) {
  std::string accented;
  for (int i = 0; i < 255; ++i) accented += "\xC3\xA9";
  EXPECT_EQ(error_of([&] { validate_kv_key(accented); }), "<no error>");
  EXPECT_EQ(error_of([&] { validate_kv_key(accented + "e"); }), "key must be at most 255 characters (NAME_MAX_CHARS)");
  config::LimitsConfig limits = config::Config::defaults().limits;
  limits.name_max_chars = 10;
  EXPECT_EQ(error_of([&] { validate_kv_key("0123456789", limits); }), "<no error>");
  EXPECT_EQ(error_of([&] { validate_kv_key("0123456789a", limits); }),
            "key must be at most 10 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] { parse_push_body(R"({"items":[{"queue":"0123456789a"}]})", limits); }),
            "push item 0: Queue must be at most 10 characters (NAME_MAX_CHARS)");
}

TEST(HostileNames, PathAndQueryNamesMustBeUtf8WithoutNul) {
  config::PopConfig pop = config::Config::defaults().pop;
  Request r;
  r.params["queue"] = std::string("orders\0x", 8);
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Wildcard, r, pop); }), "queue must not contain NUL characters");
  r.params["queue"] = "orders\xFF";
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Wildcard, r, pop); }), "queue must be valid UTF-8");
  r.params["queue"] = std::string(256, 'q');
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Wildcard, r, pop); }),
            "queue must be at most 255 characters (NAME_MAX_CHARS)");
  r.params["queue"] = "orders";
  r.params["partition"] = std::string(300, 'p');
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Specific, r, pop); }),
            "partition must be at most 255 characters (NAME_MAX_CHARS)");
  for (const char* name : {"consumerGroup", "subscriptionMode", "subscriptionFrom"}) {
    r.query = {{name, std::string(256, 'g')}};
    EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Wildcard, r, pop); }),
              std::string(name) + " must be at most 255 characters (NAME_MAX_CHARS)");
  }
  r.query = {{"namespace", std::string("ns\0", 3)}};
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Filter, r, pop); }), "namespace must not contain NUL characters");
  r.query = {{"task", std::string(256, 't')}};
  EXPECT_EQ(error_of([&] { parse_pop_request(PopForm::Filter, r, pop); }),
            "task must be at most 255 characters (NAME_MAX_CHARS)");
  EXPECT_EQ(error_of([&] { validate_kv_key(std::string("k\0", 2)); }), "key must not contain NUL characters");
}

// --------------------------------------------------------------- rendering

TEST(HostileJson, AStoredValueOfAnyDepthRendersWithoutRecursion) {
  // A value written with psql bypasses the request limits; rendering splices it.
  const std::string deep = nested_arrays(100000);
  const std::string body = render_kv_value({"k", deep, std::nullopt});
  EXPECT_EQ(body, "{\"key\":\"k\",\"value\":" + deep + ",\"expiresAt\":null}");
}
