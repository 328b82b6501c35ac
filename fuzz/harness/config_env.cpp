// Fuzzes the environment reader (src/config/config.*): load_config over an arbitrary set of variables, then what
// boot does with the result (describe_config's log lines, the mesh peer list through mesh::parse_peers and
// validate_options, as broker::mesh_options_from does).
//
// Input: lines separated by '\n'. The first line is the host name (the default of QUEEN_SERVER_ID); every other
// line is NAME=VALUE (split at the first '='; a line without one is skipped, like read_process_environment). A NUL
// byte ends a value, as it would in a real environment.

#include "config/config.h"
#include "fuzz_support.h"
#include "mesh/mesh_options.h"
#include "mesh/peers.h"

using namespace queen;

namespace {

std::string until_nul(std::string_view s) { return std::string(s.substr(0, s.find('\0'))); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string hostname;
  config::EnvMap env;
  bool first = true;
  fuzz::split_on(text, "\n", [&](std::string_view line) {
    if (first) {
      hostname = until_nul(line);
      first = false;
      return;
    }
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return;
    const std::string name = until_nul(line.substr(0, eq));
    if (name.size() != eq) return;  // a NUL inside the name: no such variable can exist
    env.emplace(name, until_nul(line.substr(eq + 1)));
  });

  config::LoadedConfig loaded;
  try {
    loaded = config::load_config(env, hostname);
  } catch (const config::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).rfind("invalid configuration:", 0) == 0, "unexpected ConfigError text");
    return 0;
  }
  const config::Config& c = loaded.config;
  FUZZ_CHECK(c.http.min_threads <= c.http.max_threads, "NUM_WORKERS above HTTP_MAX_THREADS was accepted");
  FUZZ_CHECK(c.http.port >= 1 && c.http.port <= 65535, "PORT %d", c.http.port);
  FUZZ_CHECK(c.pop.wait_initial_interval_ms <= c.pop.wait_max_interval_ms, "wait intervals out of order");

  for (const auto& line : config::describe_config(c))
    FUZZ_CHECK(line.rfind("config: ", 0) == 0, "a describe line does not start with 'config: '");

  // What the broker does next with the mesh settings (broker::mesh_options_from).
  std::string peer_list;
  for (const auto& peer : c.mesh.peers) peer_list += (peer_list.empty() ? "" : ",") + peer;
  const mesh::PeersParseResult peers = mesh::parse_peers(peer_list);
  if (peers.ok()) {
    for (const auto& peer : peers.peers) {
      FUZZ_CHECK(peer.port >= 1 && !peer.host.empty(), "a parsed peer has no host or port");
      // A peer's printed form parses back to the same peer.
      const mesh::PeersParseResult again = mesh::parse_peers(peer.to_string());
      FUZZ_CHECK(again.ok() && again.peers.size() == 1 && again.peers[0] == peer, "peer '%s' does not round-trip",
                 peer.to_string().c_str());
    }
    mesh::MeshOptions o;
    o.server_id = c.process.server_id;
    o.secret = c.mesh.sync_secret;
    o.heartbeat_interval = std::chrono::milliseconds(c.mesh.heartbeat_ms);
    o.dead_threshold = std::chrono::milliseconds(c.mesh.dead_threshold_ms);
    o.peers = peers.peers;
    o.listen_port = static_cast<std::uint16_t>(c.mesh.port);
    (void)mesh::validate_options(o);
  }
  return 0;
}
