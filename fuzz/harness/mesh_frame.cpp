// Fuzzes the mesh frame decoder (src/mesh/frame.*) and what the receive loop does with a decoded frame
// (src/mesh/replay_guard.*), with a fixed secret.
//
// Input: one control byte, then the data. Control byte % 3:
//   0  raw: the data is what a peer sent, decoded as is (almost every mutation ends at the MAC check);
//   1  sealed: the data is a frame without its length prefix and MAC; the harness adds both (as a peer holding
//      the secret would), so mutations reach the field parser and the replay guard;
//   2  stream: the data is several such frames separated by "|||", sealed and concatenated, then fed to a copy
//      of MeshNode's receive loop in chunks of 1..256 bytes (second control byte) with the replay guard.
// Every frame that decodes must encode back to the very same bytes.
#include <algorithm>
#include <vector>

#include "fuzz_support.h"
#include "mesh/frame.h"
#include "mesh/replay_guard.h"

using namespace queen::mesh;
using queen::fuzz::Cursor;

namespace {

constexpr std::string_view kSecret = queen::fuzz::kMeshSecret;
// The receiver's wall clock: fixed, so a run is reproducible; frames near it pass the skew check.
constexpr std::int64_t kNowMs = 1'700'000'000'000;

std::vector<std::uint8_t> seal(std::string_view inner) {
  std::vector<std::uint8_t> out;
  const auto length = static_cast<std::uint32_t>(inner.size() + kMacBytes);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(length >> (24 - 8 * i)));
  out.insert(out.end(), inner.begin(), inner.end());
  const auto mac = frame_mac(out.data(), out.size(), kSecret);
  out.insert(out.end(), mac.begin(), mac.end());
  return out;
}

void check_decoded(const DecodeResult& r, const std::uint8_t* data, std::size_t size) {
  if (r.status == DecodeStatus::NeedMoreBytes || r.status == DecodeStatus::Oversized) {
    FUZZ_CHECK(r.consumed == 0, "%s consumed %zu bytes", to_string(r.status), r.consumed);
  } else {
    FUZZ_CHECK(r.consumed >= 4 && r.consumed <= kMaxFrameBytes, "consumed %zu", r.consumed);
  }
  if (r.status != DecodeStatus::Ok) return;
  FUZZ_CHECK(r.consumed <= size, "consumed past the end");
  const auto encoded = encode_frame(r.frame, kSecret);
  FUZZ_CHECK(encoded.has_value(), "a decoded frame cannot be encoded");
  FUZZ_CHECK(encoded->size() == r.consumed && std::equal(encoded->begin(), encoded->end(), data),
             "re-encoding a decoded %u frame gives other bytes", static_cast<unsigned>(r.frame.type));
}

void deliver(ReplayGuard& guard, const Frame& frame, std::int64_t now_ms) {
  const ReplayVerdict verdict =
      guard.check_and_record(frame.sender_id, frame.boot_id, frame.sequence, frame.timestamp_ms, now_ms);
  // The same frame again is never accepted twice.
  if (verdict == ReplayVerdict::Accepted) {
    FUZZ_CHECK(guard.check_and_record(frame.sender_id, frame.boot_id, frame.sequence, frame.timestamp_ms, now_ms) ==
                   ReplayVerdict::Replayed,
               "a replayed frame was not refused");
  }
}

// MeshNode::Impl::read_from, without the socket: at most kMaxFrameBytes - buffered bytes per read.
void receive(const std::vector<std::uint8_t>& stream, std::size_t chunk, std::int64_t now_ms) {
  ReplayGuard guard(ReplayGuardOptions{30'000, 4});
  std::vector<std::uint8_t> buffer;
  std::size_t sent = 0;
  while (sent < stream.size()) {
    const std::size_t room = kMaxFrameBytes - buffer.size();
    FUZZ_CHECK(room > 0, "the receive buffer is full without a whole frame in it");
    const std::size_t n = std::min({room, chunk, stream.size() - sent});
    buffer.insert(buffer.end(), stream.begin() + static_cast<std::ptrdiff_t>(sent),
                  stream.begin() + static_cast<std::ptrdiff_t>(sent + n));
    sent += n;
    std::size_t offset = 0;
    while (true) {
      const DecodeResult r = decode_frame(buffer.data() + offset, buffer.size() - offset, kSecret);
      check_decoded(r, buffer.data() + offset, buffer.size() - offset);
      if (r.status == DecodeStatus::NeedMoreBytes) break;
      if (r.status != DecodeStatus::Ok) return;  // the connection is closed
      offset += r.consumed;
      deliver(guard, r.frame, now_ms);
    }
    buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(offset));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Cursor in(data, size);
  const int mode = in.byte() % 3;
  const std::string_view rest = in.rest();

  if (mode == 0) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(rest.data());
    const DecodeResult r = decode_frame(bytes, rest.size(), kSecret);
    check_decoded(r, bytes, rest.size());
    return 0;
  }
  if (mode == 1) {
    const std::vector<std::uint8_t> frame = seal(rest);
    const DecodeResult r = decode_frame(frame.data(), frame.size(), kSecret);
    check_decoded(r, frame.data(), frame.size());
    if (frame.size() <= kMaxFrameBytes && frame.size() >= 4 + 2 + kMacBytes && !rest.empty() &&
        static_cast<std::uint8_t>(rest[0]) == kFrameVersion) {
      FUZZ_CHECK(r.status != DecodeStatus::BadMac, "a correctly sealed frame fails its MAC");
    }
    if (r.status == DecodeStatus::Ok) {
      ReplayGuard guard;
      deliver(guard, r.frame, kNowMs);
    }
    return 0;
  }
  const std::size_t chunk = 1 + in.byte();
  std::vector<std::uint8_t> stream;
  queen::fuzz::split_on(in.rest(), "|||", [&](std::string_view inner) {
    const auto sealed = seal(inner);
    stream.insert(stream.end(), sealed.begin(), sealed.end());
  });
  receive(stream, chunk, kNowMs);
  return 0;
}
