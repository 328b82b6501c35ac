#pragma once
// What the broker tells the machinery shared between replicas (the mesh and
// the local sweeper) once a use case has committed. Implemented by
// broker::Cluster; the broker runs fine without one (single broker, tests).
// Every call must be quick and must not block: they run on request threads.
#include <set>
#include <string>

namespace queen::broker {

enum class MaintenanceKind { Push, Pop };

class ClusterHooks {
 public:
  virtual ~ClusterHooks() = default;
  // Messages were committed to these queues (long polls on peers may pop).
  virtual void push_committed(const std::set<std::string>& queues) = 0;
  // Items with a future deliverAt were scheduled here (the local sweeper
  // should look now rather than at its next sleep ceiling).
  virtual void timers_scheduled() = 0;
  // A maintenance flag was persisted (peers should re-read the flags).
  virtual void maintenance_changed(MaintenanceKind kind, bool enabled) = 0;
  // A queue's configuration changed (peers drop what they cached of it).
  virtual void queue_configured(const std::string& queue) = 0;
};

}  // namespace queen::broker
