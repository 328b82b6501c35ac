#include "mesh/frame.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace queen::mesh;

namespace {

const std::string kSecret = "change-me";

Frame with_envelope(Frame f) {
  f.sender_id = "queen-a";
  f.boot_id = 1'700'000'000'123ULL;
  f.sequence = 42;
  f.timestamp_ms = 1'700'000'005'000LL;
  return f;
}

std::vector<Frame> one_of_each_type() {
  return {
      with_envelope(make_heartbeat()),
      with_envelope(make_pop_wake("orders", std::string("customer-7"))),
      with_envelope(make_pop_wake("orders")),
      with_envelope(make_hot_mark("orders", "Default")),
      with_envelope(make_maintenance_flip(MaintenanceFlag::Push, true)),
      with_envelope(make_maintenance_flip(MaintenanceFlag::Pop, false)),
      with_envelope(make_config_invalidation("billing.events")),
  };
}

std::vector<std::uint8_t> encode_ok(const Frame& f, const std::string& secret = kSecret) {
  auto bytes = encode_frame(f, secret);
  EXPECT_TRUE(bytes.has_value());
  return bytes.value_or(std::vector<std::uint8_t>{});
}

DecodeResult decode(const std::vector<std::uint8_t>& bytes, const std::string& secret = kSecret) {
  return decode_frame(bytes.data(), bytes.size(), secret);
}

// The encoded frame without its MAC: the part a test may edit before resealing.
std::vector<std::uint8_t> unsealed(const Frame& f) {
  auto bytes = encode_ok(f);
  bytes.resize(bytes.size() - kMacBytes);
  return bytes;
}

// Patches the length prefix and appends a valid MAC, so the decoder gets past the MAC check and must judge
// the content itself.
std::vector<std::uint8_t> reseal(std::vector<std::uint8_t> bytes, const std::string& secret = kSecret) {
  const auto length = static_cast<std::uint32_t>(bytes.size() + kMacBytes - 4);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<std::uint8_t>(length >> (24 - 8 * i));
  const auto mac = frame_mac(bytes.data(), bytes.size(), secret);
  bytes.insert(bytes.end(), mac.begin(), mac.end());
  return bytes;
}

// Offset of the first body byte for sender "queen-a": length(4) version(1) type(1) idlen(1) id(7) 3 x u64.
constexpr std::size_t kBodyOffset = 4 + 1 + 1 + 1 + 7 + 24;

}  // namespace

TEST(FrameCodec, RoundTripsEveryType) {
  for (const Frame& original : one_of_each_type()) {
    const auto bytes = encode_ok(original);
    const DecodeResult result = decode(bytes);
    ASSERT_EQ(result.status, DecodeStatus::Ok) << static_cast<int>(original.type);
    EXPECT_EQ(result.consumed, bytes.size());
    EXPECT_EQ(result.frame, original) << static_cast<int>(original.type);
  }
}

TEST(FrameCodec, PopWakeKeepsAbsentPartitionAbsent) {
  const auto result = decode(encode_ok(with_envelope(make_pop_wake("q"))));
  ASSERT_EQ(result.status, DecodeStatus::Ok);
  EXPECT_FALSE(result.frame.partition.has_value());
  const auto with_partition = decode(encode_ok(with_envelope(make_pop_wake("q", std::string("p")))));
  ASSERT_EQ(with_partition.status, DecodeStatus::Ok);
  EXPECT_EQ(with_partition.frame.partition, std::optional<std::string>("p"));
}

TEST(FrameCodec, ExtremeEnvelopeValuesRoundTrip) {
  Frame f = make_config_invalidation("q");
  f.sender_id = std::string(kMaxServerIdBytes, 'x');
  f.boot_id = ~0ULL;
  f.sequence = ~0ULL;
  f.timestamp_ms = -1;
  const auto result = decode(encode_ok(f));
  ASSERT_EQ(result.status, DecodeStatus::Ok);
  EXPECT_EQ(result.frame, f);
}

TEST(FrameCodec, LayoutStartsWithLengthVersionType) {
  const auto bytes = encode_ok(with_envelope(make_heartbeat()));
  const std::uint32_t length = (bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3];
  EXPECT_EQ(length + 4, bytes.size());
  EXPECT_EQ(bytes[4], kFrameVersion);
  EXPECT_EQ(bytes[5], static_cast<std::uint8_t>(FrameType::Heartbeat));
  EXPECT_EQ(bytes[6], 7);  // "queen-a"
  EXPECT_EQ(bytes.size(), kBodyOffset + kMacBytes);  // a heartbeat has no body
}

TEST(FrameCodec, EveryProperPrefixNeedsMoreBytes) {
  for (const Frame& original : one_of_each_type()) {
    const auto bytes = encode_ok(original);
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      const DecodeResult result = decode_frame(bytes.data(), cut, kSecret);
      EXPECT_EQ(result.status, DecodeStatus::NeedMoreBytes) << "cut at " << cut;
      EXPECT_EQ(result.consumed, 0u);
    }
  }
}

TEST(FrameCodec, DecodesOnlyTheFirstOfTwoFramesInABuffer) {
  const auto first = encode_ok(with_envelope(make_hot_mark("a", "b")));
  auto second_frame = with_envelope(make_config_invalidation("c"));
  second_frame.sequence = 43;
  const auto second = encode_ok(second_frame);
  std::vector<std::uint8_t> stream = first;
  stream.insert(stream.end(), second.begin(), second.end());

  const DecodeResult one = decode(stream);
  ASSERT_EQ(one.status, DecodeStatus::Ok);
  EXPECT_EQ(one.consumed, first.size());
  EXPECT_EQ(one.frame.queue, "a");
  const DecodeResult two = decode_frame(stream.data() + one.consumed, stream.size() - one.consumed, kSecret);
  ASSERT_EQ(two.status, DecodeStatus::Ok);
  EXPECT_EQ(two.frame, second_frame);
}

TEST(FrameCodec, OversizedIsKnownFromTheLengthPrefixAlone) {
  const std::vector<std::uint8_t> just_over = {0x00, 0x00, 0x0F, 0xFD};  // 4093 + 4 > 4096
  EXPECT_EQ(decode(just_over).status, DecodeStatus::Oversized);
  const std::vector<std::uint8_t> huge = {0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_EQ(decode(huge).status, DecodeStatus::Oversized);
  const std::vector<std::uint8_t> http = {'G', 'E', 'T', ' ', '/', ' ', 'H'};
  EXPECT_EQ(decode(http).status, DecodeStatus::Oversized);
  const std::vector<std::uint8_t> at_limit = {0x00, 0x00, 0x0F, 0xFC};  // exactly 4096 in all: legal, incomplete
  EXPECT_EQ(decode(at_limit).status, DecodeStatus::NeedMoreBytes);
}

TEST(FrameCodec, EncodeRefusesFramesOverTheLimitAndAcceptsOneAtIt) {
  // A config invalidation from "queen-a" costs kBodyOffset + 2 (queue length) + MAC besides the queue name.
  const std::size_t largest_queue = kMaxFrameBytes - kBodyOffset - 2 - kMacBytes;
  const auto at_limit = encode_frame(with_envelope(make_config_invalidation(std::string(largest_queue, 'q'))), kSecret);
  ASSERT_TRUE(at_limit.has_value());
  EXPECT_EQ(at_limit->size(), kMaxFrameBytes);
  EXPECT_EQ(decode(*at_limit).status, DecodeStatus::Ok);
  EXPECT_FALSE(
      encode_frame(with_envelope(make_config_invalidation(std::string(largest_queue + 1, 'q'))), kSecret).has_value());
  EXPECT_FALSE(encode_frame(with_envelope(make_config_invalidation(std::string(70'000, 'q'))), kSecret).has_value());
}

TEST(FrameCodec, EncodeRefusesMissingOrInvalidFields) {
  Frame no_sender = make_heartbeat();
  EXPECT_FALSE(encode_frame(no_sender, kSecret).has_value());
  Frame long_sender = with_envelope(make_heartbeat());
  long_sender.sender_id = std::string(kMaxServerIdBytes + 1, 's');
  EXPECT_FALSE(encode_frame(long_sender, kSecret).has_value());
  EXPECT_FALSE(encode_frame(with_envelope(make_config_invalidation("")), kSecret).has_value());
  EXPECT_FALSE(encode_frame(with_envelope(make_pop_wake("")), kSecret).has_value());
  EXPECT_FALSE(encode_frame(with_envelope(make_pop_wake("q", std::string())), kSecret).has_value());
  Frame hot_without_partition = with_envelope(make_hot_mark("q", "p"));
  hot_without_partition.partition.reset();
  EXPECT_FALSE(encode_frame(hot_without_partition, kSecret).has_value());
  Frame bad_flag = with_envelope(make_maintenance_flip(MaintenanceFlag::Push, true));
  bad_flag.maintenance_flag = static_cast<MaintenanceFlag>(7);
  EXPECT_FALSE(encode_frame(bad_flag, kSecret).has_value());
}

TEST(FrameCodec, BadVersionIsReportedEvenWithAValidMac) {
  auto bytes = unsealed(with_envelope(make_heartbeat()));
  bytes[4] = kFrameVersion + 1;
  EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::BadVersion);
  bytes[4] = 0;
  EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::BadVersion);
}

TEST(FrameCodec, UnknownTypeWithAValidMac) {
  for (std::uint8_t type : {0, 6, 200, 255}) {
    auto bytes = unsealed(with_envelope(make_heartbeat()));
    bytes[5] = type;
    const auto result = decode(reseal(bytes));
    EXPECT_EQ(result.status, DecodeStatus::UnknownType) << int(type);
    EXPECT_EQ(result.consumed, bytes.size() + kMacBytes);
  }
}

TEST(FrameCodec, WrongSecretIsBadMac) {
  for (const Frame& original : one_of_each_type()) {
    const auto bytes = encode_ok(original, "another-secret");
    EXPECT_EQ(decode(bytes).status, DecodeStatus::BadMac);
    EXPECT_EQ(decode(bytes, "another-secret").status, DecodeStatus::Ok);
  }
  EXPECT_EQ(decode(encode_ok(with_envelope(make_heartbeat()), "change-mf")).status, DecodeStatus::BadMac);
}

TEST(FrameCodec, FlippingAnyBitIsNeverAccepted) {
  for (const Frame& original : one_of_each_type()) {
    const auto bytes = encode_ok(original);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        auto tampered = bytes;
        tampered[i] ^= static_cast<std::uint8_t>(1u << bit);
        const DecodeStatus status = decode(tampered).status;
        EXPECT_NE(status, DecodeStatus::Ok) << "byte " << i << " bit " << bit;
        if (i == 4) {
          EXPECT_EQ(status, DecodeStatus::BadVersion) << "byte " << i << " bit " << bit;
        } else if (i > 4) {
          EXPECT_EQ(status, DecodeStatus::BadMac) << "byte " << i << " bit " << bit;
        }
      }
    }
  }
}

TEST(FrameCodec, LengthTooShortForVersionAndMacIsMalformed) {
  const std::vector<std::uint8_t> tiny = {0x00, 0x00, 0x00, 0x05, kFrameVersion, 1, 0, 0, 0};
  const auto result = decode(tiny);
  EXPECT_EQ(result.status, DecodeStatus::Malformed);
  EXPECT_EQ(result.consumed, 9u);
  const std::vector<std::uint8_t> zero = {0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(decode(zero).status, DecodeStatus::Malformed);
}

TEST(FrameCodec, AuthenticatedButMalformedFields) {
  // Trailing byte after the body.
  {
    auto bytes = unsealed(with_envelope(make_config_invalidation("q")));
    bytes.push_back(0);
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Body cut short: a config invalidation whose queue length says 5 but holds 1 byte.
  {
    auto bytes = unsealed(with_envelope(make_config_invalidation("q")));
    bytes[kBodyOffset + 1] = 5;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Empty queue name.
  {
    auto bytes = unsealed(with_envelope(make_config_invalidation("q")));
    bytes[kBodyOffset + 1] = 0;
    bytes.pop_back();
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Maintenance flag out of range, enabled not 0/1.
  {
    auto bytes = unsealed(with_envelope(make_maintenance_flip(MaintenanceFlag::Pop, true)));
    bytes[kBodyOffset] = 3;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
    bytes[kBodyOffset] = 0;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
    bytes[kBodyOffset] = 2;
    bytes[kBodyOffset + 1] = 2;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Pop wake partition marker that is neither 0 nor 1.
  {
    auto bytes = unsealed(with_envelope(make_pop_wake("q")));
    bytes[kBodyOffset + 3] = 2;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Pop wake that announces a partition it does not carry.
  {
    auto bytes = unsealed(with_envelope(make_pop_wake("q")));
    bytes[kBodyOffset + 3] = 1;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Empty sender id.
  {
    auto bytes = unsealed(with_envelope(make_heartbeat()));
    bytes[6] = 0;
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
  // Envelope cut short: only the version, type and sender length before the MAC.
  {
    auto bytes = unsealed(with_envelope(make_heartbeat()));
    bytes.resize(7);
    EXPECT_EQ(decode(reseal(bytes)).status, DecodeStatus::Malformed);
  }
}

TEST(FrameCodec, StatusNamesAreStable) {
  EXPECT_STREQ(to_string(DecodeStatus::Ok), "ok");
  EXPECT_STREQ(to_string(DecodeStatus::BadMac), "bad_mac");
  EXPECT_STREQ(to_string(DecodeStatus::Oversized), "oversized");
  EXPECT_STREQ(to_string(DecodeStatus::Malformed), "malformed");
}
