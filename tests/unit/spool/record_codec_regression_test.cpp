// Regression tests for findings of the spool fuzz harnesses (fuzz/harness/spool_record.cpp, spool_file.cpp).
#include <Poco/Checksum.h>
#include <gtest/gtest.h>

#include <string>

#include "spool/record_codec.h"
#include "spool/spool_file.h"
#include "spool_test_support.h"

namespace queen::spool {
namespace {

using testing::make_event;
using testing::TempDir;
using testing::write_bytes;

std::string nested_array(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A record body in another writer's key order (payload first), so the decoder takes its full-parse path.
std::string reordered_body(const std::string& payload) {
  return "{\"payload\":" + payload + ",\"queue\":\"q\",\"partition\":\"p\",\"transactionId\":\"t\",\"encrypted\":false}";
}

// Length + body + CRC-32, as the encoder frames a body.
std::string frame_body(const std::string& body) {
  std::string record;
  const auto n = static_cast<std::uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) record.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  record += body;
  Poco::Checksum crc(Poco::Checksum::TYPE_CRC32);
  crc.update(record.data(), static_cast<unsigned>(record.size()));
  const std::uint32_t c = crc.checksum();
  for (int i = 0; i < 4; ++i) record.push_back(static_cast<char>((c >> (8 * i)) & 0xff));
  return record;
}

}  // namespace

// fuzz finding (spool_record, crash-deep-payload-full-parse): a body whose keys are not in the encoder's order
// and whose payload nests 20 000 arrays deep overflowed the stack (nlohmann's recursive dump() of the payload).
// The boot inventory scans every spool file, so one such file crashed the broker at every start.
TEST(RecordCodecRegression, ADeeplyNestedReorderedBodyIsMalformedNotAStackOverflow) {
  const std::string body = reordered_body(nested_array(20'000));
  SpoolEvent event(Tenant::default_tenant());
  std::string error;
  EXPECT_FALSE(parse_record_body(body, event, error));
  EXPECT_EQ(error, "body nested deeper than 1000 levels");

  const std::string good = encode_record(make_event("q", "p", "t0"));
  const DecodeResult r = decode_records(good + frame_body(body));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(r.torn_tail);
  EXPECT_EQ(r.good_bytes, good.size());
  EXPECT_EQ(r.tail_reason, "malformed body: body nested deeper than 1000 levels");
}

TEST(RecordCodecRegression, TheScannerStopsAtADeeplyNestedRecordInsteadOfCrashing) {
  TempDir dir;
  const auto path = dir.path() / "1700000000000-00000001.buf";
  const std::string good = encode_record(make_event("q", "p", "t0"));
  write_bytes(path, good + frame_body(reordered_body(nested_array(20'000))));
  const FileScan scan = scan_spool_file(path);
  EXPECT_EQ(scan.records.size(), 1u);
  EXPECT_TRUE(scan.torn_tail);
  EXPECT_EQ(scan.good_bytes, good.size());
}

TEST(RecordCodecRegression, NestingUpToTheLimitStillDecodesOnTheFullParsePath) {
  SpoolEvent event(Tenant::default_tenant());
  std::string error;
  ASSERT_TRUE(parse_record_body(reordered_body(nested_array(999)), event, error)) << error;
  EXPECT_EQ(event.payload_json, nested_array(999));
  // Brackets inside strings are not nesting.
  const std::string brackets = "\"" + std::string(5'000, '[') + "\\\"" + std::string(5'000, '{') + "\"";
  ASSERT_TRUE(parse_record_body(reordered_body(brackets), event, error)) << error;
  EXPECT_EQ(event.payload_json, brackets);
}

TEST(RecordCodecRegression, TheEncodersOwnLayoutKeepsADeepPayloadVerbatim) {
  // The fast path hands the payload back as text (no re-serialisation), so the depth bound does not apply.
  SpoolEvent e = make_event("q", "p", "t");
  e.payload_json = nested_array(20'000);
  const DecodeResult r = decode_records(encode_record(e));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_FALSE(r.torn_tail);
  EXPECT_EQ(r.events[0], e);
}

}  // namespace queen::spool
