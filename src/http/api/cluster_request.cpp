#include "http/api/cluster_request.h"

#include <sstream>

#include <nlohmann/json.hpp>

namespace queen::http {
namespace {

using nlohmann::json;

json peers_json(const mesh::MeshStats& mesh, bool detailed) {
  json peers = json::array();
  for (const auto& p : mesh.peers) {
    json peer = {{"address", p.address}, {"connected", p.connected}};
    if (detailed) {
      peer["frames_sent"] = p.frames_sent;
      peer["frames_dropped_peer_down"] = p.frames_dropped_peer_down;
      peer["frames_dropped_queue_full"] = p.frames_dropped_queue_full;
      peer["queued_frames"] = p.queued_frames;
      peer["connects"] = p.connects;
      peer["connect_failures"] = p.connect_failures;
      peer["last_error"] = p.last_error.empty() ? json(nullptr) : json(p.last_error);
    }
    peers.push_back(std::move(peer));
  }
  return peers;
}

json senders_json(const mesh::MeshStats& mesh, bool detailed) {
  json senders = json::array();
  for (const auto& s : mesh.senders) {
    json sender = {{"server_id", s.server_id}, {"alive", s.alive}};
    if (detailed) {
      sender["frames_received"] = s.frames_received;
      sender["last_frame_age_ms"] = s.last_frame_age_ms;
    }
    senders.push_back(std::move(sender));
  }
  return senders;
}

json shared_state_json(const broker::ClusterSnapshot& snapshot, bool detailed) {
  const mesh::MeshStats& mesh = snapshot.mesh;
  return {
      {"enabled", mesh.enabled},
      {"server_id", snapshot.server_id},
      {"listen_port", mesh.listen_port},
      {"peers", peers_json(mesh, detailed)},
      {"senders", senders_json(mesh, detailed)},
  };
}

// Label values: backslash, double quote and newline escaped (exposition format).
std::string label_value(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void header(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << ' ' << help << '\n' << "# TYPE " << name << ' ' << type << '\n';
}

}  // namespace

std::string render_shared_state(const broker::ClusterSnapshot& snapshot) {
  return shared_state_json(snapshot, false).dump();
}

std::string render_shared_state_detail(const broker::ClusterSnapshot& snapshot) {
  json body = shared_state_json(snapshot, true);
  const mesh::MeshStats& mesh = snapshot.mesh;
  json rejected = json::object();
  for (std::size_t i = 0; i < mesh::kRejectReasonCount; ++i) {
    rejected[mesh::to_string(static_cast<mesh::RejectReason>(i))] = mesh.rejected[i];
  }
  body["frames"] = {
      {"broadcast", mesh.frames_broadcast},
      {"unencodable", mesh.frames_unencodable},
      {"received", mesh.frames_received},
      {"rejected", std::move(rejected)},
      {"handler_errors", mesh.handler_errors},
  };
  body["inbound"] = {
      {"connections", mesh.inbound_connections},
      {"refused", mesh.inbound_refused},
      {"idle_closed", mesh.inbound_idle_closed},
  };
  body["sweeper"] = {
      {"passes", snapshot.sweeper.passes},
      {"timers_claimed", snapshot.sweeper.timers_claimed},
      {"timers_fired", snapshot.sweeper.timers_fired},
      {"kv_pruned", snapshot.sweeper.kv_pruned},
      {"failures", snapshot.sweeper.failures},
  };
  json jobs = json::object();
  for (const auto& [name, counters] : snapshot.jobs) {
    jobs[name] = {{"attempts", counters.attempts}, {"runs", counters.runs}, {"failures", counters.failures}};
  }
  body["jobs"] = std::move(jobs);
  return body.dump();
}

std::string render_cluster_prometheus(const broker::ClusterSnapshot& snapshot) {
  const mesh::MeshStats& mesh = snapshot.mesh;
  std::uint64_t sent = 0, dropped_peer_down = 0, dropped_queue_full = 0;
  for (const auto& p : mesh.peers) {
    sent += p.frames_sent;
    dropped_peer_down += p.frames_dropped_peer_down;
    dropped_queue_full += p.frames_dropped_queue_full;
  }
  std::ostringstream out;
  header(out, "queen_mesh_enabled", "gauge", "1 when mesh peers are configured and the mesh runs");
  out << "queen_mesh_enabled " << (mesh.enabled ? 1 : 0) << '\n';
  header(out, "queen_mesh_frames_sent_total", "counter", "Mesh frames written to peers");
  out << "queen_mesh_frames_sent_total " << sent << '\n';
  header(out, "queen_mesh_frames_dropped_total", "counter",
         "Mesh frames dropped instead of queued (peer down, send queue full, unencodable)");
  out << "queen_mesh_frames_dropped_total{reason=\"peer_down\"} " << dropped_peer_down << '\n';
  out << "queen_mesh_frames_dropped_total{reason=\"queue_full\"} " << dropped_queue_full << '\n';
  out << "queen_mesh_frames_dropped_total{reason=\"unencodable\"} " << mesh.frames_unencodable << '\n';
  header(out, "queen_mesh_frames_received_total", "counter", "Valid mesh frames received from peers");
  out << "queen_mesh_frames_received_total " << mesh.frames_received << '\n';
  header(out, "queen_mesh_frames_rejected_total", "counter", "Inbound mesh frames or bytes refused, by reason");
  for (std::size_t i = 0; i < mesh::kRejectReasonCount; ++i) {
    out << "queen_mesh_frames_rejected_total{reason=\"" << mesh::to_string(static_cast<mesh::RejectReason>(i))
        << "\"} " << mesh.rejected[i] << '\n';
  }
  header(out, "queen_mesh_peer_connected", "gauge", "1 while the outbound link to a configured peer is up");
  for (const auto& p : mesh.peers) {
    out << "queen_mesh_peer_connected{peer=\"" << label_value(p.address) << "\"} " << (p.connected ? 1 : 0) << '\n';
  }
  header(out, "queen_mesh_sender_alive", "gauge", "1 while a remote broker's frames keep arriving");
  for (const auto& s : mesh.senders) {
    out << "queen_mesh_sender_alive{server_id=\"" << label_value(s.server_id) << "\"} " << (s.alive ? 1 : 0)
        << '\n';
  }
  header(out, "queen_sweeper_timers_fired_total", "counter", "Timers this broker's sweeper fired");
  out << "queen_sweeper_timers_fired_total " << snapshot.sweeper.timers_fired << '\n';
  header(out, "queen_sweeper_kv_pruned_total", "counter", "Expired KV rows this broker's sweeper deleted");
  out << "queen_sweeper_kv_pruned_total " << snapshot.sweeper.kv_pruned << '\n';
  header(out, "queen_sweeper_failures_total", "counter", "Sweeper passes that failed");
  out << "queen_sweeper_failures_total " << snapshot.sweeper.failures << '\n';
  header(out, "queen_job_runs_total", "counter", "Job cycles this broker was elected for and ran");
  for (const auto& [name, counters] : snapshot.jobs) {
    out << "queen_job_runs_total{job=\"" << label_value(name) << "\"} " << counters.runs << '\n';
  }
  header(out, "queen_job_failures_total", "counter", "Job elections or runs that failed on this broker");
  for (const auto& [name, counters] : snapshot.jobs) {
    out << "queen_job_failures_total{job=\"" << label_value(name) << "\"} " << counters.failures << '\n';
  }
  return out.str();
}

}  // namespace queen::http
