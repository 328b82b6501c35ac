// Regression tests for findings of the mesh_frame fuzz harness (fuzz/harness/mesh_frame.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mesh/frame.h"
#include "mesh/replay_guard.h"

using namespace queen::mesh;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000LL;

// Adds the length prefix and the MAC, as a peer holding the secret does.
std::vector<std::uint8_t> seal(const std::vector<std::uint8_t>& inner, const std::string& secret) {
  std::vector<std::uint8_t> out;
  const auto length = static_cast<std::uint32_t>(inner.size() + kMacBytes);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(length >> (24 - 8 * i)));
  out.insert(out.end(), inner.begin(), inner.end());
  const auto mac = frame_mac(out.data(), out.size(), secret);
  out.insert(out.end(), mac.begin(), mac.end());
  return out;
}

}  // namespace

// fuzz finding (mesh_frame, crash-f7277b8f): an authenticated PopWake whose timestamp is INT64_MIN + now made
// `now - timestamp` overflow (UBSan: signed integer overflow in check_and_record); in practice the difference
// wrapped negative and the frame passed the staleness check as fresh.
TEST(ReplayGuardRegression, AFrameFromTheFarPastIsStaleNotAnOverflow) {
  const std::vector<std::uint8_t> inner = {
      0x01, 0x02,                                                  // version 1, PopWake
      0x07, 'q', 'u', 'e', 'e', 'n', '-', 'a',                     // sender "queen-a"
      0x00, 0x00, 0x01, 0x8b, 0xcf, 0xff, 0xff, 0xff,              // boot id
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,              // sequence 2
      0x80, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,              // timestamp INT64_MIN + 1.7e12
      0x00, 0x06, 'o', 'r', 'd', 'e', 'r', 's',                    // queue "orders"
      0x01, 0x00, 0x0a, 'c', 'u', 's', 't', 'o', 'm', 'e', 'r', '-', '7'};  // partition "customer-7"
  const std::string secret = "fuzz-secret-0123456789";
  const auto bytes = seal(inner, secret);
  const DecodeResult decoded = decode_frame(bytes.data(), bytes.size(), secret);
  ASSERT_EQ(decoded.status, DecodeStatus::Ok);
  EXPECT_EQ(decoded.frame.timestamp_ms, std::numeric_limits<std::int64_t>::min() + kNow);

  ReplayGuard guard;
  EXPECT_EQ(guard.check_and_record(decoded.frame.sender_id, decoded.frame.boot_id, decoded.frame.sequence,
                                   decoded.frame.timestamp_ms, kNow),
            ReplayVerdict::Stale);
  EXPECT_EQ(guard.sender_count(), 0u);
}

TEST(ReplayGuardRegression, ExtremeTimestampsAndClocksAreStale) {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  ReplayGuard guard;
  EXPECT_EQ(guard.check_and_record("a", 1, 1, kMin, kNow), ReplayVerdict::Stale);
  EXPECT_EQ(guard.check_and_record("a", 1, 1, kMax, kNow), ReplayVerdict::Stale);
  EXPECT_EQ(guard.check_and_record("a", 1, 1, kMin, kMax), ReplayVerdict::Stale);
  EXPECT_EQ(guard.check_and_record("a", 1, 1, kMax, kMin), ReplayVerdict::Stale);
  EXPECT_EQ(guard.check_and_record("a", 1, 1, kMax, kMax), ReplayVerdict::Accepted);
  // The window's edges are unchanged: 30 s off is fresh, one more millisecond is stale.
  EXPECT_EQ(guard.check_and_record("b", 1, 1, kNow - 30'000, kNow), ReplayVerdict::Accepted);
  EXPECT_EQ(guard.check_and_record("c", 1, 1, kNow + 30'001, kNow), ReplayVerdict::Stale);
}
