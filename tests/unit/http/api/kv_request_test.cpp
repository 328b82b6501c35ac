// Validation and rendering of PUT/GET/DELETE /api/v1/kv/:key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/api/kv_request.h"
#include "http/transport/http_types.h"

using namespace queen;
using nlohmann::json;

namespace {

int status_of(const std::function<void()>& call, std::string* message = nullptr) {
  try {
    call();
  } catch (const http::HttpError& e) {
    if (message) *message = e.what();
    return e.status();
  }
  return 0;
}

}  // namespace

TEST(KvRequest, KeysAreOneTo255Characters) {
  EXPECT_EQ(status_of([] { http::validate_kv_key("feature-flags"); }), 0);
  EXPECT_EQ(status_of([] { http::validate_kv_key(std::string(255, 'k')); }), 0);
  std::string message;
  EXPECT_EQ(status_of([] { http::validate_kv_key(""); }, &message), 400);
  EXPECT_EQ(message, "key must be a non-empty string");
  EXPECT_EQ(status_of([] { http::validate_kv_key(std::string(256, 'k')); }, &message), 400);
  EXPECT_EQ(message, "key must be at most 255 characters (NAME_MAX_CHARS)");
}

TEST(KvRequest, KeyLengthCountsCharactersNotBytes) {
  std::string two_byte_chars;
  for (int i = 0; i < 255; ++i) two_byte_chars += "\xC3\xA9";  // é
  EXPECT_EQ(status_of([&] { http::validate_kv_key(two_byte_chars); }), 0);
  EXPECT_EQ(status_of([&] { http::validate_kv_key(two_byte_chars + "\xC3\xA9"); }), 400);
}

TEST(KvRequest, PutTakesAnyJsonValueVerbatim) {
  const http::KvPutRequest put = http::parse_kv_put_body(R"({"value": {"n": 1, "tags": ["x"]}})");
  EXPECT_EQ(json::parse(put.value_json), json::parse(R"({"n": 1, "tags": ["x"]})"));
  EXPECT_FALSE(put.ttl_ms);
  EXPECT_EQ(http::parse_kv_put_body(R"({"value": null})").value_json, "null");
  EXPECT_EQ(http::parse_kv_put_body(R"({"value": "text"})").value_json, "\"text\"");
  EXPECT_EQ(http::parse_kv_put_body(R"({"value": [1, 2, 3]})").value_json, "[1,2,3]");
}

TEST(KvRequest, PutReadsAnOptionalTtl) {
  EXPECT_EQ(http::parse_kv_put_body(R"({"value": 1, "ttlMs": 3000})").ttl_ms, 3000);
  EXPECT_EQ(http::parse_kv_put_body(R"({"value": 1, "ttlMs": 0})").ttl_ms, 0);
  EXPECT_FALSE(http::parse_kv_put_body(R"({"value": 1, "ttlMs": null})").ttl_ms);
}

TEST(KvRequest, PutRefusesAMissingValueAndABadTtl) {
  std::string message;
  for (const char* body : {R"({})", R"({"ttlMs": 5})", R"([1])", R"("value")"}) {
    EXPECT_EQ(status_of([&] { http::parse_kv_put_body(body); }, &message), 400) << body;
    EXPECT_EQ(message, "value is required") << body;
  }
  for (const char* body : {R"({"value": 1, "ttlMs": -1})", R"({"value": 1, "ttlMs": 1.5})",
                           R"({"value": 1, "ttlMs": "1000"})", R"({"value": 1, "ttlMs": 99999999999999999})"}) {
    EXPECT_EQ(status_of([&] { http::parse_kv_put_body(body); }, &message), 400) << body;
    EXPECT_EQ(message, "ttlMs must be a non-negative integer (milliseconds)") << body;
  }
  EXPECT_EQ(status_of([] { http::parse_kv_put_body(""); }), 400);
  EXPECT_EQ(status_of([] { http::parse_kv_put_body("{"); }), 400);
}

TEST(KvRequest, RendersTheValueWithItsExpiry) {
  const json with_ttl =
      json::parse(http::render_kv_value({"k", R"({"a":[1,2]})", 1741079726123456}));
  EXPECT_EQ(with_ttl, json::parse(R"({"key": "k", "value": {"a": [1, 2]}, "expiresAt": "2025-03-04T09:15:26.123Z"})"));
  const json lasting = json::parse(http::render_kv_value({"k", "null", std::nullopt}));
  EXPECT_EQ(lasting, json::parse(R"({"key": "k", "value": null, "expiresAt": null})"));
}

TEST(KvRequest, RendersADelete) {
  EXPECT_EQ(json::parse(http::render_kv_deleted("k", true)), json::parse(R"({"key": "k", "deleted": true})"));
  EXPECT_EQ(json::parse(http::render_kv_deleted("k", false)), json::parse(R"({"key": "k", "deleted": false})"));
}
