// Broker events to mesh frames and back.
#include <gtest/gtest.h>

#include "broker/mesh_bridge.h"

using namespace queen;

TEST(MeshBridge, OnePopWakePerCommittedQueue) {
  const auto frames = broker::pop_wake_frames({"orders", "invoices"});
  ASSERT_EQ(frames.size(), 2u);
  for (const auto& f : frames) {
    EXPECT_EQ(f.type, mesh::FrameType::PopWake);
    EXPECT_FALSE(f.partition.has_value());
  }
  EXPECT_EQ(frames[0].queue, "invoices");
  EXPECT_EQ(frames[1].queue, "orders");
}

TEST(MeshBridge, PopWakeFramesAreEncodable) {
  for (const auto& f : broker::pop_wake_frames({std::string(255, 'q')})) {
    mesh::Frame stamped = f;
    stamped.sender_id = "queen-a";
    EXPECT_TRUE(mesh::encode_frame(stamped, "secret").has_value());
  }
}

TEST(MeshBridge, SkipsQueueNamesAFrameCannotCarry) {
  EXPECT_TRUE(broker::pop_wake_frames({"", std::string(5000, 'q')}).empty());
}

TEST(MeshBridge, MaintenanceFlipsNameTheFlag) {
  const mesh::Frame push = broker::maintenance_flip_frame(broker::MaintenanceKind::Push, true);
  EXPECT_EQ(push.type, mesh::FrameType::MaintenanceFlip);
  EXPECT_EQ(push.maintenance_flag, mesh::MaintenanceFlag::Push);
  EXPECT_TRUE(push.enabled);
  const mesh::Frame pop = broker::maintenance_flip_frame(broker::MaintenanceKind::Pop, false);
  EXPECT_EQ(pop.maintenance_flag, mesh::MaintenanceFlag::Pop);
  EXPECT_FALSE(pop.enabled);
}

TEST(MeshBridge, PopWakesAndHotMarksWakeTheirQueue) {
  const auto wake = broker::actions_for(mesh::make_pop_wake("orders", "p1"));
  EXPECT_EQ(wake.wake_queues, (std::set<std::string>{"orders"}));
  EXPECT_FALSE(wake.refresh_maintenance_flags);
  EXPECT_FALSE(wake.forget_queue);
  const auto hot = broker::actions_for(mesh::make_hot_mark("invoices", "p2"));
  EXPECT_EQ(hot.wake_queues, (std::set<std::string>{"invoices"}));
}

TEST(MeshBridge, AMaintenanceFlipOnlyAsksForARereadWhateverItsValue) {
  for (bool enabled : {true, false}) {
    const auto actions = broker::actions_for(mesh::make_maintenance_flip(mesh::MaintenanceFlag::Pop, enabled));
    EXPECT_TRUE(actions.refresh_maintenance_flags);
    EXPECT_TRUE(actions.wake_queues.empty());
  }
}

TEST(MeshBridge, AConfigInvalidationNamesTheQueueToForget) {
  const auto actions = broker::actions_for(mesh::make_config_invalidation("orders"));
  EXPECT_EQ(actions.forget_queue, "orders");
  EXPECT_TRUE(actions.wake_queues.empty());
}

TEST(MeshBridge, HeartbeatsAskForNothing) {
  const auto actions = broker::actions_for(mesh::make_heartbeat());
  EXPECT_TRUE(actions.wake_queues.empty());
  EXPECT_FALSE(actions.refresh_maintenance_flags);
  EXPECT_FALSE(actions.forget_queue);
}
