#pragma once
// Configuration of one broker's mesh node. The config module maps the environment onto it:
//   QUEEN_SERVER_ID -> server_id, QUEEN_MESH_HOST (else HOST) -> listen_host, QUEEN_MESH_PORT -> listen_port, QUEEN_MESH_PEERS -> peers (parse_peers),
//   QUEEN_SYNC_SECRET -> secret, QUEEN_SYNC_HEARTBEAT_MS -> heartbeat_interval,
//   QUEEN_SYNC_DEAD_THRESHOLD_MS -> dead_threshold.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "mesh/peers.h"

namespace queen::mesh {

// The settings default to the configuration's (config::MeshConfig, config::HttpConfig); the broker copies its
// configuration in (broker/cluster_options.cpp).
struct MeshOptions {
  std::string server_id;             // distinct per broker, 1..255 bytes; travels in every frame
  std::string listen_host = config::Config::defaults().http.host;  // QUEEN_MESH_HOST, or HOST when that is unset
  std::uint16_t listen_port = 0;     // 0 = an ephemeral port (tests); the config module requires a real one
  std::vector<PeerAddress> peers;    // empty = the mesh is off: nothing is bound, broadcast is a no-op
  std::string secret;                // HMAC-SHA256 key, byte-identical on every broker

  // Per peer: frames waiting for the socket. Past either bound new frames are dropped, never queued. The sender
  // takes the whole queue as one batch per write, so at most one more batch of the same bounds is in flight.
  std::size_t send_queue_max_frames = 1024;
  std::size_t send_queue_max_bytes = 1024 * 1024;

  std::chrono::milliseconds reconnect_backoff_min{100};
  std::chrono::milliseconds reconnect_backoff_max{5'000};
  std::chrono::milliseconds connect_timeout{1'000};
  // A send that cannot complete within this (peer not reading) drops the connection and its queued frames.
  std::chrono::milliseconds write_timeout{1'000};

  std::chrono::milliseconds heartbeat_interval{config::Config::defaults().mesh.heartbeat_ms};
  // A sender with no valid frame for this long is reported not alive; an inbound connection silent this long
  // (a live peer sends a heartbeat every interval) is closed so dead or idle sockets cannot hold slots.
  std::chrono::milliseconds dead_threshold{config::Config::defaults().mesh.dead_threshold_ms};
  // Frames whose timestamp is further than this from our clock are rejected (replay window, see replay_guard.h).
  std::chrono::milliseconds max_clock_skew{30'000};

  std::size_t max_inbound_connections = 16;  // 3 brokers is the designed ceiling; spare room for reconnect overlap
  std::size_t max_tracked_senders = 64;      // bound on the replay guard and the per-sender stats
};

// Every problem found, one readable line each; empty means the options are usable. The broker refuses to boot
// on a non-empty answer. Peers without a secret are refused: an unauthenticated control surface is not an option.
std::vector<std::string> validate_options(const MeshOptions& options);

}  // namespace queen::mesh
