#pragma once
// A Broker on an in-memory database stand-in, for the tests of its use cases
// (push_test.cpp, pop_test.cpp, ack_test.cpp, system_admin_test.cpp): the
// fake records calls and fails on demand; the long polls and the arbiter run
// on a ManualClock.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "util/uuid.h"
#include "../fakes/procedures_fake.h"
#include "../support/eventually.h"
#include "../support/manual_clock.h"

namespace queen::test {

using namespace queen::broker;
using namespace std::chrono_literals;
namespace cat = queen::db::catalogue;
using test_support::advance_until;
using test_support::eventually;
using test_support::ManualClock;

// In-memory stand-in for the database: records calls, fails on demand.
class FakeProcedures : public queen::testing::ProceduresFake {
 public:
  std::atomic<bool> down{false};
  std::string permanent_sqlstate;  // non-empty: every call fails with it
  std::atomic<int> push_calls{0}, pop_calls{0}, ack_calls{0}, extend_calls{0};
  void set_next_pop(std::vector<db::PoppedMessage> messages) {
    std::lock_guard<std::mutex> lock(pop_mutex_);
    next_pop_ = std::move(messages);
  }
  std::string last_push_items, last_acks;
  std::optional<std::string> last_ack_group;
  std::map<std::string, bool> flags;
  // Queues with encryptionEnabled: their plaintext items answer encryption_required, as store_messages does,
  // and queen.encrypted_queue_names lists them (the broker's background re-read calls it from its own thread).
  void set_encrypted_queues(std::set<std::string> queues) {
    std::lock_guard<std::mutex> lock(encrypted_mutex_);
    encrypted_queues_ = std::move(queues);
  }
  using ProceduresFake::call;
  cat::Answer<cat::EncryptedQueueNames> call(cat::EncryptedQueueNames, const std::tuple<>&) override {
    std::lock_guard<std::mutex> lock(encrypted_mutex_);
    std::vector<db::TenantQueue> names;
    for (const auto& queue : encrypted_queues_) names.push_back({Tenant::default_tenant(), queue});
    return names;
  }

  cat::Answer<cat::ConfigureQueue> call(cat::ConfigureQueue, const cat::Arguments<cat::ConfigureQueue>&) override {
    fail_if_needed();
    return "{\"queueId\":\"q\"}";
  }
  cat::Answer<cat::PushWithDedup> call(cat::PushWithDedup, const cat::Arguments<cat::PushWithDedup>& args) override {
    ++push_calls;
    fail_if_needed();
    const std::string& items_json = *std::get<0>(args);
    last_push_items = items_json;
    // One queued row per item; the caller's order of items is idx order.
    std::vector<db::PushRow> rows;
    std::size_t pos = 0;
    int idx = 0;
    while ((pos = items_json.find("\"queue\":", pos)) != std::string::npos) {
      db::PushRow row;
      row.idx = idx++;
      row.status = "queued";
      row.message_id = util::new_uuid_v7();
      const std::size_t start = pos + 9;
      row.queue_name = items_json.substr(start, items_json.find('"', start) - start);
      if (is_encrypted(row.queue_name)) {
        row.status = "encryption_required";
        row.message_id.reset();
      }
      rows.push_back(row);
      pos = start;
    }
    return rows;
  }
  cat::Answer<cat::PopMessages> call(cat::PopMessages, const cat::Arguments<cat::PopMessages>&) override {
    ++pop_calls;
    fail_if_needed();
    std::lock_guard<std::mutex> lock(pop_mutex_);
    return next_pop_;
  }
  cat::Answer<cat::AckMessages> call(cat::AckMessages, const cat::Arguments<cat::AckMessages>& args) override {
    const auto& [acks, group, tenant] = args;
    ++ack_calls;
    fail_if_needed();
    last_acks = *acks;
    last_ack_group = group;
    db::AckRow only_second;  // answers the second item only: the first must be reported missing
    only_second.idx = 1;
    only_second.transaction_id = "t2";
    only_second.success = true;
    return {only_second};
  }
  cat::Answer<cat::ExtendLease> call(cat::ExtendLease, const cat::Arguments<cat::ExtendLease>&) override {
    ++extend_calls;
    fail_if_needed();
    return {{true, 1000000, std::nullopt}};
  }
  cat::Answer<cat::SetSystemFlag> call(cat::SetSystemFlag, const cat::Arguments<cat::SetSystemFlag>& args) override {
    const auto& [key, enabled] = args;
    fail_if_needed();
    flags[*key] = enabled;
    return enabled;
  }
  cat::Answer<cat::GetSystemFlag> call(cat::GetSystemFlag, const cat::Arguments<cat::GetSystemFlag>& args) override {
    fail_if_needed();
    return flags[*std::get<0>(args)];
  }
  std::chrono::microseconds ping() override {
    fail_if_needed();
    return 5us;
  }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return !down; }

 private:
  std::mutex pop_mutex_;
  bool is_encrypted(const std::string& queue) {
    std::lock_guard<std::mutex> lock(encrypted_mutex_);
    return encrypted_queues_.count(queue) > 0;
  }
  std::mutex encrypted_mutex_;
  std::set<std::string> encrypted_queues_;
  std::vector<db::PoppedMessage> next_pop_;

  void fail_if_needed() {
    if (down) throw db::DbError("connection refused", "");
    if (!permanent_sqlstate.empty()) throw db::DbError("bad input", permanent_sqlstate);
  }
};

inline config::Config test_config() {
  config::Config c = config::Config::defaults();
  c.pop.wait_initial_interval_ms = 20;
  c.pop.wait_max_interval_ms = 20;
  return c;
}

inline PushItem item(const std::string& queue, const std::string& txid = "") {
  PushItem i;
  i.queue = queue;
  i.transaction_id = txid;
  return i;
}

inline PopCommand pop_command(bool wait, std::int64_t timeout_ms) {
  PopCommand c{db::PopRequest(Tenant::default_tenant()), false, 0};
  c.query.queue = "q";
  c.wait = wait;
  c.timeout_ms = timeout_ms;
  return c;
}

inline db::PoppedMessage message() {
  db::PoppedMessage m;
  m.message_id = "m1";
  m.queue_name = "q";
  return m;
}

struct BrokerFixture : ::testing::Test {
  config::Config config = test_config();
  FakeProcedures db;
  ManualClock clock;  // the long polls' and the arbiter's time
  wake::PopWaiters waiters{clock};
  metrics::Metrics metrics;
  MaintenanceFlags flags{db, waiters, nullptr, std::chrono::milliseconds(config.system.flag_refresh_ms)};
  Broker broker{config, db, waiters, metrics, flags};

  enum class Time { Moves, Stands };
  // A pop to its end; re-attempts run inline on the resuming thread. With
  // Time::Moves the clock jumps from one re-check to the next until it ends;
  // with Time::Stands only a wake-up ends a long poll.
  PopOutcome pop(const PopCommand& command, std::function<bool()> client_gone, Time time = Time::Moves) {
    std::promise<PopOutcome> done;
    auto ended = done.get_future();
    broker.pops().pop(command, std::move(client_gone), [](std::function<void()> task) { task(); },
               [&done](PopOutcome outcome, std::exception_ptr error) {
                 if (error) return done.set_exception(error);
                 done.set_value(std::move(outcome));
               });
    const auto is_over = [&] { return ended.wait_for(0s) == std::future_status::ready; };
    EXPECT_TRUE(time == Time::Moves ? advance_until(clock, is_over) : eventually(is_over));
    return ended.get();
  }
  // A long poll is parked: registered and its re-check timer armed.
  bool a_poll_is_parked() const { return waiters.parked() == 1u && clock.timed_waiters() == 1u; }
};

}  // namespace queen::test
