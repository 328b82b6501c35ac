#pragma once
// Mesh frames: the hints brokers send each other over framed TCP.
//
// Everything on the mesh is a hint. A frame may say "wake your long polls on this queue", never "here is a
// message": messages, offsets, acks, leases and dedup state belong to PostgreSQL and never travel here.
//
// Wire layout, version 1 (all integers big-endian):
//
//   offset  size  field
//   0       4     length: bytes that follow this field (version .. mac); 4 + length <= kMaxFrameBytes
//   4       1     version = kFrameVersion
//   5       1     type (FrameType)
//   6       1     n = sender id length, 1..kMaxServerIdBytes
//   7       n     sender id (QUEEN_SERVER_ID of the sender)
//   7+n     8     boot id: the sender's wall clock (Unix ms) when its mesh node was created
//   15+n    8     sequence: strictly increasing per (sender, boot id), starts at 1
//   23+n    8     timestamp: sender's wall clock (Unix ms) when the frame was sealed, signed
//   31+n    ...   body, by type:
//                   Heartbeat           (empty)
//                   PopWake             str16 queue, u8 has_partition (0|1), [str16 partition]
//                   HotMark             str16 queue, str16 partition
//                   MaintenanceFlip     u8 flag (1 push, 2 pop), u8 enabled (0|1)
//                   ConfigInvalidation  str16 queue
//                 str16 = u16 byte count (>= 1) + bytes
//   end-32  32    HMAC-SHA256 keyed with QUEEN_SYNC_SECRET over every byte before it (length prefix included)
//
// (boot id, sequence) is the per-sender counter: it only grows while a sender lives, and a restarted sender
// starts a new boot id, which is larger (see replay_guard.h for how a receiver accepts it).
//
// The decoder checks, in this order, so that it never allocates on the say-so of a peer and never parses an
// unauthenticated field beyond the length and version: need-more-bytes, oversized (from the 4-byte prefix alone),
// too short to hold a version and a MAC, need-more-bytes for the whole frame, version, MAC (constant-time),
// then type and fields. The version is checked before the MAC so that a mixed-version deployment shows up as
// "bad_version" rather than as forgeries.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace queen::mesh {

inline constexpr std::uint8_t kFrameVersion = 1;
// Hard ceiling on one frame, length prefix included: a peer can never make us buffer more than this.
inline constexpr std::size_t kMaxFrameBytes = 4096;
inline constexpr std::size_t kMaxServerIdBytes = 255;
inline constexpr std::size_t kMacBytes = 32;

enum class FrameType : std::uint8_t {
  Heartbeat = 1,
  PopWake = 2,             // queue, optional partition: a push committed, long polls parked here may pop
  HotMark = 3,             // queue, partition: the partition went from empty to pending
  MaintenanceFlip = 4,     // which flag (push|pop) and its new value
  ConfigInvalidation = 5,  // queue name only: forget the cached configuration, never a value
};

enum class MaintenanceFlag : std::uint8_t { Push = 1, Pop = 2 };

struct Frame {
  FrameType type = FrameType::Heartbeat;

  // Envelope: stamped by MeshNode::broadcast, filled by decode_frame.
  std::string sender_id;
  std::uint64_t boot_id = 0;
  std::uint64_t sequence = 0;
  std::int64_t timestamp_ms = 0;

  // Body: which fields mean something depends on type (see the layout above).
  std::string queue;
  std::optional<std::string> partition;
  MaintenanceFlag maintenance_flag = MaintenanceFlag::Push;
  bool enabled = false;

  bool operator==(const Frame& other) const;
};

// Builders for the bodies; the envelope is left empty for MeshNode::broadcast to stamp.
Frame make_heartbeat();
Frame make_pop_wake(std::string queue, std::optional<std::string> partition = std::nullopt);
Frame make_hot_mark(std::string queue, std::string partition);
Frame make_maintenance_flip(MaintenanceFlag flag, bool enabled);
Frame make_config_invalidation(std::string queue);

// The frame as bytes, sealed with HMAC-SHA256(secret). nullopt when it cannot be encoded: a field is empty where
// the layout requires one, the sender id is longer than kMaxServerIdBytes, or the whole exceeds kMaxFrameBytes.
std::optional<std::vector<std::uint8_t>> encode_frame(const Frame& frame, std::string_view secret);

enum class DecodeStatus {
  Ok,
  NeedMoreBytes,  // a prefix of a frame: read more (a stream that ends here was truncated)
  Oversized,      // the length prefix announces more than kMaxFrameBytes
  BadVersion,
  BadMac,         // forged, corrupted, or sealed with another secret
  UnknownType,
  Malformed,      // authenticated but the fields do not parse (short, trailing bytes, bad flag values)
};

const char* to_string(DecodeStatus status) noexcept;

struct DecodeResult {
  DecodeStatus status = DecodeStatus::NeedMoreBytes;
  Frame frame;               // meaningful only when status == Ok
  std::size_t consumed = 0;  // bytes of the buffer this frame occupies; 0 for NeedMoreBytes and Oversized
};

// Decodes the first frame at the start of [data, data + size). Never throws, never allocates beyond the frame.
DecodeResult decode_frame(const std::uint8_t* data, std::size_t size, std::string_view secret);

// HMAC-SHA256(secret, data): exposed so tests can seal deliberately odd frames with a valid MAC.
std::vector<std::uint8_t> frame_mac(const std::uint8_t* data, std::size_t size, std::string_view secret);

}  // namespace queen::mesh
