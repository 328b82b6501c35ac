#include "spool/record_codec.h"

#include <Poco/Checksum.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "spool_test_support.h"

namespace queen::spool {
namespace {

using testing::encode_all;
using testing::make_event;

SpoolEvent full_event() {
  SpoolEvent e = make_event("orders", "acct-7", "order-4471", Tenant("acme"));
  e.producer_sub = "svc-billing";
  e.trace_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  e.deliver_at_ms = 1'900'000'000'123;
  e.encrypted = true;
  // Key order, spacing and a number no double can hold must all survive.
  e.payload_json = R"({"z": 1, "a": [true, null, "x"], "big": 123456789012345678901234567890.5})";
  return e;
}

std::uint32_t le32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

TEST(RecordCodec, RoundTripKeepsEveryFieldAndThePayloadVerbatim) {
  const SpoolEvent e = full_event();
  const DecodeResult r = decode_records(encode_record(e));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0], e);
  EXPECT_EQ(r.events[0].payload_json, e.payload_json);
  EXPECT_FALSE(r.torn_tail);
}

TEST(RecordCodec, AnEventWithoutDeliverAtDecodesWithoutOne) {
  SpoolEvent e = make_event("q", "Default", "t1");
  std::string record = encode_record(e);
  const DecodeResult plain = decode_records(record);
  ASSERT_EQ(plain.events.size(), 1u);
  EXPECT_FALSE(plain.events[0].deliver_at_ms.has_value());
}

TEST(RecordCodec, RoundTripOfMinimalEventAndScalarPayloads) {
  for (const char* payload : {"null", "{}", "[]", "\"text\"", "42", "-0.5e3", "false"}) {
    SpoolEvent e = make_event("q", "Default", "t1");
    e.payload_json = payload;
    const DecodeResult r = decode_records(encode_record(e));
    ASSERT_EQ(r.events.size(), 1u) << payload;
    EXPECT_EQ(r.events[0], e) << payload;
    EXPECT_FALSE(r.events[0].producer_sub.has_value());
    EXPECT_FALSE(r.events[0].trace_id.has_value());
  }
}

TEST(RecordCodec, ByteLayoutIsLengthBodyCrc) {
  const std::string bytes = encode_record(full_event());
  const std::uint32_t n = le32(bytes, 0);
  ASSERT_EQ(bytes.size(), kRecordOverheadBytes + n);
  Poco::Checksum crc(Poco::Checksum::TYPE_CRC32);
  crc.update(bytes.data(), 4 + n);
  EXPECT_EQ(le32(bytes, 4 + n), crc.checksum());
  const std::string body = bytes.substr(4, n);
  EXPECT_EQ(body.front(), '{');
  EXPECT_EQ(body.back(), '}');
  for (const char* key : {"\"queue\":\"orders\"", "\"partition\":\"acct-7\"", "\"tenant\":\"acme\"",
                          "\"transactionId\":\"order-4471\"", "\"producerSub\":\"svc-billing\"",
                          "\"traceId\":\"0f8fad5b-d9cb-469f-a165-70867728950e\"", "\"encrypted\":true",
                          "\"payload\":{\"z\": 1"})
    EXPECT_NE(body.find(key), std::string::npos) << key << " in " << body;
}

TEST(RecordCodec, DefaultTenantAndAbsentOptionalsAreOmittedFromTheBody) {
  const std::string bytes = encode_record(make_event("q", "Default", "t1"));
  const std::string body = bytes.substr(4, le32(bytes, 0));
  EXPECT_EQ(body.find("tenant"), std::string::npos) << body;
  EXPECT_EQ(body.find("producerSub"), std::string::npos) << body;
  EXPECT_EQ(body.find("traceId"), std::string::npos) << body;
  EXPECT_NE(body.find("\"encrypted\":false"), std::string::npos) << body;
}

TEST(RecordCodec, HeaderStringsThatLookLikeThePayloadKeyDoNotConfuseTheDecoder) {
  SpoolEvent e = make_event("a\",\"payload\":1,\"x\":\"", "p,\"payload\":", "t");
  e.payload_json = R"({"payload":"inner"})";
  const DecodeResult r = decode_records(encode_record(e));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0], e);
}

TEST(RecordCodec, InvalidEventsAreRejectedAndLeaveTheBufferUntouched) {
  std::string out = "prefix";
  SpoolEvent bad_payload = make_event("q", "Default", "t");
  bad_payload.payload_json = "{\"unterminated\": ";
  EXPECT_THROW(append_record(out, bad_payload), std::invalid_argument);
  SpoolEvent empty_payload = make_event("q", "Default", "t");
  empty_payload.payload_json = "";
  EXPECT_THROW(append_record(out, empty_payload), std::invalid_argument);
  SpoolEvent bad_utf8 = make_event("q\xff", "Default", "t");
  EXPECT_THROW(append_record(out, bad_utf8), std::invalid_argument);
  EXPECT_EQ(out, "prefix");
}

TEST(RecordCodec, BodiesWithOtherKeyOrderStillDecode) {
  const std::string body =
      R"({"payload":{"k":[1,2]},"encrypted":false,"transactionId":"t9","partition":"P","queue":"Q","tenant":"T"})";
  SpoolEvent e(Tenant::default_tenant());
  std::string error;
  ASSERT_TRUE(parse_record_body(body, e, error)) << error;
  EXPECT_EQ(e.queue, "Q");
  EXPECT_EQ(e.partition, "P");
  EXPECT_EQ(e.tenant.name(), "T");
  EXPECT_EQ(e.transaction_id, "t9");
  EXPECT_EQ(e.payload_json, R"({"k":[1,2]})");
}

TEST(RecordCodec, BodiesMissingRequiredKeysAreRejected) {
  SpoolEvent e(Tenant::default_tenant());
  std::string error;
  EXPECT_FALSE(parse_record_body(R"({"partition":"P","transactionId":"t","encrypted":false,"payload":1})", e, error));
  EXPECT_NE(error.find("queue"), std::string::npos);
  EXPECT_FALSE(parse_record_body(R"({"queue":"Q","partition":"P","transactionId":"t","payload":1})", e, error));
  EXPECT_FALSE(parse_record_body(R"({"queue":"Q","partition":"P","transactionId":"t","encrypted":false})", e, error));
  EXPECT_FALSE(parse_record_body(R"({"queue":7,"partition":"P","transactionId":"t","encrypted":false,"payload":1})",
                                 e, error));
  EXPECT_FALSE(parse_record_body("[1,2]", e, error));
  EXPECT_FALSE(parse_record_body("not json", e, error));
}

// Cutting the file anywhere inside its last record must yield exactly the
// records before it, and flag a torn tail unless the cut is on a boundary.
TEST(RecordCodec, TruncationAtEveryOffsetOfTheLastRecordIsATornTail) {
  const std::vector<SpoolEvent> events = {full_event(), make_event("q", "Default", "t2"), full_event()};
  const std::string bytes = encode_all(events);
  const std::size_t before_last = encode_all({events[0], events[1]}).size();
  for (std::size_t cut = before_last; cut <= bytes.size(); ++cut) {
    const DecodeResult r = decode_records(std::string_view(bytes).substr(0, cut));
    if (cut == bytes.size()) {
      EXPECT_EQ(r.events.size(), 3u);
      EXPECT_FALSE(r.torn_tail);
      continue;
    }
    ASSERT_EQ(r.events.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(r.events[1], events[1]);
    EXPECT_EQ(r.good_bytes, before_last) << "cut at " << cut;
    EXPECT_EQ(r.torn_tail, cut > before_last) << "cut at " << cut;
  }
}

TEST(RecordCodec, GarbageAfterGoodRecordsIsATornTail) {
  const std::vector<SpoolEvent> events = {make_event("q", "Default", "t1"), make_event("q", "Default", "t2")};
  const std::string good = encode_all(events);
  const std::vector<std::string> tails = {
      std::string("\x00\x00\x00\x00", 4),               // zero length
      std::string("\xff\xff\xff\x7f", 4) + "abc",       // absurd length
      std::string("\x05\x00\x00\x00", 4) + "hello" + std::string("\x01\x02\x03\x04", 4),  // bad checksum
      "random garbage that is long enough to hold a header and more",
  };
  for (const auto& tail : tails) {
    const DecodeResult r = decode_records(good + tail);
    EXPECT_EQ(r.events, events);
    EXPECT_EQ(r.good_bytes, good.size());
    EXPECT_TRUE(r.torn_tail);
    EXPECT_FALSE(r.tail_reason.empty());
  }
}

TEST(RecordCodec, AFlippedBitIsCaughtByTheChecksum) {
  const std::string first = encode_record(make_event("q", "Default", "t1"));
  std::string bytes = first + encode_record(make_event("q", "Default", "t2"));
  bytes[first.size() + 10] ^= 0x01;  // inside the second record's body
  const DecodeResult r = decode_records(bytes);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(r.torn_tail);
  EXPECT_NE(r.tail_reason.find("checksum"), std::string::npos) << r.tail_reason;
}

TEST(RecordCodec, AWellFramedRecordThatIsNotAnEventIsNotReplayed) {
  // Frame "{}" by hand with a correct checksum.
  std::string bytes("\x02\x00\x00\x00{}", 6);
  Poco::Checksum crc(Poco::Checksum::TYPE_CRC32);
  crc.update(bytes.data(), static_cast<unsigned>(bytes.size()));
  const std::uint32_t c = crc.checksum();
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((c >> (8 * i)) & 0xff));
  ASSERT_EQ(read_frame(bytes).status, FrameStatus::Complete);
  const DecodeResult r = decode_records(bytes);
  EXPECT_TRUE(r.events.empty());
  EXPECT_TRUE(r.torn_tail);
  EXPECT_NE(r.tail_reason.find("malformed"), std::string::npos) << r.tail_reason;
}

TEST(RecordCodec, EmptyInputHasNoRecordsAndNoTail) {
  const DecodeResult r = decode_records("");
  EXPECT_TRUE(r.events.empty());
  EXPECT_FALSE(r.torn_tail);
  EXPECT_EQ(r.good_bytes, 0u);
}

}  // namespace
}  // namespace queen::spool
