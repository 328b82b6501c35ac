#pragma once
// MeshNode: this broker's end of the mesh.
//
// - Inbound: one listener; peers connect to it and send frames. A single receive thread polls the listener and
//   every inbound connection, decodes frames, checks MAC and replay, and hands valid frames to the handler.
//   Invalid input is counted by reason; a framing error (oversized, bad version, bad MAC, unknown type,
//   malformed) closes that connection, a replayed or stale frame is only dropped.
// - Outbound: one connection and one sender thread per configured peer, each with a bounded queue. broadcast()
//   never waits on the network: a frame for a peer that is down, or whose queue is full, is dropped and counted.
//   Reconnects use exponential backoff with jitter.
// - Heartbeats: the receive thread broadcasts one every heartbeat_interval; a sender is "alive" while its valid
//   frames keep arriving within dead_threshold.
// - No peers configured: start() binds nothing, starts no thread, and broadcast() does nothing.
//
// Every connection carries frames one way (connector -> acceptor), so liveness is known per sender id (what the
// frames say) and connection state per configured address (what we dialled); the two are reported side by side
// because an address cannot be mapped to a server id without trusting the address.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mesh/frame.h"
#include "mesh/mesh_options.h"
#include "util/clock.h"

namespace queen::mesh {

// Why an inbound frame or byte stream was refused.
enum class RejectReason : std::size_t {
  Truncated,       // the connection ended in the middle of a frame
  Oversized,       // length prefix above kMaxFrameBytes (also: garbage, e.g. an HTTP request)
  BadVersion,
  UnknownType,
  Malformed,
  BadMac,          // forged or sealed with another secret
  Replayed,        // counter not above what this sender already delivered
  Stale,           // timestamp outside max_clock_skew
  OwnFrame,        // our own server id: a peer list that names this broker, or a reflected frame
  TooManySenders,  // more distinct live senders than max_tracked_senders
  UnknownPeer,     // the connection came from an address that is not one of QUEEN_MESH_PEERS (before any frame)
  Count_,
};
inline constexpr std::size_t kRejectReasonCount = static_cast<std::size_t>(RejectReason::Count_);

// Stable snake_case names for metrics labels and /health ("bad_mac", "replayed", ...).
const char* to_string(RejectReason reason) noexcept;

// One configured peer address: our outbound link to it.
struct PeerLinkStats {
  std::string address;  // host:port as configured
  bool connected = false;
  std::uint64_t frames_sent = 0;
  std::uint64_t frames_dropped_peer_down = 0;   // broadcast while not connected, or lost with the connection
  std::uint64_t frames_dropped_queue_full = 0;  // the bounded queue was full (peer slow)
  std::uint64_t connects = 0;
  std::uint64_t connect_failures = 0;
  std::size_t queued_frames = 0;
  std::size_t queued_bytes = 0;
  std::string last_error;  // last connect or write failure, empty if none yet
};

// One remote broker, by the server id its valid frames carry.
struct RemoteSenderStats {
  std::string server_id;
  bool alive = false;                // a valid frame arrived within dead_threshold
  std::int64_t last_frame_age_ms = 0;
  std::uint64_t frames_received = 0;
};

struct MeshStats {
  bool enabled = false;  // peers configured and started
  std::uint16_t listen_port = 0;
  std::vector<PeerLinkStats> peers;
  std::vector<RemoteSenderStats> senders;
  std::uint64_t frames_broadcast = 0;     // broadcast() calls that produced a frame (heartbeats included)
  std::uint64_t frames_unencodable = 0;   // broadcast() calls whose frame could not be encoded (too large, empty)
  std::uint64_t frames_received = 0;      // valid frames handed to the handler
  std::array<std::uint64_t, kRejectReasonCount> rejected{};  // indexed by RejectReason
  std::uint64_t inbound_connections = 0;  // open now
  std::uint64_t inbound_refused = 0;      // accepted and closed at once: max_inbound_connections reached
  std::uint64_t inbound_idle_closed = 0;  // closed after dead_threshold without a byte
  std::uint64_t handler_errors = 0;       // the handler threw; the frame counts as received

  std::uint64_t rejected_total() const;
  std::uint64_t rejected_for(RejectReason reason) const { return rejected[static_cast<std::size_t>(reason)]; }
};

class MeshNode {
 public:
  // Called on the mesh receive thread for every valid frame (heartbeats included). Must be quick and must not
  // block: it delays every other peer's frames. Exceptions are caught and counted.
  using FrameHandler = std::function<void(const Frame&)>;

  // Times heartbeats, reconnects and idle connections and stamps frames on
  // `clock`, which must outlive the node.
  MeshNode(MeshOptions options, const util::Clock& clock);
  ~MeshNode();  // stops
  MeshNode(const MeshNode&) = delete;
  MeshNode& operator=(const MeshNode&) = delete;

  // Set before start(); frames that arrive with no handler are counted and dropped.
  void set_handler(FrameHandler handler);

  // Validates the options, binds the listener and starts the threads. Returns an empty string on success (also
  // when no peers are configured: then nothing is bound), otherwise why it could not start (invalid options,
  // port in use). Calling it twice is an error.
  std::string start();

  // Stops the threads and closes every socket. Idempotent; queued frames are discarded.
  void stop();

  bool enabled() const;                  // started with peers
  std::uint16_t listening_port() const;  // the bound port (useful with listen_port 0), 0 when nothing is bound
  const std::string& server_id() const;
  std::uint64_t boot_id() const;         // Unix ms at construction: the envelope's boot id

  // Stamps the envelope (sender id, boot id, next sequence, timestamp), seals the frame once and offers it to
  // every peer. Never blocks on the network; frames for peers that are down or slow are dropped and counted.
  void broadcast(Frame frame);

  MeshStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace queen::mesh
