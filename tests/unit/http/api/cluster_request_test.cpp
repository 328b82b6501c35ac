// /health shared_state, /api/v1/system/shared-state and the mesh series.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/api/cluster_request.h"

using namespace queen;
using nlohmann::json;

namespace {

broker::ClusterSnapshot two_peer_snapshot() {
  broker::ClusterSnapshot s;
  s.server_id = "queen-a";
  s.mesh.enabled = true;
  s.mesh.listen_port = 6633;
  mesh::PeerLinkStats up;
  up.address = "queen-b:6633";
  up.connected = true;
  up.frames_sent = 10;
  up.frames_dropped_queue_full = 1;
  mesh::PeerLinkStats down;
  down.address = "queen-c:6633";
  down.frames_dropped_peer_down = 4;
  down.last_error = "connect: Connection refused";
  s.mesh.peers = {up, down};
  mesh::RemoteSenderStats b;
  b.server_id = "queen-b";
  b.alive = true;
  b.frames_received = 7;
  s.mesh.senders = {b};
  s.mesh.frames_received = 7;
  s.mesh.rejected[static_cast<std::size_t>(mesh::RejectReason::BadMac)] = 2;
  s.mesh.rejected[static_cast<std::size_t>(mesh::RejectReason::Truncated)] = 1;
  s.sweeper.timers_fired = 5;
  s.jobs = {{"retention", jobs::JobCounters{3, 2, 1}}};
  return s;
}

}  // namespace

TEST(ClusterRender, SharedStateNamesPeersAndSenders) {
  const json state = json::parse(http::render_shared_state(two_peer_snapshot()));
  EXPECT_EQ(state, json::parse(R"({
    "enabled": true, "server_id": "queen-a", "listen_port": 6633,
    "peers": [{"address": "queen-b:6633", "connected": true}, {"address": "queen-c:6633", "connected": false}],
    "senders": [{"server_id": "queen-b", "alive": true}]})"));
}

TEST(ClusterRender, AMeshWithoutPeersIsDisabled) {
  broker::ClusterSnapshot s;
  s.server_id = "solo";
  const json state = json::parse(http::render_shared_state(s));
  EXPECT_EQ(state["enabled"], false);
  EXPECT_TRUE(state["peers"].empty());
  EXPECT_EQ(json::parse(http::kSharedStateDisabled), json::parse(R"({"enabled": false})"));
}

TEST(ClusterRender, DetailAddsCounters) {
  const json detail = json::parse(http::render_shared_state_detail(two_peer_snapshot()));
  EXPECT_EQ(detail["peers"][1]["frames_dropped_peer_down"], 4);
  EXPECT_EQ(detail["peers"][1]["last_error"], "connect: Connection refused");
  EXPECT_TRUE(detail["peers"][0]["last_error"].is_null());
  EXPECT_EQ(detail["senders"][0]["frames_received"], 7);
  EXPECT_EQ(detail["frames"]["rejected"]["bad_mac"], 2);
  EXPECT_EQ(detail["frames"]["rejected"]["replayed"], 0);
  EXPECT_EQ(detail["sweeper"]["timers_fired"], 5);
  EXPECT_EQ(detail["jobs"]["retention"], json::parse(R"({"attempts": 3, "runs": 2, "failures": 1})"));
}

TEST(ClusterRender, PrometheusSeries) {
  const std::string text = http::render_cluster_prometheus(two_peer_snapshot());
  for (const char* line : {"queen_mesh_enabled 1\n", "queen_mesh_frames_sent_total 10\n",
                           "queen_mesh_frames_dropped_total{reason=\"peer_down\"} 4\n",
                           "queen_mesh_frames_dropped_total{reason=\"queue_full\"} 1\n",
                           "queen_mesh_frames_received_total 7\n",
                           "queen_mesh_frames_rejected_total{reason=\"bad_mac\"} 2\n",
                           "queen_mesh_frames_rejected_total{reason=\"truncated\"} 1\n",
                           "queen_mesh_frames_rejected_total{reason=\"replayed\"} 0\n",
                           "queen_mesh_frames_rejected_total{reason=\"stale\"} 0\n",
                           "queen_mesh_peer_connected{peer=\"queen-b:6633\"} 1\n",
                           "queen_mesh_peer_connected{peer=\"queen-c:6633\"} 0\n",
                           "queen_mesh_sender_alive{server_id=\"queen-b\"} 1\n",
                           "queen_sweeper_timers_fired_total 5\n", "queen_job_runs_total{job=\"retention\"} 2\n",
                           "queen_job_failures_total{job=\"retention\"} 1\n",
                           "# TYPE queen_mesh_frames_rejected_total counter\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(ClusterRender, EscapesLabelValues) {
  broker::ClusterSnapshot s;
  mesh::PeerLinkStats odd;
  odd.address = "a\"b\\c:1";
  s.mesh.peers = {odd};
  EXPECT_NE(http::render_cluster_prometheus(s).find(R"(queen_mesh_peer_connected{peer="a\"b\\c:1"} 0)"),
            std::string::npos);
}
